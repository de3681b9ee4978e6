//! Deep merge of settings layers, remembering which layer set each leaf.
//!
//! Objects merge key by key, so maps such as `providers` or `aliases` gain entries from every
//! layer. Everything else (scalars, arrays, and whole `mcpServers` entries) is replaced by the
//! later layer. An MCP server is replaced whole because mixing, say, the `command` of a stdio
//! server from one file with the `url` of an HTTP server from another gives a server nobody
//! wrote; Claude Code treats a server defined in a closer scope the same way. `hooks` lists
//! are the exception the other way: they add up across layers ([`concatenate_hooks`]).

use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::ops::Bound;

/// Paths whose entries are replaced whole instead of merged field by field.
const REPLACED_WHOLE: &[&str] = &["mcpServers"];

/// Lists every layer adds to instead of replacing: a later layer cannot drop a `deny` rule of
/// an earlier one (Claude Code joins its rule lists the same way).
pub(super) const JOINED: &[&str] = &["permissions.allow", "permissions.ask", "permissions.deny"];

/// Which layer (by index) set each leaf, keyed by dotted path.
pub(super) type Origins = BTreeMap<String, usize>;

/// Merges `overlay`, the keys set by layer `layer`, into `base`.
///
/// Linear in the size of `overlay`: each leaf costs one origin update, plus the origins of
/// whatever it replaces.
pub(super) fn merge_layer(
    base: &mut Map<String, Value>,
    overlay: Map<String, Value>,
    prefix: &str,
    layer: usize,
    origins: &mut Origins,
) {
    let entries_are_whole = REPLACED_WHOLE.contains(&prefix);
    for (key, value) in overlay {
        let path = join(prefix, &key);
        let (old, value) = match (base.get_mut(&key), value) {
            (Some(Value::Object(inner)), Value::Object(overlay)) if !entries_are_whole => {
                if inner.is_empty() && !overlay.is_empty() {
                    // The empty object was a leaf; its keys are now.
                    origins.remove(&path);
                }
                merge_layer(inner, overlay, &path, layer, origins);
                continue;
            }
            (Some(Value::Array(items)), Value::Array(added)) if JOINED.contains(&path.as_str()) => {
                for item in added {
                    if !items.contains(&item) {
                        items.push(item);
                    }
                }
                origins.insert(path, layer);
                continue;
            }
            (old, value) => (old.map(|old| has_leaves_below(old)), value),
        };
        match old {
            Some(true) => forget_below(origins, &path),
            // A leaf (scalar, array, empty object) has its one origin at its own path.
            Some(false) if has_leaves_below(&value) => {
                origins.remove(&path);
            }
            _ => {}
        }
        record(&value, path, layer, origins);
        base.insert(key, value);
    }
}

/// The layer `value` with each of its `hooks` lists appended to the lists of the layers
/// below (`hooks` holds them so far), each group's layer (`index`) recorded in `origins`:
/// hooks add up, layer by layer, where other lists replace.
pub(super) fn concatenate_hooks(
    mut value: Map<String, Value>,
    hooks: &mut Map<String, Value>,
    index: usize,
    origins: &mut BTreeMap<String, Vec<usize>>,
) -> Map<String, Value> {
    let Some(Value::Object(layer)) = value.remove("hooks") else {
        return value;
    };
    let mut added = Map::new();
    for (event, list) in layer {
        let held = hooks
            .entry(event.clone())
            .or_insert_with(|| Value::Array(Vec::new()));
        if let (Value::Array(held), Value::Array(list)) = (&mut *held, list) {
            let layers = origins.entry(event.clone()).or_default();
            layers.extend(std::iter::repeat_n(index, list.len()));
            held.extend(list);
        }
        added.insert(event, held.clone());
    }
    value.insert("hooks".into(), Value::Object(added));
    value
}

/// True for a non-empty object: its leaves are recorded below its path, not at it.
fn has_leaves_below(value: &Value) -> bool {
    matches!(value, Value::Object(map) if !map.is_empty())
}

/// The leaves of `value` as `(dotted path, value)`, in the value's own key order. Arrays and empty objects are
/// leaves: they are set and replaced as one value.
pub(super) fn leaves(value: &Value) -> Vec<(String, &Value)> {
    let mut out = Vec::new();
    collect(value, String::new(), &mut out);
    out
}

fn collect<'a>(value: &'a Value, path: String, out: &mut Vec<(String, &'a Value)>) {
    match value {
        Value::Object(map) if !map.is_empty() => {
            for (key, inner) in map {
                collect(inner, join(&path, key), out);
            }
        }
        _ => out.push((path, value)),
    }
}

fn record(value: &Value, path: String, layer: usize, origins: &mut Origins) {
    match value {
        Value::Object(map) if !map.is_empty() => {
            for (key, inner) in map {
                record(inner, join(&path, key), layer, origins);
            }
        }
        _ => {
            origins.insert(path, layer);
        }
    }
}

/// Drops the origins of everything under `path` (`path.…`): a later layer replaced them.
///
/// Those keys are one contiguous range of the sorted map, so this costs the number of keys
/// dropped, not the size of the map: a walk over every origin for each key made loading a file
/// of 40,000 aliases quadratic (minutes in a debug build).
fn forget_below(origins: &mut Origins, path: &str) {
    let below = format!("{path}.");
    let doomed: Vec<String> = origins
        .range::<str, _>((Bound::Included(below.as_str()), Bound::Unbounded))
        .take_while(|(key, _)| key.starts_with(&below))
        .map(|(key, _)| key.clone())
        .collect();
    for key in doomed {
        origins.remove(&key);
    }
}

fn join(prefix: &str, key: &str) -> String {
    match (prefix.is_empty(), key.is_empty()) {
        (true, _) => key.to_owned(),
        (false, true) => prefix.to_owned(),
        (false, false) => format!("{prefix}.{key}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            other => panic!("not an object: {other}"),
        }
    }

    #[test]
    fn objects_merge_and_scalars_replace() {
        let mut base = Map::new();
        let mut origins = Origins::new();
        merge_layer(
            &mut base,
            object(json!({"agents": {"tracing": false, "autoRoute": false}, "aliases": {}})),
            "",
            0,
            &mut origins,
        );
        merge_layer(
            &mut base,
            object(json!({"agents": {"tracing": true}, "aliases": {"fast": "openai:gpt-4o-mini"}})),
            "",
            1,
            &mut origins,
        );
        assert_eq!(
            Value::Object(base),
            json!({"agents": {"tracing": true, "autoRoute": false},
                   "aliases": {"fast": "openai:gpt-4o-mini"}})
        );
        assert_eq!(origins["agents.tracing"], 1);
        assert_eq!(origins["agents.autoRoute"], 0);
        assert_eq!(origins["aliases.fast"], 1);
    }

    #[test]
    fn mcp_server_entries_are_replaced_whole() {
        let mut base = Map::new();
        let mut origins = Origins::new();
        let global = json!({"mcpServers": {"gh": {"command": "npx", "args": ["gh"]}, "db": {"command": "db"}}});
        merge_layer(&mut base, object(global), "", 1, &mut origins);
        let project = json!({"mcpServers": {"gh": {"url": "https://example.test/mcp"}}});
        merge_layer(&mut base, object(project), "", 2, &mut origins);
        assert_eq!(
            Value::Object(base),
            json!({"mcpServers": {"gh": {"url": "https://example.test/mcp"}, "db": {"command": "db"}}})
        );
        assert!(!origins.contains_key("mcpServers.gh.command"));
        assert_eq!(origins["mcpServers.gh.url"], 2);
        assert_eq!(origins["mcpServers.db.command"], 1);
    }

    #[test]
    fn origins_follow_objects_replaced_by_leaves_and_back() {
        let mut base = Map::new();
        let mut origins = Origins::new();
        let layers = [
            json!({"a": {"x": 1, "y": {"z": 2}}, "a-b": 1, "b": 1, "c": {}}),
            json!({"a": {"y": 3}, "b": {"p": 1, "q": 2}, "c": {"r": 1}}),
            json!({"a": 4, "b": {"p": 5}}),
        ];
        for (layer, value) in layers.into_iter().enumerate() {
            merge_layer(&mut base, object(value), "", layer, &mut origins);
        }
        assert_eq!(
            Value::Object(base),
            json!({"a": 4, "a-b": 1, "b": {"p": 5, "q": 2}, "c": {"r": 1}})
        );
        let expected: Origins = [("a", 2), ("a-b", 0), ("b.p", 2), ("b.q", 1), ("c.r", 1)]
            .into_iter()
            .map(|(key, layer)| (key.to_owned(), layer))
            .collect();
        assert_eq!(origins, expected);
    }

    #[test]
    fn leaves_stop_at_arrays_and_empty_objects() {
        let value = json!({"a": {"b": [1, 2], "c": {}}, "d": null});
        let paths: Vec<_> = leaves(&value).into_iter().map(|(path, _)| path).collect();
        assert_eq!(paths, ["a.b", "a.c", "d"]);
    }
}
