//! The JSON Schema of native front matter, and the unknown-field check built on it.
//!
//! The schema comes from `schemars` on [`AgentSpec`], so the check below knows exactly the
//! fields serde knows, at every depth, without a second hand-kept list.

use crate::yaml_index::{KeyEntry, Segment, YamlIndex};
use agentctl_core::AgentSpec;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::LazyLock;

/// Where editors can fetch the schema; written into the `yaml-language-server` comment.
pub const SCHEMA_URL: &str = "https://raw.githubusercontent.com/agentctl/agentctl/main/crates/definitions/tests/golden/agent.schema.json";

/// Field spellings serde accepts besides the schema's (`#[serde(alias)]`).
const ALIASES: &[&str] = &["long_term", "sample_rate"];

static SCHEMA: LazyLock<Value> = LazyLock::new(build_schema);

/// The JSON Schema (draft 2020-12) of an agent file's front matter.
///
/// ```
/// let schema = agentctl_definitions::agent_schema();
/// assert!(schema["properties"]["name"].is_object());
/// ```
pub fn agent_schema() -> Value {
    SCHEMA.clone()
}

fn build_schema() -> Value {
    let mut schema = schemars::schema_for!(AgentSpec).to_value();
    schema["$id"] = json!(SCHEMA_URL);
    // `tools` also accepts a plain list (the allow list); schemars only sees the mapping.
    if let Some(policy) = schema.pointer_mut("/$defs/ToolPolicy") {
        let object = policy.take();
        let description = object.get("description").cloned().unwrap_or(Value::Null);
        let mut object = object;
        if let Some(map) = object.as_object_mut() {
            map.remove("description");
        }
        *policy = json!({
            "description": description,
            "anyOf": [
                {"type": "array", "items": {"type": "string"}, "description": "Allowed tools."},
                object,
            ],
        });
    }
    schema
}

/// Keys of `index` that the native format does not know, with the names that would have
/// been known at that place (for "did you mean").
pub(crate) fn unknown_fields(index: &YamlIndex) -> Vec<(&KeyEntry, Vec<String>)> {
    let mut out = Vec::new();
    PLACES.with_borrow_mut(|places| {
        let mut shape = String::new();
        for entry in &index.keys {
            let (key, parent) = (entry.key(), &*entry.parent);
            if ALIASES.contains(&key) {
                continue;
            }
            shape.clear();
            for segment in parent {
                match segment {
                    Segment::Key(key) => shape.push_str(key),
                    Segment::Index(_) => shape.push_str("[]"),
                }
                shape.push('\0');
            }
            let place = match places.get(shape.as_str()) {
                Some(place) => place,
                None => places
                    .entry(shape.clone())
                    .or_insert_with(|| walk(&SCHEMA, parent).map(|nodes| Place::of(&nodes))),
            };
            if let Some(known) = place.as_ref().and_then(|place| place.check(key)) {
                out.push((entry, known));
            }
        }
    });
    out
}

thread_local! {
    /// What the schema allows at each place keys were found, by the place's shape (its path
    /// with sequence indexes left out): every agent file asks about the same few places.
    static PLACES: std::cell::RefCell<HashMap<String, Option<Place>>> =
        std::cell::RefCell::new(HashMap::new());
}

/// The keys the schema allows at one place.
struct Place {
    /// Any key is allowed (`additionalProperties`).
    open: bool,
    /// Whether some object schema there lists its properties.
    closed: bool,
    /// The properties listed, in schema order (for "did you mean").
    known: Vec<String>,
}

impl Place {
    /// Of the object schemas a value at this place may match.
    fn of(nodes: &[&Value]) -> Self {
        let root = &*SCHEMA;
        let mut expanded = Vec::new();
        for node in nodes {
            expand(root, node, &mut expanded, 0);
        }
        let mut place = Place {
            open: false,
            closed: false,
            known: Vec::new(),
        };
        for node in expanded {
            match node.get("additionalProperties") {
                Some(Value::Bool(false)) | None => {}
                Some(_) => place.open = true,
            }
            if let Some(properties) = node.get("properties").and_then(Value::as_object) {
                place.closed = true;
                place.known.extend(properties.keys().cloned());
            }
        }
        place
    }

    /// `None` when `key` is allowed here, else the names that are.
    fn check(&self, key: &str) -> Option<Vec<String>> {
        if self.open || !self.closed || self.known.iter().any(|known| known == key) {
            return None;
        }
        Some(self.known.clone())
    }
}

/// Follows `$ref` and `anyOf`/`oneOf`/`allOf` to the object schemas a value may match.
fn expand<'a>(root: &'a Value, node: &'a Value, out: &mut Vec<&'a Value>, depth: usize) {
    if depth > 16 {
        return;
    }
    if let Some(reference) = node.get("$ref").and_then(Value::as_str) {
        let pointer = reference.trim_start_matches('#');
        if let Some(target) = root.pointer(pointer) {
            expand(root, target, out, depth + 1);
        }
        return;
    }
    let mut branched = false;
    for combinator in ["anyOf", "oneOf", "allOf"] {
        if let Some(branches) = node.get(combinator).and_then(Value::as_array) {
            branched = true;
            for branch in branches {
                expand(root, branch, out, depth + 1);
            }
        }
    }
    if !branched && node.is_object() {
        out.push(node);
    }
}

fn walk<'a>(root: &'a Value, path: &[Segment]) -> Option<Vec<&'a Value>> {
    let mut nodes = vec![root];
    for segment in path {
        let mut expanded = Vec::new();
        for node in nodes {
            expand(root, node, &mut expanded, 0);
        }
        let next: Vec<&Value> = expanded
            .into_iter()
            .filter_map(|node| match segment {
                Segment::Key(key) => node
                    .get("properties")
                    .and_then(|p| p.get(&**key).or_else(|| p.get(alias_target(key)?)))
                    .or_else(|| node.get("additionalProperties").filter(|a| a.is_object())),
                Segment::Index(_) => node.get("items"),
            })
            .collect();
        if next.is_empty() {
            return None;
        }
        nodes = next;
    }
    Some(nodes)
}

/// The schema's spelling of an alias (`long_term` → `longTerm`), so the keys under an alias
/// are checked too.
fn alias_target(key: &str) -> Option<String> {
    ALIASES.contains(&key).then(|| {
        let mut out = String::with_capacity(key.len());
        let mut upper = false;
        for c in key.chars() {
            if c == '_' {
                upper = true;
            } else if upper {
                out.extend(c.to_uppercase());
                upper = false;
            } else {
                out.push(c);
            }
        }
        out
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unknown(yaml: &str) -> Vec<String> {
        let index = YamlIndex::build(yaml);
        unknown_fields(&index)
            .into_iter()
            .map(|(entry, _)| entry.path.to_string())
            .collect()
    }

    #[test]
    fn finds_unknown_fields_at_every_depth() {
        let yaml = "name: a\nmodle: x\ntools:\n  allow: [a]\n  allows: [b]\ntriggers:\n  - regexp: x\n    regex: y\n\
                    mcp:\n  inline:\n    srv:\n      command: x\n      whatever: 1\nguardrails:\n  - name: g\n    schema: {foo: 1}\n\
                    memory:\n  long_term: true\ntracing:\n  sample_rate: 0.5\n";
        assert_eq!(
            unknown(yaml),
            ["modle", "tools.allows", "triggers[0].regexp"]
        );
        // The seed's long-term memory object, under either spelling; `config` takes any key.
        let yaml = "name: a\nmemory:\n  long_term:\n    backend: vector_store\n    backnd: x\n    config:\n      index_name: k\n      dims: 3\n";
        assert_eq!(unknown(yaml), ["memory.long_term.backnd"]);
        let yaml =
            "name: a\nmemory:\n  longTerm:\n    config:\n      embedding_model: m\n    extra: 1\n";
        assert_eq!(unknown(yaml), ["memory.longTerm.extra"]);
    }

    #[test]
    fn schema_describes_tools_shorthand() {
        let schema = agent_schema();
        assert!(schema["$defs"]["ToolPolicy"]["anyOf"].is_array());
        assert_eq!(schema["$id"], SCHEMA_URL);
    }
}
