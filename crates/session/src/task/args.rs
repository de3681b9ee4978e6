//! List arguments of `task` that models also write as one string (`"hints": "look at A"`):
//! accepted either way and normalised to a list, with a JSON Schema that says so (`anyOf`
//! string / array of strings).

use schemars::{Schema, SchemaGenerator, json_schema};
use serde::{Deserializer, de};
use std::fmt;

/// A string (one item; blank means none), a list of strings or `null` (none).
pub(crate) fn string_or_list<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Vec<String>, D::Error> {
    struct Visitor;

    impl<'de> de::Visitor<'de> for Visitor {
        type Value = Vec<String>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a string or a list of strings")
        }

        fn visit_str<E: de::Error>(self, value: &str) -> Result<Vec<String>, E> {
            Ok(normalise(vec![value.to_owned()]))
        }

        fn visit_unit<E: de::Error>(self) -> Result<Vec<String>, E> {
            Ok(Vec::new())
        }

        fn visit_none<E: de::Error>(self) -> Result<Vec<String>, E> {
            Ok(Vec::new())
        }

        fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<String>, A::Error> {
            let mut items = Vec::new();
            while let Some(item) = seq.next_element::<String>()? {
                items.push(item);
            }
            Ok(normalise(items))
        }
    }

    deserializer.deserialize_any(Visitor)
}

/// Trimmed, blank items dropped.
fn normalise(items: Vec<String>) -> Vec<String> {
    items
        .into_iter()
        .map(|item| item.trim().to_owned())
        .filter(|item| !item.is_empty())
        .collect()
}

/// `anyOf` a string or an array of strings (inline: some model APIs refuse `$ref`).
pub(crate) fn string_or_list_schema(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "anyOf": [
            {"type": "string"},
            {"type": "array", "items": {"type": "string"}}
        ]
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Deserialize)]
    struct Args {
        #[serde(default, deserialize_with = "string_or_list")]
        hints: Vec<String>,
    }

    fn hints(value: serde_json::Value) -> Result<Vec<String>, serde_json::Error> {
        serde_json::from_value::<Args>(value).map(|args| args.hints)
    }

    #[test]
    fn a_string_or_a_list_or_nothing() {
        assert_eq!(
            hints(json!({"hints": " look at A "})).unwrap(),
            ["look at A"]
        );
        assert_eq!(
            hints(json!({"hints": ["a", " ", "b"]})).unwrap(),
            ["a", "b"]
        );
        assert!(hints(json!({"hints": "  "})).unwrap().is_empty());
        assert!(hints(json!({"hints": null})).unwrap().is_empty());
        assert!(hints(json!({})).unwrap().is_empty());
        let error = hints(json!({"hints": 5})).unwrap_err().to_string();
        assert!(
            error.contains("expected a string or a list of strings"),
            "{error}"
        );
        let error = hints(json!({"hints": ["a", 5]})).unwrap_err().to_string();
        assert!(error.contains("expected a string"), "{error}");
    }
}
