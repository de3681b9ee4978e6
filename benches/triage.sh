#!/usr/bin/env bash
# The multi-agent path against its floor, in one run: the triage scenario (examples/triage.rs's
# triage → handoff_to_<specialist> → lookup → answer, three model calls) through the session
# engine (benches/drivers/bench_triage): unrecorded, every scenario a turn of one session whose
# agents keep no context between runs (a service answering independent requests); the same with
# providers from a factory of the embedder's; the same recorded in a SQLite store; and every
# scenario recorded in a session of its own in a SQLite store. Against a bare reqwest client
# replaying the same three request bodies (the floor, benches/drivers/floor.rs); and the
# single-agent loop (benches/drivers/bench_loop.rs) against its own floor. Beside them, the
# recording's own floor (benches/drivers/store_floor.rs): the rows a recorded scenario leaves,
# written by SQLite with no agentctl code in between — what recording cannot go below — and the
# same content written as one row per turn, as another schema would.
# Sequential, then 50 at once; repeated, and the medians of milliseconds per scenario printed
# with the median of paired ratios. Not streamed. Offline, no keys.
#
# First a check, against a server that holds every request to the real API's rules (the
# strict fake's): each mode must take exactly three model calls a scenario, none refused.
# Every timed run checks the three calls again with its server's counters.
#
#   benches/triage.sh [REPEATS]        (default 7; SEQUENTIAL, CONCURRENT, ROUNDS override the sizes;
#                                       TRIAGE_POSTGRES=URL adds the runs recorded in PostgreSQL)
set -euo pipefail
cd "$(dirname "$0")/.."

usage='usage: benches/triage.sh [REPEATS]   (default 7; SEQUENTIAL, CONCURRENT, ROUNDS override the sizes; TRIAGE_POSTGRES=URL adds PostgreSQL)'
# shellcheck source=benches/common.sh
source benches/common.sh
check_args "$@"
repeats=${1:-7}
sequential=${SEQUENTIAL:-2000}
concurrent=${CONCURRENT:-50}
rounds=${ROUNDS:-40}
whole_numbers "REPEATS=$repeats" "SEQUENTIAL=$sequential" "CONCURRENT=$concurrent" "ROUNDS=$rounds"

cargo build --release --quiet --example bench_triage --example bench_loop --example floor --example store_floor
bin=target/release/examples
work=$(mktemp -d)
server_pid=
triage_pid=
triage_cleanup() {
    if [ -n "$triage_pid" ]; then kill "$triage_pid" 2>/dev/null || true; fi
    cleanup
}
trap triage_cleanup EXIT

# Starts the triage server with the given flags and sets $triage_url and $triage_pid.
start_triage() {
    local fifo="$work/triage-url"
    rm -f "$fifo"
    mkfifo "$fifo"
    "$bin/bench_triage" serve "$@" >"$fifo" &
    triage_pid=$!
    read -r triage_url <"$fifo"
}

stop_triage() {
    kill "$triage_pid" 2>/dev/null || true
    wait "$triage_pid" 2>/dev/null || true
    triage_pid=
}

field() { sed -n "s/.*\"$1\":\([0-9.e-]*\).*/\1/p"; }
# The triage server's counters (`GET /stats`, which closes its connection), as JSON.
stats() {
    local address=${triage_url#http://}
    address=${address%%/*}
    exec 3<>"/dev/tcp/${address%:*}/${address#*:}"
    printf 'GET /stats HTTP/1.1\r\nhost: %s\r\n\r\n' "$address" >&3
    tail -n 1 <&3
    exec 3<&-
}
modes=(library per-runtime sqlite-session sqlite)
# With TRIAGE_POSTGRES=URL, the same recorded in that PostgreSQL database too (it keeps the
# sessions the runs write).
postgres=${TRIAGE_POSTGRES:-}
if [ -n "$postgres" ]; then modes+=(postgres-session postgres); fi
mode_flags() {
    case "$1" in
    library) ;;
    per-runtime) echo --provider-per-runtime ;;
    sqlite-session) echo --sqlite --one-session ;;
    sqlite) echo --sqlite ;;
    postgres-session) echo --postgres "$postgres" --one-session ;;
    postgres) echo --postgres "$postgres" ;;
    esac
}

# The request bodies the floors replay: one run of each library path, recorded.
start_server "$work/loop.jsonl"
"$bin/bench_loop" --base-url "$base_url" -n 4 -c 0 >/dev/null
stop_server
start_triage --strict --record "$work/triage.jsonl"
"$bin/bench_triage" run --base-url "$triage_url" -n 2 -c 0 >/dev/null
stop_triage

# The check: every mode against the strict server, sequential and at once.
start_triage --strict
for mode in "${modes[@]}"; do
    # shellcheck disable=SC2046
    result=$("$bin/bench_triage" run --base-url "$triage_url" -n 100 -c "$concurrent" --rounds 2 $(mode_flags "$mode") | grep '^RESULT')
    printf 'strict check, %s: %s scenarios, %s model calls, %s refused\n' "$mode" \
        "$(field scenarios <<<"$result")" "$(field model_calls <<<"$result")" "$(field rejected <<<"$result")"
done
stop_triage

start_server
start_triage
sizes=(-n "$sequential" -c "$concurrent" --rounds "$rounds")
for ((i = 1; i <= repeats; i++)); do
    before=$(stats | field connections)
    floor=$("$bin/floor" --base-url "$triage_url" --bodies "$work/triage.jsonl" "${sizes[@]}" | grep '^RESULT')
    printf 'floor %s -\n' "$(($(stats | field connections) - before))" >>"$work/connections"
    for phase in sequential concurrent; do
        printf 'floor %s %s\n' "$phase" "$(field "${phase}_ms_per_call" <<<"$floor")" >>"$work/samples"
    done
    for mode in "${modes[@]}"; do
        # shellcheck disable=SC2046
        result=$("$bin/bench_triage" run --base-url "$triage_url" "${sizes[@]}" $(mode_flags "$mode") | grep '^RESULT')
        for phase in sequential concurrent; do
            printf '%s %s %s\n' "$mode" "$phase" "$(field "${phase}_ms_per_call" <<<"$result")" >>"$work/samples"
        done
        printf '%s %s %s\n' "$mode" "$(field connections <<<"$result")" "$(field http_clients <<<"$result")" >>"$work/connections"
    done
    # What writing the recorded rows costs SQLite alone (store file in the same folder as
    # the recorded runs': $TMPDIR): a commit a scenario, then $concurrent scenarios a commit.
    # And the same content written as one row per turn, the way another schema would.
    for floor_mode in store-floor turn-rows; do
        flags=()
        if [ "$floor_mode" = turn-rows ]; then flags=(--turn-rows); fi
        result=$("$bin/store_floor" -n "$sequential" -c "$concurrent" "${flags[@]}" | grep '^RESULT')
        for phase in sequential concurrent; do
            printf '%s %s %s\n' "$floor_mode" "$phase" "$(field "${phase}_ms_per_scenario" <<<"$result")" >>"$work/samples"
        done
    done
    floor=$("$bin/floor" --base-url "$base_url" --bodies "$work/loop.jsonl" "${sizes[@]}" | grep '^RESULT')
    result=$("$bin/bench_loop" --base-url "$base_url" "${sizes[@]}" | grep '^RESULT')
    for phase in sequential concurrent; do
        printf 'loop-floor %s %s\n' "$phase" "$(field "${phase}_ms_per_call" <<<"$floor")" >>"$work/samples"
        printf 'loop %s %s\n' "$phase" "$(field "${phase}_ms_per_call" <<<"$result")" >>"$work/samples"
    done
    printf 'round %d of %d done\n' "$i" "$repeats" >&2
done
stop_triage
stop_server

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
spread() { sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.3f–%.3f", lo, hi }'; }
# Milliseconds per scenario of each sample of $1 (floor, library, …) in phase $2: per call ×
# calls per scenario.
pick() {
    local calls=3
    case "$1" in
    loop | loop-floor) calls=2 ;;
    store-floor | turn-rows) calls=1 ;; # already per scenario
    esac
    awk -v w="$1" -v p="$2" -v c="$calls" '$1 == w && $2 == p { print $3 * c }' "$work/samples"
}
# The median over the repeats of each run of $1 divided by the run of $2 in its repeat, in
# phase $3.
paired() {
    paste <(pick "$1" "$3") <(pick "$2" "$3") | awk '{ print $1 / $2 }' | median
}
cell() { printf '%.3f (%s)' "$(pick "$1" "$2" | median)" "$(pick "$1" "$2" | spread)"; }
row() {
    local label=$1 name=$2 base=$3
    printf '| %s | %s | %.2f× | %s | %.2f× |\n' "$label" \
        "$(cell "$name" sequential)" "$(paired "$name" "$base" sequential)" \
        "$(cell "$name" concurrent)" "$(paired "$name" "$base" concurrent)"
}

echo
echo "ms per scenario, median of $repeats (min–max), and the median of paired ratios (each run over the floor run of its repeat);"
echo "sequential: $sequential scenarios; concurrent: $concurrent at once × $rounds rounds; not streamed"
echo
echo "| work | sequential | vs floor | $concurrent concurrent | vs floor |"
echo "|---|---|---|---|---|"
row "raw reqwest floor, 3 calls" floor floor
row "triage scenario (3 calls), session engine" library floor
row "the same, providers from an embedder's factory" per-runtime floor
row "the same, recorded in one SQLite session" sqlite-session floor
row "the same, each scenario in a SQLite session of its own" sqlite floor
if [ -n "$postgres" ]; then
    row "the same, recorded in one PostgreSQL session" postgres-session floor
    row "the same, each scenario in a PostgreSQL session of its own" postgres floor
fi
row "its rows alone, written by SQLite (no model, no agentctl code)" store-floor floor
row "the same content as one row per turn (another schema)" turn-rows floor
row "raw reqwest floor, 2 calls" loop-floor loop-floor
row "single-agent loop (2 calls)" loop loop-floor
echo
echo "connections the server accepted per run of $((sequential + concurrent * rounds)) scenarios (min–max over the repeats), HTTP clients the process built:"
for mode in floor "${modes[@]}"; do
    printf '%s: %s connections, %s client(s)\n' "$mode" \
        "$(awk -v m="$mode" '$1 == m { print $2 }' "$work/connections" | spread | sed 's/\.000//g')" \
        "$(awk -v m="$mode" '$1 == m { print $3 }' "$work/connections" | sort -u | paste -sd,)"
done
