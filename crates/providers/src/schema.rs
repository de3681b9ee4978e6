//! Tool parameter schemas at the provider edge.
//!
//! Every API wants a tool's parameters as an object schema (`"type": "object"`): OpenAI refuses
//! anything else with "schema must be a JSON Schema of 'type: \"object\"'", Anthropic wants
//! `input_schema.type` to be `object`. [`object_schema`] fills that in for tools that declare no
//! arguments (`{}` or `null`).
//!
//! Gemini takes a subset of OpenAPI 3.0 rather than JSON Schema (`generativelanguage.v1beta.Schema`:
//! type, format, title, description, nullable, enum, items, min/maxItems, properties, required,
//! min/maxProperties, min/maxLength, pattern, example, anyOf, propertyOrdering, default,
//! minimum, maximum) and refuses any other key ("Unknown name …: Cannot find field"), a `type`
//! that is a list, and an `OBJECT` without properties ("should be non-empty for OBJECT type").
//! [`gemini_schema`] rewrites what has an equivalent (`["string", "null"]` → `nullable`, `oneOf`
//! → `anyOf`, `const` → `enum`, `$ref` → the definition inlined) and drops the rest. A schema
//! the subset cannot say (a free-form object inside, such as a map of strings) goes as JSON
//! Schema in `parametersJsonSchema` instead, which v1beta documents as the alternative.

use serde_json::{Map, Value, json};
use std::borrow::Cow;

/// Keys Gemini's `Schema` message has (the allow-list the conversion keeps).
const GEMINI_KEYS: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "maxItems",
    "minItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "example",
    "anyOf",
    "propertyOrdering",
    "default",
    "items",
    "minimum",
    "maximum",
];

/// How deep `$ref`s are followed: recursive types are cut off there.
const MAX_REF_DEPTH: usize = 8;

/// `parameters` as an object schema: `null` and `{}` (no arguments) become an empty object
/// schema, and a schema with `properties` but no `type` gets `"type": "object"`. Anything else
/// is sent as it is, for the API to refuse with its own message.
/// Borrowed when it is sent unchanged (the usual case: no copy of the schema per call).
pub(crate) fn object_schema(parameters: &Value) -> Cow<'_, Value> {
    match parameters {
        Value::Null => Cow::Owned(json!({"type": "object", "properties": {}})),
        Value::Object(map) if map.get("type").is_none() => {
            let mut map = map.clone();
            map.insert("type".into(), json!("object"));
            if !map.contains_key("properties") {
                map.insert("properties".into(), json!({}));
            }
            Cow::Owned(Value::Object(map))
        }
        other => Cow::Borrowed(other),
    }
}

/// How a tool's parameters go to Gemini.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum GeminiParameters {
    /// No arguments: `parameters` is left out (Gemini refuses an object without properties).
    None,
    /// `parameters`, in Gemini's OpenAPI subset.
    Subset(Value),
    /// `parametersJsonSchema`: JSON Schema, for what the subset cannot say.
    JsonSchema(Value),
}

/// `parameters` for Gemini: see [`GeminiParameters`].
pub(crate) fn gemini_schema(parameters: &Value) -> GeminiParameters {
    let root = object_schema(parameters).into_owned();
    let converted = Converter { root: &root }.convert(&root, 0);
    if is_object(&converted) && !has_properties(&converted) {
        return GeminiParameters::None;
    }
    if has_free_form_object(&converted) {
        let mut schema = root;
        if let Value::Object(map) = &mut schema {
            map.remove("$schema");
        }
        return GeminiParameters::JsonSchema(schema);
    }
    GeminiParameters::Subset(converted)
}

fn is_object(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("object")
}

fn has_properties(schema: &Value) -> bool {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|properties| !Map::is_empty(properties))
}

/// True when an object schema below the root has no properties.
fn has_free_form_object(schema: &Value) -> bool {
    let children = schema
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|properties| properties.values())
        .chain(schema.get("items"))
        .chain(
            schema
                .get("anyOf")
                .and_then(Value::as_array)
                .into_iter()
                .flatten(),
        );
    children
        .into_iter()
        .any(|child| (is_object(child) && !has_properties(child)) || has_free_form_object(child))
}

struct Converter<'a> {
    root: &'a Value,
}

impl Converter<'_> {
    // Kept whole: one pass over a schema's keywords, each kept, renamed or dropped in turn.
    fn convert(&self, schema: &Value, depth: usize) -> Value {
        let Value::Object(map) = schema else {
            // `true`/`false` schemas and other oddities: "anything".
            return json!({});
        };
        let mut out = Map::new();
        // A `$ref`, or schemars' `allOf: [{$ref}]` beside a description, is inlined under the
        // keys written next to it.
        let referenced = map
            .get("$ref")
            .and_then(Value::as_str)
            .map(|reference| vec![self.resolve(reference)])
            .or_else(|| {
                map.get("allOf")
                    .and_then(Value::as_array)
                    .map(|all| all.iter().collect())
            });
        for part in referenced.into_iter().flatten() {
            if depth < MAX_REF_DEPTH
                && let Value::Object(inlined) = self.convert(part, depth + 1)
            {
                out.extend(inlined);
            }
        }
        for (key, value) in map {
            match key.as_str() {
                "type" => set_type(&mut out, value),
                "oneOf" | "anyOf" => {
                    let options: Vec<Value> = value
                        .as_array()
                        .into_iter()
                        .flatten()
                        .map(|option| self.convert(option, depth))
                        .collect();
                    out.insert("anyOf".into(), Value::Array(options));
                }
                "const" => {
                    if let Some(text) = value.as_str() {
                        out.insert("enum".into(), json!([text]));
                    }
                }
                "enum" => {
                    // Gemini's enum is a list of strings.
                    if let Some(values) = value.as_array()
                        && values.iter().all(Value::is_string)
                    {
                        out.insert("enum".into(), value.clone());
                    }
                }
                "properties" => {
                    let properties: Map<String, Value> = value
                        .as_object()
                        .into_iter()
                        .flatten()
                        .map(|(name, property)| (name.clone(), self.convert(property, depth)))
                        .collect();
                    out.insert("properties".into(), Value::Object(properties));
                }
                "items" if value.is_object() => {
                    out.insert("items".into(), self.convert(value, depth));
                }
                "items" => {}
                key if GEMINI_KEYS.contains(&key) => {
                    out.insert(key.to_owned(), value.clone());
                }
                _ => {}
            }
        }
        // `required` may only name properties that are there.
        if let Some(Value::Array(required)) = out.get("required") {
            let present = out.get("properties").and_then(Value::as_object);
            let kept: Vec<Value> = required
                .iter()
                .filter(|name| {
                    name.as_str()
                        .is_some_and(|name| present.is_some_and(|map| map.contains_key(name)))
                })
                .cloned()
                .collect();
            out.insert("required".into(), Value::Array(kept));
        }
        Value::Object(out)
    }

    /// The schema a local `$ref` (`#/$defs/X`, `#/definitions/X`) points at; `{}` otherwise.
    fn resolve(&self, reference: &str) -> &Value {
        static EMPTY: Value = Value::Null;
        reference
            .strip_prefix('#')
            .and_then(|pointer| self.root.pointer(pointer))
            .unwrap_or(&EMPTY)
    }
}

/// `type` as one string: `["string", "null"]` is a nullable string, several types an `anyOf`.
fn set_type(out: &mut Map<String, Value>, value: &Value) {
    let Some(types) = value.as_array() else {
        out.insert("type".into(), value.clone());
        return;
    };
    let mut kinds: Vec<&Value> = types.iter().filter(|kind| *kind != "null").collect();
    if kinds.len() < types.len() {
        out.insert("nullable".into(), json!(true));
    }
    match kinds.len() {
        0 => {}
        1 => {
            out.insert("type".into(), kinds.remove(0).clone());
        }
        _ => {
            let options = kinds
                .into_iter()
                .map(|kind| json!({"type": kind}))
                .collect();
            out.insert("anyOf".into(), Value::Array(options));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn subset(schema: &Value) -> Value {
        match gemini_schema(schema) {
            GeminiParameters::Subset(converted) => converted,
            other => panic!("expected the subset, got {other:?}"),
        }
    }

    #[test]
    fn free_form_objects_go_as_json_schema() {
        // schemars' `HashMap<String, String>`, and an object the tool takes as it comes.
        for free in [
            json!({"type": "object", "additionalProperties": {"type": "string"}}),
            json!({"type": "array", "items": {"type": "object"}}),
        ] {
            let schema = json!({
                "$schema": "x",
                "type": "object",
                "properties": {"name": {"type": "string"}, "free": free},
            });
            let mut expected = schema.clone();
            expected.as_object_mut().unwrap().remove("$schema");
            assert_eq!(
                gemini_schema(&schema),
                GeminiParameters::JsonSchema(expected)
            );
        }
    }

    #[test]
    fn no_arguments_is_an_empty_object_schema() {
        assert_eq!(
            object_schema(&Value::Null).into_owned(),
            json!({"type": "object", "properties": {}})
        );
        assert_eq!(
            object_schema(&json!({})).into_owned(),
            json!({"type": "object", "properties": {}})
        );
        assert_eq!(
            object_schema(&json!({"properties": {"a": {"type": "string"}}})).into_owned(),
            json!({"properties": {"a": {"type": "string"}}, "type": "object"})
        );
        assert_eq!(
            object_schema(&json!({"type": "string"})).into_owned(),
            json!({"type": "string"})
        );
        assert_eq!(gemini_schema(&json!({})), GeminiParameters::None);
        assert_eq!(
            gemini_schema(&json!({"type": "object", "properties": {}})),
            GeminiParameters::None
        );
    }

    #[test]
    fn unsupported_keywords_are_dropped_but_property_names_kept() {
        let schema = json!({
            "$schema": "x", "type": "object", "additionalProperties": false,
            "properties": {"additionalProperties": {"type": "string", "examples": ["a"]},
                           "nested": {"type": "object", "additionalProperties": true,
                                      "properties": {"x": {"type": "integer", "exclusiveMinimum": 0}}}},
            "required": ["nested", "gone"],
        });
        assert_eq!(
            subset(&schema),
            json!({"type": "object", "properties": {
                "additionalProperties": {"type": "string"},
                "nested": {"type": "object", "properties": {"x": {"type": "integer"}}}},
                "required": ["nested"]})
        );
    }

    #[test]
    fn schemars_shapes_become_gemini_shapes() {
        // What schemars writes for `Option<u64>`, an enum and a documented nested struct.
        let schema = json!({
            "type": "object",
            "properties": {
                "timeout": {"type": ["integer", "null"], "format": "uint64", "minimum": 0},
                "mode": {"oneOf": [{"const": "fast", "type": "string"}, {"const": "slow", "type": "string"}]},
                "either": {"type": ["string", "integer"]},
                "inner": {"allOf": [{"$ref": "#/$defs/Inner"}], "description": "The inner part."},
                "list": {"type": "array", "items": {"$ref": "#/$defs/Inner"}},
            },
            "$defs": {"Inner": {"type": "object", "properties": {"a": {"type": "boolean"}},
                                "required": ["a"], "additionalProperties": false}},
        });
        let inner =
            json!({"type": "object", "properties": {"a": {"type": "boolean"}}, "required": ["a"]});
        let mut documented = inner.clone();
        documented["description"] = json!("The inner part.");
        assert_eq!(
            subset(&schema),
            json!({"type": "object", "properties": {
                "timeout": {"nullable": true, "type": "integer", "format": "uint64", "minimum": 0},
                "mode": {"anyOf": [{"enum": ["fast"], "type": "string"}, {"enum": ["slow"], "type": "string"}]},
                "either": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
                "inner": documented,
                "list": {"type": "array", "items": inner},
            }})
        );
    }

    #[test]
    fn recursive_references_stop() {
        let schema = json!({
            "type": "object",
            "properties": {"node": {"$ref": "#/$defs/Node"}},
            "$defs": {"Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}}},
        });
        let converted = subset(&schema);
        let mut depth = 0;
        let mut node = &converted["properties"]["node"];
        while let Some(next) = node.pointer("/properties/next") {
            node = next;
            depth += 1;
        }
        assert!(depth <= MAX_REF_DEPTH + 1, "{depth}");
        assert_eq!(
            gemini_schema(&json!({"$ref": "#/nowhere"})),
            GeminiParameters::None
        );
    }
}
