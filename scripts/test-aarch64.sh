#!/usr/bin/env bash
# Runs the kernels' tests as aarch64 code under qemu user emulation, so
# that the NEON paths are pinned to their reference twins on an x86-64
# machine. This checks exactness, never speed: the code is emulated.
#
#   scripts/test-aarch64.sh              # cargo test --release -p octal-kernels --lib --tests
#   scripts/test-aarch64.sh -- FILTER    # extra arguments go to cargo test
#   scripts/test-aarch64.sh --engine     # also the whole engine against the
#                                        # reference on every path
#                                        # (tests/suite/isa_paths.rs; ~5 min more,
#                                        # so not in the test suite)
#
# Needs what scripts/install-aarch64.sh installs (exit 2 without it). The
# test suite runs it (tests/neon_qemu.rs) wherever that is installed. The
# linker and the runner are given through the environment: no cargo config
# file is needed. Exits non-zero when a test fails.
set -euo pipefail
cd "$(dirname "$0")/.."

engine=no
if [[ "${1:-}" == --engine ]]; then
    engine=yes
    shift
fi

target=aarch64-unknown-linux-gnu
sysroot=/usr/aarch64-linux-gnu

installed=$(rustup target list --installed)
if ! grep -qx "$target" <<<"$installed" || ! command -v aarch64-linux-gnu-gcc >/dev/null ||
    ! command -v qemu-aarch64 >/dev/null; then
    echo "test-aarch64: the aarch64 target, cross linker or qemu is missing: run scripts/install-aarch64.sh" >&2
    exit 2
fi

echo "test-aarch64: the kernels under qemu-aarch64 (emulated: this checks exactness, not speed)"
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="qemu-aarch64 -L $sysroot"
# --lib --tests: the kernels have no doc-tests, whose empty run would close
# the output.
cargo test --release -p octal-kernels --target "$target" --lib --tests "$@"
if [[ $engine == yes ]]; then
    # The crate's C dependency (zstd) is built with the cross compiler.
    export CC_aarch64_unknown_linux_gnu=aarch64-linux-gnu-gcc
    cargo test --release --target "$target" --test suite isa_paths
fi
