#!/usr/bin/env bash
# What a graph run costs (benches/graph.rs), in three layers, each for a 3-node chain and a
# fan-out to 5 branches + join:
#   engine_*          the graph executor alone: nodes are functions that answer at once, no store
#   checkpointed_*    the same, with a checkpoint after every node in a SQLite file
#   agents_memory_*   every node an agent turn of an instant in-process provider, in-memory store
#   agents_sqlite_*   the same, in a SQLite file (as `agentctl graph run` records them)
# Prints the median per run and the spread (fastest … slowest sample). Offline, no keys.
#
#   benches/graph.sh [--sample-count N]
set -euo pipefail
cd "$(dirname "$0")/.."
samples=200
if [[ "${1:-}" == "--sample-count" ]]; then samples="$2"; fi
printf '%-28s %14s   %s\n' "run" "median" "spread (fastest … slowest)"
cargo bench --bench graph -- --sample-count "$samples" 2>/dev/null |
    awk '/(engine|checkpointed|agents_memory|agents_sqlite)_(chain3|fanout5_join)/ {
        printf "%-28s %10s %-3s   %s %s … %s %s\n", $2, $9, $10, $3, $4, $6, $7
    }'
