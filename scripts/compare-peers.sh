#!/usr/bin/env bash
# Times octal against ogsolve (Piotr Beling's solver, crates.io) on the same
# games and sizes in one run, checks that they agree, and prints a table.
#
#   scripts/compare-peers.sh           # the sizes of the README's Speed table
#   scripts/compare-peers.sh --quick   # 100x smaller, for a smoke test
#   scripts/compare-peers.sh --scale K # sizes divided by K
#   scripts/compare-peers.sh 0.6 .16   # only these games of the table
#   scripts/compare-peers.sh --repeat 3 # 3 rounds (ogsolve, octal 1t, 2t
#                                       # in turn), least time of each
#
# ogsolve is installed into a temporary directory (nothing is vendored);
# OGSOLVE=/path/to/ogsolve reuses a binary installed that way before.
# For each game its fastest method is picked by a pilot run at 1/20 of the
# size (the naive method only for games without sparse space). Agreement is
# checked on G(N−1) and on the number of zeros (ogsolve's "losing positions").
set -euo pipefail
cd "$(dirname "$0")/.."

scale=1
repeat=1
only=()
while (($#)); do
    case "$1" in
    --quick) scale=100 ;;
    --scale) scale=${2:?--scale needs a divisor}; shift ;;
    --repeat) repeat=${2:?--repeat needs a count}; shift ;;
    -*) echo "usage: $0 [--quick | --scale K] [--repeat K] [GAME...]" >&2; exit 2 ;;
    .*) only+=("0$1") ;; # .16 is written 0.16 in the table
    *) only+=("$1") ;;
    esac
    shift
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [[ -n "${OGSOLVE:-}" ]]; then
    ogsolve=$OGSOLVE # an ogsolve binary installed earlier the same way
else
    echo "installing ogsolve into $tmp ..." >&2
    cargo install ogsolve --root "$tmp" --quiet >&2
    ogsolve="$tmp/bin/ogsolve"
fi
cargo build --release --quiet
octal=target/release/octal

now() { date +%s.%N; }

# ogsolve -n M solves heaps 0..=M; prints "nimber of M: v  losing positions: p%".
run_ogsolve() { # game, last heap, method -> "seconds value percent"
    local t0 t1 out
    t0=$(now)
    out=$("$ogsolve" "$1" -n "$2" -m "$3")
    t1=$(now)
    local v p
    v=$(sed -n 's/.*nimber of [0-9]*: \([0-9]*\).*/\1/p' <<<"$out")
    p=$(sed -n 's/.*losing positions: \([0-9.]*\)%.*/\1/p' <<<"$out")
    echo "$(echo "$t1 - $t0" | bc -l) $v $p"
}

run_octal() { # game, values, threads -> "seconds value percent"
    local t0 t1 out
    t0=$(now)
    out=$("$octal" run "$1" --to "$2" --threads "$3" --json --quiet --no-store --keep-going)
    t1=$(now)
    local v z
    v=$(sed -n 's/.*"last_value":\([0-9]*\).*/\1/p' <<<"$out")
    z=$(sed -n 's/.*"zeros":\([0-9]*\).*/\1/p' <<<"$out")
    echo "$(echo "$t1 - $t0" | bc -l) $v $(printf '%.2f' "$(echo "100 * $z / $2" | bc -l)")"
}

least() { # the smaller of two times; an empty first one loses
    if [[ -z "$1" ]] || (($(echo "$2 < $1" | bc -l))); then echo "$2"; else echo "$1"; fi
}

fastest_method() { # game, last heap, candidate methods...
    local game=$1 n=$2 best="" best_t=""
    shift 2
    for m in "$@"; do
        read -r t _ _ < <(run_ogsolve "$game" "$n" "$m")
        if [[ -z "$best_t" ]] || (($(echo "$t < $best_t" | bc -l))); then
            best=$m best_t=$t
        fi
    done
    echo "$best"
}

# game, values, ogsolve candidate methods
games=(
    "0.6 10000000 rc rcs rc2 rc2s"
    "0.16 100000000 rc rcs rc2 rc2s"
    "0.333337 1000000 naive"
)

printf '%-10s %10s %-7s %10s %12s %12s %8s %s\n' game values method ogsolve_s octal_1t_s octal_2t_s ratio agree
fail=0
for row in "${games[@]}"; do
    read -r game size methods <<<"$row"
    if ((${#only[@]})) && ! printf '%s\n' "${only[@]}" | grep -qxF -e "$game"; then
        continue
    fi
    n=$((size / scale))
    # shellcheck disable=SC2086
    method=$(fastest_method "$game" $((n / 20 - 1)) $methods)
    # Rounds of the three runs in turn (so that a slow spell of this
    # machine hits all three alike); the least time of each counts, and
    # every round's values must agree.
    agree=yes ot="" t1="" t2=""
    for ((r = 0; r < repeat; r++)); do
        read -r a ov op < <(run_ogsolve "$game" $((n - 1)) "$method")
        read -r b v1 p1 < <(run_octal "$game" "$n" 1)
        read -r c v2 p2 < <(run_octal "$game" "$n" 2)
        ot=$(least "$ot" "$a") t1=$(least "$t1" "$b") t2=$(least "$t2" "$c")
        if [[ "$ov" != "$v1" || "$ov" != "$v2" || "$op" != "$p1" || "$op" != "$p2" ]]; then
            agree="NO (ogsolve G=$ov zeros=$op%, octal G=$v1/$v2 zeros=$p1/$p2%)"
            fail=1
        fi
        if ((repeat > 1)); then
            printf 'round %d: %s %.2f s, octal %.2f s / %.2f s\n' $((r + 1)) "$game" "$a" "$b" "$c" >&2
        fi
    done
    printf '%-10s %10s %-7s %10.2f %12.2f %12.2f %7.1fx %s\n' "$game" "$n" "$method" "$ot" "$t1" "$t2" \
        "$(echo "$ot / $t1" | bc -l)" "$agree"
    printf '%-10s %10s %-7s %10s %12s %12s %7.2fx %s\n' "" "" "" "" "" "2t vs 1t:" \
        "$(echo "$t1 / $t2" | bc -l)" ""
    printf '%-10s %10s %-7s %10s %12s %12s %7.1fx %s\n' "" "" "" "" "" "ogsolve/2t:" \
        "$(echo "$ot / $t2" | bc -l)" ""
done
echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; least of $repeat round(s)"
exit $fail
