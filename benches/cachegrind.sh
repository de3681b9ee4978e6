#!/usr/bin/env bash
# The agent loop against its floor without the machine's noise: the single-agent loop and the
# floor (see benches/compare.sh) run sequentially under valgrind's cachegrind, which counts the
# instructions each executes and simulates its caches and branch predictor. Per model call:
# instructions, first-level instruction and data cache misses, mispredicted branches, and an
# estimate of cycles from them (1 per instruction, 12 per first-level miss, 15 per mispredict:
# a model, not a measurement). Runs of two sizes are subtracted, so start-up cancels out.
#
# Counts are the same from run to run within about 1 % (threads interleave differently), so
# a change of a few per cent shows here where benches/compare.sh would need dozens of runs.
# Needs valgrind (Debian package `valgrind`); takes about two minutes.
#
#   benches/cachegrind.sh [RUNS]        (default 150: RUNS and 2×RUNS sequential runs per program)
set -euo pipefail
cd "$(dirname "$0")/.."

usage='usage: benches/cachegrind.sh [RUNS]   (default 150)'
# shellcheck source=benches/common.sh
source benches/common.sh
check_args "$@"
runs=${1:-150}
whole_numbers "RUNS=$runs"
if ! command -v valgrind >/dev/null; then
    echo "benches/cachegrind.sh: needs valgrind (apt-get install valgrind)" >&2
    exit 1
fi
build_and_record

# The totals of one program's run under cachegrind, as "instructions I1-misses D1-misses
# mispredicts".
totals() {
    valgrind --tool=cachegrind --cache-sim=yes --branch-sim=yes --cachegrind-out-file=/dev/null \
        "$@" 2>&1 >/dev/null |
        awk '
            /I *refs:/ { gsub(",", "", $4); ir = $4 }
            /I1 *misses:/ { gsub(",", "", $4); i1 = $4 }
            /D1 *misses:/ { gsub(",", "", $4); d1 = $4 }
            /Mispredicts:/ { gsub(",", "", $3); mp = $3 }
            END { print ir, i1, d1, mp }'
}

start_server
echo "per model call, $runs and $((2 * runs)) sequential runs subtracted"
echo
echo "| mode | program | instructions | I1 misses | D1 misses | mispredicts | cycles (model) |"
echo "|---|---|---|---|---|---|---|"
for mode in no-stream stream; do
    flag=()
    [ "$mode" = stream ] && flag=(--stream)
    declare -A cycles=()
    for program in loop floor; do
        line=()
        for size in "$runs" "$((2 * runs))"; do
            if [ "$program" = loop ]; then
                line+=("$(totals "$bin/bench_loop" --base-url "$base_url" -n "$size" -c 0 "${flag[@]}")")
            else
                line+=("$(totals "$bin/floor" --base-url "$base_url" --bodies "$work/$mode.jsonl" -n "$size" -c 0)")
            fi
        done
        # A run is two model calls (a tool call, then the answer).
        row=$(awk -v a="${line[0]}" -v b="${line[1]}" -v calls="$((2 * runs))" 'BEGIN {
            split(a, x, " "); split(b, y, " ")
            for (i = 1; i <= 4; i++) d[i] = (y[i] - x[i]) / calls
            printf "%.0f %.0f %.0f %.0f %.0f", d[1], d[2], d[3], d[4], d[1] + 12 * (d[2] + d[3]) + 15 * d[4]
        }')
        read -r ir i1 d1 mp estimate <<<"$row"
        cycles[$program]=$estimate
        label="$([ "$mode" = stream ] && echo streaming || echo not streaming)"
        printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$label" "$program" "$ir" "$i1" "$d1" "$mp" "$estimate"
    done
    awk -v e="${cycles[loop]}" -v f="${cycles[floor]}" -v m="$mode" \
        'BEGIN { printf "| %s | ratio | | | | | %.2f× |\n", (m == "stream" ? "streaming" : "not streaming"), e / f }'
done
