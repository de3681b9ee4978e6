# Sourced by benches/compare.sh and benches/cachegrind.sh: builds the embedding example and the
# floor, and runs the instant local OpenAI-compatible server (`floor --serve`).
#
# Sets $bin (the examples' folder) and $work (a temporary folder, removed on exit, with the
# request bodies one run of the example sends: $work/no-stream.jsonl and $work/stream.jsonl,
# which the floor replays); start_server sets $base_url.

cargo build --release --quiet --example embed --example floor
bin=target/release/examples
work=$(mktemp -d)
server_pid=
cleanup() {
    if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

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

# What the runtime sends: one run per question, recorded per mode.
for mode in no-stream stream; do
    flag=()
    [ "$mode" = stream ] && flag=(--stream)
    start_server "$work/$mode.jsonl"
    "$bin/embed" --base-url "$base_url" -n 4 -c 0 "${flag[@]}" >/dev/null
    stop_server
done
