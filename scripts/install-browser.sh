#!/usr/bin/env bash
# Installs Debian's chromium, the headless browser tests/suite/atlas.rs drives
# (`chromium --headless --dump-dom`, `--screenshot`), when it is missing.
# Idempotent and quiet. It never fails: where chromium cannot be installed
# (no apt, not root, no package source) it says so and exits 0, and the
# browser test then prints "skipped: no chromium; run
# scripts/install-browser.sh". .ci/run calls it before the test suite.
set -uo pipefail

have() {
    command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1
}

if have; then
    echo "chromium ready: $( (chromium --version || chromium-browser --version) 2>/dev/null | head -n1)"
    exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-browser: no apt-get here; the atlas browser test will be skipped" >&2
    exit 0
fi
sudo=()
if [[ $(id -u) -ne 0 ]]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
        sudo=(sudo -n)
    else
        echo "install-browser: not root and no sudo; the atlas browser test will be skipped" >&2
        exit 0
    fi
fi
export DEBIAN_FRONTEND=noninteractive
if ! "${sudo[@]}" apt-get install -y -qq --no-install-recommends chromium >/dev/null 2>&1; then
    "${sudo[@]}" apt-get update -qq >/dev/null 2>&1 || true
    "${sudo[@]}" apt-get install -y -qq --no-install-recommends chromium >/dev/null 2>&1 || true
fi
if have; then
    echo "chromium ready: $(chromium --version 2>/dev/null | head -n1)"
else
    echo "install-browser: chromium could not be installed; the atlas browser test will be skipped" >&2
fi
exit 0
