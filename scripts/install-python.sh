#!/usr/bin/env bash
# Creates the virtual environment tests/python.rs runs the Python package's
# tests in: target/python-venv (or $OCTAL_PYTHON_VENV), from the first
# python3 on PATH (3.9 or newer), with maturin (to build ./python), numpy
# and pytest, at versions known to work. .ci/run calls it before the test
# suite; it is quick when the environment already has them.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${OCTAL_PYTHON_VENV:-target/python-venv}
python=${PYTHON:-python3}

"$python" - <<'PY'
import sys
if sys.version_info < (3, 9):
    sys.exit(f"python {sys.version.split()[0]} is too old: the octal package needs 3.9 or newer")
PY

if [[ ! -x $venv/bin/python ]]; then
    rm -rf "$venv"
    "$python" -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    'maturin>=1.9.4,<2' 'numpy>=1.26,<3' 'pytest>=8,<10'
"$venv/bin/python" -c 'import maturin, numpy, pytest; print("python venv ready:", numpy.__version__, pytest.__version__)'
