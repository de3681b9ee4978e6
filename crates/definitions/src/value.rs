//! Conversion of YAML values into JSON values, for fields kept in `extra`.

use crate::yaml_tree::Body;
use serde_json::{Map, Number, Value};
use serde_norway::Value as Yaml;

/// Converts a YAML value to JSON: non-string keys are written as YAML would print them, tags
/// are dropped, non-finite floats become strings.
pub(crate) fn to_json(value: &Yaml) -> Value {
    match value {
        Yaml::Null => Value::Null,
        Yaml::Bool(b) => Value::Bool(*b),
        Yaml::Number(n) => {
            if let Some(i) = n.as_i64() {
                Value::from(i)
            } else if let Some(u) = n.as_u64() {
                Value::from(u)
            } else {
                let f = n.as_f64().unwrap_or(f64::NAN);
                Number::from_f64(f).map_or_else(|| Value::String(n.to_string()), Value::Number)
            }
        }
        Yaml::String(s) => Value::String(s.clone()),
        Yaml::Sequence(items) => Value::Array(items.iter().map(to_json).collect()),
        Yaml::Mapping(map) => {
            let mut out = Map::new();
            for (key, value) in map {
                out.insert(key_string(key), to_json(value));
            }
            Value::Object(out)
        }
        Yaml::Tagged(tagged) => to_json(&tagged.value),
    }
}

/// A mapping key as a string.
pub(crate) fn key_string(key: &Yaml) -> String {
    match key {
        Yaml::String(s) => s.clone(),
        Yaml::Null => "null".to_owned(),
        Yaml::Bool(b) => b.to_string(),
        Yaml::Number(n) => n.to_string(),
        other => serde_norway::to_string(other)
            .map(|s| s.trim_end().to_owned())
            .unwrap_or_default(),
    }
}

/// Top-level entries of a YAML mapping, as JSON, keyed by their key string; empty when the
/// document is not a mapping serde_norway's `Value` reads (duplicate keys, for one).
pub(crate) fn top_level(body: &Body<'_>) -> Vec<(String, Value)> {
    let yaml = match body {
        Body::Tree(tree) => tree.deserialize::<Yaml>().ok(),
        Body::Text(text) => serde_norway::from_str::<Yaml>(text).ok(),
    };
    match yaml {
        Some(Yaml::Mapping(map)) => map
            .iter()
            .map(|(k, v)| (key_string(k), to_json(v)))
            .collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(yaml: &str, tree: bool) -> Value {
        let front = crate::yaml_tree::parse(yaml, 1_000, tree).unwrap();
        Value::Object(top_level(&front.body).into_iter().collect())
    }

    #[test]
    fn converts_nested_values() {
        let yaml = "a: 1\nb: [x, 2.5, null, '7', 0x1F, .inf]\n3: {c: true}\n~: -4\n";
        let json = serde_json::json!({
            "a": 1, "b": ["x", 2.5, null, "7", 31, ".inf"], "3": {"c": true}, "null": -4
        });
        assert_eq!(entries(yaml, true), json);
        assert_eq!(entries(yaml, false), json);
        let tagged = entries("a: 1\nd: !tag v\n", true);
        assert_eq!(tagged, serde_json::json!({"a": 1, "d": "v"}));
    }

    #[test]
    fn duplicate_keys_read_as_nothing_both_ways() {
        for tree in [true, false] {
            assert_eq!(
                entries("a: 1\nb: {c: 1, c: 2}\n", tree),
                serde_json::json!({})
            );
        }
    }
}
