#!/usr/bin/env bash
# The agent loop against its floor: the single-agent loop (benches/drivers/bench_loop.rs, the timing
# harness examples/embed.rs used to carry) and a bare HTTP client making the same exchanges
# (benches/drivers/floor.rs), back to back against the same instant local OpenAI-compatible server,
# sequential and 50 concurrent, streaming and not; repeated, and the medians of milliseconds
# per model call printed with their ratio. Offline, no keys.
#
#   benches/compare.sh [REPEATS]        (default 7; SEQUENTIAL, CONCURRENT, ROUNDS override the sizes)
set -euo pipefail
cd "$(dirname "$0")/.."

usage='usage: benches/compare.sh [REPEATS]   (default 7; SEQUENTIAL, CONCURRENT, ROUNDS override the sizes)'
# shellcheck source=benches/common.sh
source benches/common.sh
check_args "$@"
repeats=${1:-7}
sequential=${SEQUENTIAL:-2000}
concurrent=${CONCURRENT:-50}
rounds=${ROUNDS:-40}
whole_numbers "REPEATS=$repeats" "SEQUENTIAL=$sequential" "CONCURRENT=$concurrent" "ROUNDS=$rounds"
build_and_record

start_server
field() { sed -n "s/.*\"$1\":\([0-9.e-]*\).*/\1/p"; }
for ((i = 1; i <= repeats; i++)); do
    for mode in no-stream stream; do
        flag=()
        [ "$mode" = stream ] && flag=(--stream)
        sizes=(-n "$sequential" -c "$concurrent" --rounds "$rounds")
        loop=$("$bin/bench_loop" --base-url "$base_url" "${sizes[@]}" "${flag[@]}" | grep '^RESULT')
        floor=$("$bin/floor" --base-url "$base_url" --bodies "$work/$mode.jsonl" "${sizes[@]}" | grep '^RESULT')
        for phase in sequential concurrent; do
            printf '%s %s loop %s\n' "$mode" "$phase" "$(field "${phase}_ms_per_call" <<<"$loop")"
            printf '%s %s floor %s\n' "$mode" "$phase" "$(field "${phase}_ms_per_call" <<<"$floor")"
        done >>"$work/samples"
    done
    printf 'round %d of %d done\n' "$i" "$repeats" >&2
done
stop_server

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
spread() { sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.3f–%.3f", lo, hi }'; }

echo
echo "ms per model call, median of $repeats (min–max); sequential: $sequential runs; concurrent: $concurrent at once × $rounds rounds"
echo
echo "| mode | agent loop (bench_loop) | floor (bare reqwest) | ratio of medians | median of paired ratios |"
echo "|---|---|---|---|---|"
for mode in no-stream stream; do
    for phase in sequential concurrent; do
        pick() { awk -v m="$mode" -v p="$phase" -v w="$1" '$1 == m && $2 == p && $3 == w { print $4 }' "$work/samples"; }
        e=$(pick loop | median)
        f=$(pick floor | median)
        ratio=$(awk -v e="$e" -v f="$f" 'BEGIN { printf "%.2f", e / f }')
        # Each loop run is paired with the floor run right after it: load that drifts between
        # repeats cancels out of the pair's ratio.
        paired=$(paste <(pick loop) <(pick floor) | awk '{ print $1 / $2 }' | median)
        label="$phase, $([ "$mode" = stream ] && echo streaming || echo not streaming)"
        printf '| %s | %.3f (%s) | %.3f (%s) | %s× | %.2f× |\n' "$label" "$e" "$(pick loop | spread)" "$f" "$(pick floor | spread)" "$ratio" "$paired"
    done
done
