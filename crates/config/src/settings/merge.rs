//! Deep merge of settings layers, remembering which layer set each leaf.
//!
//! Objects merge key by key, so maps such as `providers` or `aliases` gain entries from every
//! layer. Everything else (scalars, arrays, and whole `mcpServers` entries) is replaced by the
//! later layer. An MCP server is replaced whole because mixing, say, the `command` of a stdio
//! server from one file with the `url` of an HTTP server from another gives a server nobody
//! wrote; Claude Code treats a server defined in a closer scope the same way.

use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// Paths whose entries are replaced whole instead of merged field by field.
const REPLACED_WHOLE: &[&str] = &["mcpServers"];

/// Which layer (by index) set each leaf, keyed by dotted path.
pub(super) type Origins = BTreeMap<String, usize>;

/// Merges `overlay`, the keys set by layer `layer`, into `base`.
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
        match (base.get_mut(&key), value) {
            (Some(Value::Object(inner)), Value::Object(overlay)) if !entries_are_whole => {
                merge_layer(inner, overlay, &path, layer, origins);
            }
            (_, value) => {
                forget(origins, &path);
                record(&value, &path, layer, origins);
                base.insert(key, value);
            }
        }
    }
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

fn record(value: &Value, path: &str, layer: usize, origins: &mut Origins) {
    for (leaf, _) in leaves(value) {
        origins.insert(join(path, &leaf), layer);
    }
}

/// Drops the origins of `path` and everything under it: a later layer replaced them.
fn forget(origins: &mut Origins, path: &str) {
    let below = format!("{path}.");
    origins.retain(|key, _| key != path && !key.starts_with(&below));
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
    fn leaves_stop_at_arrays_and_empty_objects() {
        let value = json!({"a": {"b": [1, 2], "c": {}}, "d": null});
        let paths: Vec<_> = leaves(&value).into_iter().map(|(path, _)| path).collect();
        assert_eq!(paths, ["a.b", "a.c", "d"]);
    }
}
