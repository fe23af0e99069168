#!/usr/bin/env bash
# The test command README.md gives and .ci/run runs: the test suite, then
# the Python package's step and the NEON kernels' step (each also runnable
# alone, see README's Development table). A step whose tools are missing
# says SKIPPED and names the script that installs them.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --release --workspace
cargo test --release --workspace --test python
cargo test --release --workspace --test neon_qemu
