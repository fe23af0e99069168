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
#   scripts/compare-peers.sh --isa avx2,scalar
#                                       # octal's columns under each of these
#                                       # kernel paths (OCTAL_ISA), beside one
#                                       # ogsolve time; default: the host's best
#
# ogsolve is installed into a temporary directory (nothing is vendored);
# OGSOLVE=/path/to/ogsolve reuses a binary installed that way before.
# OCTAL=/path/to/octal times that octal binary instead of this checkout's
# (say, a copy built at an earlier commit, for a before/after comparison).
# For each game its fastest method is picked by a pilot run at 1/20 of the
# size (the naive method only for games without sparse space). Agreement is
# checked on G(N−1) and on the number of zeros (ogsolve's "losing positions").
set -euo pipefail
cd "$(dirname "$0")/.."

scale=1
repeat=1
isas=()
only=()
while (($#)); do
    case "$1" in
    --quick) scale=100 ;;
    --scale) scale=${2:?--scale needs a divisor}; shift ;;
    --repeat) repeat=${2:?--repeat needs a count}; shift ;;
    --isa) IFS=, read -r -a isas <<<"${2:?--isa needs a list, e.g. avx2,scalar}"; shift ;;
    -*) echo "usage: $0 [--quick | --scale K] [--repeat K] [--isa LIST] [GAME...]" >&2; exit 2 ;;
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
cargo build --release --quiet --bin octal --example core_latency
octal=${OCTAL:-target/release/octal}
"$octal" --version >&2
# The round trip between two threads, in ns: two threads gain less while
# the machine's two cores are far apart (see examples/core_latency.rs).
round_trip() { target/release/examples/core_latency; }
if ((${#isas[@]} == 0)); then
    isas=("$("$octal" run 0.6 --to 10 --no-store --json --quiet | sed -n 's/.*"isa":"\([a-z0-9]*\)".*/\1/p')")
fi
for isa in "${isas[@]}"; do # a path this host lacks fails here, not mid-table
    OCTAL_ISA=$isa "$octal" run 0.6 --to 10 --no-store --quiet >/dev/null
done

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

run_octal() { # game, values, threads, isa -> "seconds value percent"
    local t0 t1 out
    t0=$(now)
    out=$(OCTAL_ISA=$4 "$octal" run "$1" --to "$2" --threads "$3" --json --quiet --no-store --keep-going)
    t1=$(now)
    local v z
    v=$(sed -n 's/.*"last_value":\([0-9]*\).*/\1/p' <<<"$out")
    z=$(sed -n 's/.*"zeros":\([0-9]*\).*/\1/p' <<<"$out")
    echo "$(echo "$t1 - $t0" | bc -l) $v $(echo "100 * $z / $2" | bc -l)"
}

# ogsolve prints the share of zeros rounded to two decimals (0.005% is
# printed 0.01%), so octal's exact share agrees when within half a unit.
same_share() { # ogsolve's percent, octal's exact percent
    (($(echo "d = $1 - $2; if (d < 0) d = -d; d <= 0.005000001" | bc -l)))
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
    # Games without sparse space (issue 42): the two-digit .04 and .06 and
    # the 14-digit Cookie Cutter strip 0.33333333333337 (values reach 1,596).
    "0.04 524288 naive rc2"
    "0.06 524288 naive rc2"
    "0.33333333333337 200000 naive rc2"
)

flags=$(grep -m1 -oE '^(flags|Features)\s*:.*' /proc/cpuinfo | tr ' ' '\n' |
    grep -xE 'popcnt|bmi1|avx2|avx512f|avx512bw|avx512vbmi|avx512_vbmi2|avx512_bitalg|asimd|neon' | tr '\n' ' ' || true)
echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores, $(uname -m); SIMD: ${flags:-none}"
printf '%-10s %10s %-7s %10s %-7s %12s %12s %8s %8s %8s %-9s %s\n' game values method ogsolve_s isa \
    octal_1t_s octal_2t_s ratio_1t 2t/1t ratio_2t rt_ns agree
fail=0
for row in "${games[@]}"; do
    read -r game size methods <<<"$row"
    if ((${#only[@]})) && ! printf '%s\n' "${only[@]}" | grep -qxF -e "$game"; then
        continue
    fi
    n=$((size / scale))
    # shellcheck disable=SC2086
    method=$(fastest_method "$game" $((n / 20 - 1)) $methods)
    # Rounds of all the runs in turn (so that a slow spell of this machine
    # hits them alike); the least time of each counts, and every round's
    # values must agree.
    agree=yes ot=""
    declare -A t1=() t2=()
    rt0=$(round_trip)
    for ((r = 0; r < repeat; r++)); do
        read -r a ov op < <(run_ogsolve "$game" $((n - 1)) "$method")
        ot=$(least "$ot" "$a")
        line="round $((r + 1)): $game ogsolve $a s"
        for isa in "${isas[@]}"; do
            read -r b v1 p1 < <(run_octal "$game" "$n" 1 "$isa")
            read -r c v2 p2 < <(run_octal "$game" "$n" 2 "$isa")
            t1[$isa]=$(least "${t1[$isa]:-}" "$b") t2[$isa]=$(least "${t2[$isa]:-}" "$c")
            if [[ "$ov" != "$v1" || "$ov" != "$v2" ]] || ! same_share "$op" "$p1" || ! same_share "$op" "$p2"; then
                agree="NO (ogsolve G=$ov zeros=$op%, octal $isa G=$v1/$v2 zeros=$(printf '%.4f/%.4f' "$p1" "$p2")%)"
                fail=1
            fi
            line+=", $isa $b s / $c s"
        done
        if ((repeat > 1)); then
            echo "$line" >&2
        fi
    done
    rt="$rt0/$(round_trip)"
    for isa in "${isas[@]}"; do
        printf '%-10s %10s %-7s %10.2f %-7s %12.2f %12.2f %7.1fx %7.2fx %7.1fx %-9s %s\n' "$game" "$n" "$method" \
            "$ot" "$isa" "${t1[$isa]}" "${t2[$isa]}" "$(echo "$ot / ${t1[$isa]}" | bc -l)" \
            "$(echo "${t1[$isa]} / ${t2[$isa]}" | bc -l)" "$(echo "$ot / ${t2[$isa]}" | bc -l)" "$rt" "$agree"
    done
    unset t1 t2
done
echo "least of $repeat round(s); ratio_1t = ogsolve / octal on 1 thread, ratio_2t on 2 threads;"
echo "rt_ns = round trip between two threads before/after the game's runs (two threads gain less when it is high)"
exit $fail
