#!/usr/bin/env bash
# The workspace's shape in figures (issue 33's acceptance), printed as Markdown:
#
# - dependencies: the packages each workspace crate compiles for itself (`cargo tree -e normal`,
#   the crate itself left out; host target), and whether that includes rusqlite, cel or
#   jsonschema;
# - module circles: strongly connected components of more than one module in a crate's graph of
#   `crate::`/`super::`/`self::`/child-module paths (use statements and paths in code; test
#   modules left out; a re-exported name followed to the module that defines it; a module and its
#   own submodules, `foo.rs` + `foo/`, count as one unit);
# - non-test functions over 80 lines (from the `fn` line to its closing brace), and how many of
#   them carry a `// Kept whole: <reason>` comment just above;
# - tests per crate (`#[test]` and `#[tokio::test]` in src, tests, benches and examples);
# - dev-dependency cycles: a crate whose dev-dependency depends on it again (its unit tests see
#   two copies of its types);
# - end-to-end tests that run a model (tests/cli and crates/session/tests), on the wire or not.
#   Heuristic (a grep of each test's body and the same-file helpers and constants it names): on
#   the wire when it names the strict fake server (`FakeServer`, the CLI tests' `ServedModel`,
#   or their cassette server: `served_example`, `serve_cassettes`, `cassette_server`);
#   a shortcut when it names a scripted cassette (`scripted:`, `cassette`), the example project
#   (whose agents run on cassettes) or an in-process provider (`QueueProvider`,
#   `RoutedProvider`, `HangingProvider`). A test naming neither is taken to run no model.
#
# The analysis is benches/workspace.py (Python 3 standard library); dependencies come from
# `cargo tree` (offline, from Cargo.lock).
#
#   benches/workspace.sh [--list]      (--list: also every circle and long function)
set -euo pipefail
cd "$(dirname "$0")/.."

usage='usage: benches/workspace.sh [--list]   (--list: also every circle and long function)'
list=false
case "${1:-}" in
-h | --help)
    echo "$usage"
    exit 0
    ;;
--list) list=true ;;
'') ;;
*)
    echo "$usage" >&2
    exit 2
    ;;
esac

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 benches/workspace.py circles . >"$work/circles"
python3 benches/workspace.py functions . >"$work/functions"
python3 benches/workspace.py tests . >"$work/tests"
python3 benches/workspace.py wire . >"$work/wire"
cargo metadata --offline --format-version 1 | python3 benches/workspace.py devcycles . >"$work/devcycles"

# Packages a crate compiles for itself, the crate left out.
dependencies() {
    cargo tree --offline -q -p "$1" -e "$2" --prefix none | sed 's/ (\*)$//; s/ (proc-macro)$//' |
        sort -u | grep -v "^$1 v"
}

# Rows of $work/FILE whose first column is CRATE.
count() { awk -F'\t' -v c="$2" '$1 == c' "$work/$1" | wc -l; }

echo "| crate | dependencies | with build | rusqlite / cel / jsonschema | module circles | functions > 80 lines (kept whole) | tests |"
echo "|---|---:|---:|---|---:|---:|---:|"
total_circles=0
total_long=0
total_kept=0
while IFS=$'\t' read -r crate tests; do
    dependencies "$crate" normal >"$work/deps"
    normal=$(wc -l <"$work/deps")
    with_build=$(dependencies "$crate" normal,build | wc -l)
    heavy=$(grep -oE '^(rusqlite|cel|jsonschema) ' "$work/deps" | tr -d ' ' | paste -sd/ - || true)
    circles=$(count circles "$crate")
    long=$(count functions "$crate")
    kept=$(awk -F'\t' -v c="$crate" '$1 == c && $4 == "yes"' "$work/functions" | wc -l)
    total_circles=$((total_circles + circles))
    total_long=$((total_long + long))
    total_kept=$((total_kept + kept))
    echo "| $crate | $normal | $with_build | ${heavy:-—} | $circles | $long ($kept) | $tests |"
done <"$work/tests"
total_tests=$(awk -F'\t' '{ s += $2 } END { print s }' "$work/tests")
echo "| **total** | | | | $total_circles | $total_long ($total_kept) | $total_tests |"

echo
echo "Dev-dependency cycles: $(wc -l <"$work/devcycles")"
awk -F'\t' '{ print "- " $1 " → " $2 " (dev) → … → " $1 }' "$work/devcycles"

echo
echo "End-to-end tests that run a model (heuristic: see benches/workspace.sh):"
echo
echo "| tests | on the wire (strict fake) | cassettes / in-process providers | share on the wire |"
echo "|---|---:|---:|---:|"
for scope in tests/cli crates/session; do
    wire=$(awk -F'\t' -v s="$scope/" 'index($1, s) == 1 && $3 == "wire"' "$work/wire" | wc -l)
    short=$(awk -F'\t' -v s="$scope/" 'index($1, s) == 1 && $3 == "shortcut"' "$work/wire" | wc -l)
    all=$((wire + short))
    echo "| $scope | $wire | $short | $((all ? 100 * wire / all : 0)) % |"
done

if $list; then
    echo
    echo "Module circles:"
    echo
    awk -F'\t' '{ print "- " $1 ": " $2 }' "$work/circles"
    echo
    echo "Functions over 80 lines (lines, where, kept whole):"
    echo
    sort -t$'\t' -k2,2nr "$work/functions" | awk -F'\t' '{ print "- " $2 " `" $3 "`" ($4 == "yes" ? " (kept whole)" : "") }'
fi
