//! `agents.tracing` as written. A backend name agentctl does not know is left out with a
//! warning rather than failing the file: tracing never blocks a command (an unknown value
//! elsewhere sets policy, and stays an error).

use super::{OneOrMany, UnitInterval};
use agentctl_core::{SpanKind, TracingBackend};
use serde::{Deserialize, Deserializer, Serialize, de};
use std::fmt;

/// The backends, as a warning lists them.
pub(super) const BACKENDS_EXPECTED: &str =
    "console, jsonl, otel (opentelemetry), langsmith or langfuse";

/// `agents.tracing` as written: a boolean, or an object whose fields merge one by one.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub(super) enum RawTracing {
    Flag(bool),
    Object(RawTracingObject),
}

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct RawTracingObject {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    enabled: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    backend: Option<OneOrMany<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    events: Option<OneOrMany<SpanKind>>,
    #[serde(
        default,
        alias = "sample_rate",
        skip_serializing_if = "Option::is_none"
    )]
    sample_rate: Option<UnitInterval>,
    #[serde(
        default,
        alias = "capture_content",
        skip_serializing_if = "Option::is_none"
    )]
    capture_content: Option<bool>,
}

impl<'de> Deserialize<'de> for RawTracing {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;

        impl<'de> de::Visitor<'de> for Visitor {
            type Value = RawTracing;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("true, false or an object {enabled, backend, events, sampleRate, captureContent}")
            }

            fn visit_bool<E: de::Error>(self, value: bool) -> Result<RawTracing, E> {
                Ok(RawTracing::Flag(value))
            }

            fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<RawTracing, A::Error> {
                let mut object =
                    RawTracingObject::deserialize(de::value::MapAccessDeserializer::new(map))?;
                // Writing the object turns tracing on, as in the agent file; the layer below
                // (the defaults say `enabled: false`) must not keep it off.
                object.enabled.get_or_insert(true);
                Ok(RawTracing::Object(object))
            }
        }

        deserializer.deserialize_any(Visitor)
    }
}

impl RawTracing {
    /// Leaves out the backend names that are not backends, and returns them.
    pub(super) fn take_unknown_backends(&mut self) -> Vec<String> {
        let RawTracing::Object(object) = self else {
            return Vec::new();
        };
        let Some(backends) = object.backend.take() else {
            return Vec::new();
        };
        let (known, unknown): (Vec<String>, Vec<String>) = match backends {
            OneOrMany::One(name) => vec![name],
            OneOrMany::Many(names) => names,
        }
        .into_iter()
        .partition(|name| TracingBackend::from_name(name).is_some());
        if !unknown.is_empty() && known.is_empty() {
            // Nothing usable was named: the lower layers' backends stay.
            return unknown;
        }
        object.backend = Some(OneOrMany::Many(known));
        unknown
    }
}

#[cfg(test)]
mod tests {
    use super::super::parse_layer;
    use crate::ConfigWarning;
    use serde_json::json;
    use std::path::Path;

    fn parse(text: &str) -> super::super::ParsedLayer {
        parse_layer(Path::new("/p/settings.json"), text).unwrap()
    }

    #[test]
    fn an_unknown_backend_is_left_out_with_a_warning() {
        let layer =
            parse(r#"{"agents": {"tracing": {"backend": ["jsonl", "honeycomb", "langsmith"]}}}"#);
        assert_eq!(
            layer.value["agents"]["tracing"]["backend"],
            json!(["jsonl", "langsmith"])
        );
        let [ConfigWarning::UnknownValue { key, value, .. }] = layer.warnings.as_slice() else {
            panic!("{:?}", layer.warnings);
        };
        assert_eq!(
            (key.as_str(), value.as_str()),
            ("agents.tracing.backend", "honeycomb")
        );
        assert_eq!(
            layer.warnings[0].to_string(),
            "/p/settings.json: `agents.tracing.backend`: unknown value `honeycomb` ignored \
             (expected console, jsonl, otel (opentelemetry), langsmith or langfuse)"
        );
    }

    #[test]
    fn only_unknown_backends_leave_the_lower_layers_backends() {
        let layer = parse(r#"{"agents": {"tracing": {"backend": "datadog", "sampleRate": 0.5}}}"#);
        assert_eq!(layer.value["agents"]["tracing"].get("backend"), None);
        assert_eq!(layer.value["agents"]["tracing"]["sampleRate"], json!(0.5));
        assert_eq!(layer.warnings.len(), 1);
        let layer = parse(r#"{"agents": {"tracing": {"backend": "opentelemetry"}}}"#);
        assert_eq!(
            layer.value["agents"]["tracing"]["backend"],
            json!(["opentelemetry"])
        );
        assert!(layer.warnings.is_empty());
    }
}
