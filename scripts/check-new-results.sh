#!/usr/bin/env bash
# Makes the certificates of the four games that T. Czajka's
# UnsolvedGames.md lists as unsolved and the three-digit census proves
# periodic (4.344, 4.364, 4.064, 4.406; their periods are in R. Sabey's OEIS entries A125942, A125943,
# A125935 and A125937) and checks each with both independent
# checkers: `octal certify --check` (Rust, no engine code) and
# scripts/check-certificate.py (Python and numpy, nothing of octal).
# Prints the time of each step; exit 1 when any check fails.
#
#   scripts/check-new-results.sh            # certificates into a temporary directory
#   scripts/check-new-results.sh DIR        # ... into DIR (kept)
#   PYTHON=python3 scripts/check-new-results.sh
#
# The Python check of 4.406 (N = 588,283) takes minutes; the script says
# its estimate before it starts.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

python=${PYTHON:-}
if [[ -z $python ]]; then
    if [[ -x target/python-venv/bin/python ]]; then
        python=$root/target/python-venv/bin/python
    else
        python=python3
    fi
fi
if ! "$python" -c 'import numpy' 2>/dev/null; then
    echo "no numpy for $python: run scripts/install-python.sh (or set PYTHON)" >&2
    exit 2
fi

cargo build --release --quiet
octal=$root/target/release/octal

if [[ $# -ge 1 ]]; then
    dir=$1
    mkdir -p "$dir"
else
    dir=$(mktemp -d)
    trap 'rm -rf "$dir"' EXIT
fi
cd "$dir"
echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; $("$octal" --version)"

status=0
seconds() { date +%s.%N; }
step() {
    local what=$1
    shift
    local t0
    t0=$(seconds)
    if "$@"; then
        awk -v w="$what" -v a="$t0" -v b="$(seconds)" 'BEGIN { printf "  %-40s %6.1f s\n", w, b - a }'
    else
        printf '  %-40s FAILED\n' "$what"
        status=1
    fi
}
for code in 4.344 4.364 4.064 4.406; do
    echo "$code"
    step "octal certify $code" "$octal" certify "$code" --quiet
    step "octal certify --check" "$octal" certify --check "$code.cert.json" --quiet
    step "check-certificate.py" "$python" "$root/scripts/check-certificate.py" "$code.cert.json"
done
exit $status
