#!/usr/bin/env bash
# Installs what scripts/test-aarch64.sh needs to run the kernels' tests as
# aarch64 code under qemu on an x86-64 Debian machine, where it is missing:
# the Rust target aarch64-unknown-linux-gnu, the cross linker
# (gcc-aarch64-linux-gnu and the aarch64 C library under
# /usr/aarch64-linux-gnu) and qemu-aarch64 (package qemu-user). apt-get
# runs only when the linker or qemu is missing (as root, else with sudo).
# .ci/run calls it before the test suite, whose tests/neon_qemu.rs then
# runs scripts/test-aarch64.sh.
set -euo pipefail

target=aarch64-unknown-linux-gnu
# (Listed first: grep -q closing the pipe early would fail it under pipefail.)
installed=$(rustup target list --installed)
if ! grep -qx "$target" <<<"$installed"; then
    rustup target add "$target"
fi

if ! command -v aarch64-linux-gnu-gcc >/dev/null || ! command -v qemu-aarch64 >/dev/null; then
    if [[ $(id -u) -ne 0 ]]; then
        sudo=sudo
    else
        sudo=
    fi
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update
    $sudo apt-get install -y --no-install-recommends gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user
fi
