# Sourced by benches/compare.sh, benches/cachegrind.sh and benches/triage.sh: their arguments,
# and the single-agent loop (benches/drivers/bench_loop.rs) and the floor against the instant local
# OpenAI-compatible server (`floor --serve`).

# `--help` prints $usage and exits; more than one argument is refused with it.
check_args() {
    case "${1:-}" in
    -h | --help)
        echo "$usage"
        exit 0
        ;;
    esac
    if [ $# -gt 1 ]; then
        echo "$usage" >&2
        exit 2
    fi
}

# Each NAME=VALUE must be a whole number above zero; the first that is not is named, with
# $usage (exit 2).
whole_numbers() {
    local setting value
    for setting in "$@"; do
        value=${setting#*=}
        if ! [[ $value =~ ^[1-9][0-9]*$ ]]; then
            echo "$0: ${setting%%=*} must be a whole number above zero, not '$value'" >&2
            echo "$usage" >&2
            exit 2
        fi
    done
}

# Builds the two programs and records the request bodies one run of the loop sends, per
# mode ($work/no-stream.jsonl, $work/stream.jsonl: the floor replays them). Sets $bin (the
# examples' folder) and $work (a temporary folder, removed on exit).
build_and_record() {
    cargo build --release --quiet --example bench_loop --example floor
    bin=target/release/examples
    work=$(mktemp -d)
    server_pid=
    trap cleanup EXIT
    local mode flag
    for mode in no-stream stream; do
        flag=()
        [ "$mode" = stream ] && flag=(--stream)
        start_server "$work/$mode.jsonl"
        "$bin/bench_loop" --base-url "$base_url" -n 4 -c 0 "${flag[@]}" >/dev/null
        stop_server
    done
}

cleanup() {
    if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}

# Starts the instant server (recording into $1 if given) and sets $base_url and $server_pid.
start_server() {
    local fifo="$work/url"
    rm -f "$fifo"
    mkfifo "$fifo"
    if [ -n "${1:-}" ]; then
        "$bin/floor" --serve --record "$1" >"$fifo" &
    else
        "$bin/floor" --serve >"$fifo" &
    fi
    server_pid=$!
    read -r base_url <"$fifo"
}

stop_server() {
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    server_pid=
}
