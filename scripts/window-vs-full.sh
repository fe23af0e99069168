#!/usr/bin/env bash
# Times a windowed run against a full one (in memory) of the same game, to
# the same N, with the same threads and kernel path, in one run, and checks
# that their checksums agree. Prints wall time, rate and peak resident
# memory of each, and the ratio of the rates.
#
#   scripts/window-vs-full.sh                      # 0.6 to 2^27, window 2^24 with a prefix of 2^23
#   scripts/window-vs-full.sh 0.6 2^26 2^22 2^20   # CODE N WINDOW PREFIX
#   THREADS=1 OCTAL_ISA=avx2 scripts/window-vs-full.sh
#
# Peak memory comes from GNU time (/usr/bin/time -v) when it is installed.
set -euo pipefail
cd "$(dirname "$0")/.."

code=${1:-0.6}
n=${2:-2^27}
window=${3:-2^24}
prefix=${4:-2^23}
threads=${THREADS:-2}

cargo build --release --quiet
octal=target/release/octal
flags=$(grep -m1 -oE '^(flags|Features)\s*:.*' /proc/cpuinfo | tr ' ' '\n' |
    grep -E '^(avx2|avx512f|avx512bw|avx512vbmi|avx512_vbmi2|avx512_bitalg|asimd|sve)$' | sort | tr '\n' ' ' || true)
isa=$("$octal" run 0.6 --to 10 --no-store --json --quiet | sed -n 's/.*"isa":"\([a-z0-9]*\)".*/\1/p')
echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores, $(uname -m); SIMD: ${flags:-none}; kernels: $isa; commit $(git rev-parse --short HEAD)"
echo "game $code, N = $n, $threads threads; window $window, prefix $prefix"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
measure() { # name, then the octal arguments
    local name=$1
    shift
    local t0 t1
    t0=$(date +%s.%N)
    if [[ -x /usr/bin/time ]]; then
        /usr/bin/time -v -o "$tmp/$name.time" "$octal" "$@" --threads "$threads" --json --quiet >"$tmp/$name.json"
    else
        "$octal" "$@" --threads "$threads" --json --quiet >"$tmp/$name.json"
    fi
    t1=$(date +%s.%N)
    local secs rss sum
    secs=$(echo "$t1 - $t0" | bc -l)
    rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$tmp/$name.time" 2>/dev/null || true)
    sum=$(sed -n 's/.*"checksum":"\([0-9a-f]*\)".*/\1/p' "$tmp/$name.json")
    printf '%-9s %9.1f s  peak RSS %8s KiB  checksum %s\n' "$name" "$secs" "${rss:-?}" "$sum"
    echo "$secs" >"$tmp/$name.secs"
    echo "$sum" >"$tmp/$name.sum"
}
measure full run "$code" --to "$n" --no-store --keep-going
measure windowed run "$code" --to "$n" --window "$window" --prefix "$prefix" --no-store --keep-going
if [[ "$(cat "$tmp/full.sum")" != "$(cat "$tmp/windowed.sum")" ]]; then
    echo "CHECKSUMS DIFFER" >&2
    exit 1
fi
echo "checksums agree; windowed rate / full rate = $(echo "scale=2; $(cat "$tmp/full.secs") / $(cat "$tmp/windowed.secs")" | bc -l)"
