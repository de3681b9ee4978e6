//! The CLI's JSON output contract: one type per shape `--format json` and `stream-json` print.
//!
//! Every JSON the command line writes goes through a type of this module, converted from the
//! library types (which keep their own serde shapes for storage and embedders). The rules, in
//! one place:
//! - keys are camelCase (`sessionId`, `tokensUsed`, `durationMs`); enum values (event `type`s,
//!   `decision`, `status`, …) stay snake_case words;
//! - times are RFC 3339 UTC strings with milliseconds (`2026-11-23T10:04:05.123Z`), never epoch
//!   numbers ([`Timestamp`]);
//! - anything about a session carries its `sessionId`: the run result, every `stream-json` line,
//!   the session listings;
//! - run ids are the session store's run ids (integers), the `#N` that `sessions show` prints.
//!
//! Each shape derives a JSON Schema (schemars); `agentctl schema NAME` prints it ([`SHAPES`]),
//! and the CLI tests validate real command output against it, so the two cannot drift apart.

mod graph;
mod records;
mod run;
mod sessions;
mod trust;

pub(crate) use graph::{GraphEventLine, GraphResult};
pub(crate) use records::{
    ContextModeReport, MemoryEntryJson, MemoryFolderJson, TraceSpan, TraceTree,
};
pub(crate) use run::{RunEventLine, RunResultJson};
pub(crate) use sessions::{GuardrailStep, ModelCallStep, SessionJson, SessionShow, StateJson};
pub(crate) use trust::{LooseningJson, ServerFileJson, ServerFilesJson, TrustReport};

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Serialize, Serializer};
use std::borrow::Cow;

/// A time: milliseconds since the Unix epoch, printed as RFC 3339 UTC with milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Timestamp(pub(crate) i64);

impl Timestamp {
    /// `2026-11-23T10:04:05.123Z`; a time chrono cannot represent (beyond ±262,000 years)
    /// falls back to the epoch rather than failing the output.
    pub(crate) fn rfc3339(self) -> String {
        chrono::DateTime::from_timestamp_millis(self.0)
            .unwrap_or_default()
            .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.rfc3339())
    }
}

impl JsonSchema for Timestamp {
    fn schema_name() -> Cow<'static, str> {
        "Timestamp".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "RFC 3339 UTC time with milliseconds, e.g. `2026-11-23T10:04:05.123Z`.",
            "type": "string",
            "format": "date-time",
            "pattern": "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?Z$"
        })
    }
}

/// A string enum's schema: one of `values`.
pub(crate) fn one_of(values: &[&str]) -> Schema {
    json_schema!({ "type": "string", "enum": values })
}

/// One printed JSON shape: its `agentctl schema` name, what prints it, and its schema.
pub(crate) struct Shape {
    /// The `agentctl schema` subcommand.
    pub(crate) name: &'static str,
    /// The commands whose output it describes.
    pub(crate) printed_by: &'static str,
    schema: fn() -> Schema,
}

impl Shape {
    /// The shape's JSON Schema (draft 2020-12), titled with its name.
    pub(crate) fn schema(&self) -> serde_json::Value {
        let mut schema = (self.schema)().to_value();
        if let Some(object) = schema.as_object_mut() {
            object.insert(
                "description".into(),
                format!("{} ({})", self.printed_by, self.name).into(),
            );
        }
        schema
    }
}

/// The schema of what `T` serialises to: a field skipped when empty is optional.
fn schema_of<T: JsonSchema>() -> Schema {
    schemars::generate::SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<T>()
}

/// Every JSON shape the CLI prints, by `agentctl schema` name.
pub(crate) const SHAPES: &[Shape] = &[
    Shape {
        name: "run-result",
        printed_by: "`run`, `agents run`, `chat -p` with `--format json`: the run's result",
        schema: schema_of::<RunResultJson<'static>>,
    },
    Shape {
        name: "run-event",
        printed_by: "`run`, `agents run`, `chat -p` with `--format stream-json`: one line per event",
        schema: schema_of::<RunEventLine<'static>>,
    },
    Shape {
        name: "graph-result",
        printed_by: "`graph run`, `graph resume` with `--format json`: how the graph ended",
        schema: schema_of::<GraphResult<'static>>,
    },
    Shape {
        name: "graph-event",
        printed_by: "`graph run`, `graph resume` with `--format stream-json`: one line per event",
        schema: schema_of::<GraphEventLine<'static>>,
    },
    Shape {
        name: "sessions",
        printed_by: "`sessions list --format json`: the recorded sessions, newest first",
        schema: schema_of::<Vec<SessionJson>>,
    },
    Shape {
        name: "session",
        printed_by: "`sessions show --format json`: one session with its messages and runs",
        schema: schema_of::<SessionShow>,
    },
    Shape {
        name: "context",
        printed_by: "`context NAME --format json` (`--all`: an array of them): an agent's context mode in a session",
        schema: schema_of::<ContextModeReport>,
    },
    Shape {
        name: "memory",
        printed_by: "`memory list`, `memory search` with `--format json`: long-term memories",
        schema: schema_of::<Vec<MemoryEntryJson>>,
    },
    Shape {
        name: "memory-folders",
        printed_by: "`memory folders --format json`: the agents' memory folders",
        schema: schema_of::<Vec<MemoryFolderJson>>,
    },
    Shape {
        name: "trace",
        printed_by: "`trace show --format json`: a session's traces as span trees",
        schema: schema_of::<Vec<TraceTree>>,
    },
    Shape {
        name: "trace-span",
        printed_by: "`trace export --format jsonl` (one per line; `json`: an array of them): one span",
        schema: schema_of::<TraceSpan>,
    },
    Shape {
        name: "trust",
        printed_by: "`trust --format json` (also with `--show`, `--revoke`): the project's trust",
        schema: schema_of::<TrustReport>,
    },
];

/// The shape named `name`.
pub(crate) fn shape(name: &str) -> Option<&'static Shape> {
    SHAPES.iter().find(|shape| shape.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_rfc3339_utc_with_milliseconds() {
        assert_eq!(Timestamp(0).rfc3339(), "1970-01-01T00:00:00.000Z");
        assert_eq!(
            Timestamp(1_795_428_245_123).rfc3339(),
            "2026-11-23T10:04:05.123Z"
        );
        assert_eq!(Timestamp(i64::MAX).rfc3339(), "1970-01-01T00:00:00.000Z");
    }

    /// Each shape's schema is a 2020-12 root describing something (the CLI tests validate
    /// real output against it).
    #[test]
    fn every_shape_has_a_schema() {
        for shape in SHAPES {
            let schema = shape.schema();
            assert_eq!(
                schema["$schema"], "https://json-schema.org/draft/2020-12/schema",
                "{}",
                shape.name
            );
            let describes = ["type", "oneOf", "anyOf", "allOf", "$ref"]
                .iter()
                .any(|key| schema.get(key).is_some());
            assert!(describes, "{}", shape.name);
        }
    }
}
