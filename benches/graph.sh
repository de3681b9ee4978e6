#!/usr/bin/env bash
# The graph engine's overhead per run (benches/graph.rs): a 3-node chain and a fan-out to 5
# branches + join, instant agents, checkpoints in memory and in a SQLite file; prints the
# median microseconds per run of each. Offline, no keys.
#
#   benches/graph.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo bench --bench graph -- --sample-count 200 2>/dev/null |
    awk '/(chain3|fanout5_join)_(memory|sqlite)/ { print $2, "median", $9, $10 }'
