#!/usr/bin/env bash
# Fills in the blank cells of the thesis' Cookie Cutter tables (5.1-5.7) as
# far as a per-board time limit allows, writing
# data/cookie-cutter/filled-k<K>.txt with the time each board took.
#
# Usage: scripts/fill-cookie-tables.sh [SECONDS_PER_BOARD [K ...]]
#   defaults: 60 seconds, K = inf 2 3 4 5 6 7 (inf = arbitrarily large)
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
shift || true
ks=("$@")
if [ ${#ks[@]} -eq 0 ]; then ks=(inf 2 3 4 5 6 7); fi
cargo build --release --quiet
bin=target/release/octal
for k in "${ks[@]}"; do
  out=data/cookie-cutter/filled-k$k.txt
  log=$(mktemp)
  tab=$(mktemp)
  start=$(date +%s)
  "$bin" cookie-cutter --k "$k" --table 6x15 --cell-seconds "$secs" >"$tab" 2>"$log"
  {
    echo "# Cookie Cutter values of the x-by-y board, cutter k=$k (inf = arbitrarily large)."
    echo "# Made by scripts/fill-cookie-tables.sh on $(date -u +%Y-%m-%dT%H:%MZ):"
    echo "#   octal cookie-cutter --k $k --table 6x15 --cell-seconds $secs"
    echo "# $(($(date +%s) - start)) s in all. Rows x = 1..6, columns y = 1..15. '.' = not finished"
    echo "# within the limit, or not tried because a board no larger on either side ran out."
    echo "# Strips (x = 1 or y = 1) come from the octal engine, boards from the exact search."
    echo "# k: $k"
    echo "# Boards tried (wall-clock seconds on a shared 2-core machine; positions = memo size):"
    sed 's/^/#   /' "$log"
    cat "$tab"
  } >"$out"
  rm -f "$log" "$tab"
  echo "wrote $out"
done
