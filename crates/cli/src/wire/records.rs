//! The JSON of `context`, `memory` and `trace`: the library's records in the CLI's casing.

use super::sessions::StateJson;
use super::{Timestamp, one_of};
use agentctl_core::{ContextMode, Span};
use agentctl_session::context::{ModeSource, ResolvedMode};
use agentctl_session::memory::{Matched, MemoryEntry, MemoryHit};
use agentctl_session::trace::{TraceNode, TraceTree as LibraryTree};
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

fn mode_source_schema(_: &mut SchemaGenerator) -> Schema {
    one_of(&[
        "flag",
        "session_override",
        "agent_file",
        "settings",
        "default",
    ])
}

/// One agent's context mode in a session (`agentctl context NAME --format json`).
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ContextModeReport {
    pub(crate) agent: String,
    /// The session looked at; `null` outside any session.
    pub(crate) session_id: Option<String>,
    /// The mode the agent runs in (absent when it could not be resolved: see `error`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) mode: Option<ContextMode>,
    /// The layer that set it.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "mode_source_schema")]
    pub(crate) source: Option<ModeSource>,
    /// The mode without the flag and the session override.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) original: Option<ContextMode>,
    /// The layer that set `original`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "mode_source_schema")]
    pub(crate) original_source: Option<ModeSource>,
    /// Why the mode could not be resolved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) error: Option<String>,
    /// For an agent that declares `memory.session` keys: each key it may use with its value in
    /// the session, `null` when not set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) state: Option<BTreeMap<String, Option<StateJson>>>,
}

impl ContextModeReport {
    /// The report of `agent`, resolved or not.
    pub(crate) fn new(
        agent: String,
        session_id: Option<String>,
        resolved: Option<ResolvedMode>,
        error: Option<String>,
        state: Option<BTreeMap<String, Option<StateJson>>>,
    ) -> Self {
        Self {
            agent,
            session_id,
            mode: resolved.map(|resolved| resolved.mode),
            source: resolved.map(|resolved| resolved.source),
            original: resolved.map(|resolved| resolved.original),
            original_source: resolved.map(|resolved| resolved.original_source),
            error,
            state,
        }
    }
}

fn matched_schema(_: &mut SchemaGenerator) -> Schema {
    one_of(&["keyword", "meaning", "both"])
}

/// An agent's memory folder (`memory folders`).
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct MemoryFolderJson {
    pub(crate) agent: String,
    /// `user`, `project` or `local`.
    pub(crate) scope: &'static str,
    /// The folder; absent when the agent has none (see `problem`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) folder: Option<String>,
    /// Why the agent has no folder.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) problem: Option<String>,
    /// The size of its MEMORY.md; absent when there is none yet.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) memory_bytes: Option<u64>,
}

/// A long-term memory (`memory list`; `memory search` adds `score` and `matched`).
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct MemoryEntryJson {
    /// Its id (`memory forget ID`).
    pub(crate) id: i64,
    pub(crate) agent: String,
    /// The content, secrets masked.
    pub(crate) content: String,
    /// The metadata object, secrets masked.
    pub(crate) metadata: Map<String, Value>,
    pub(crate) created_at: Timestamp,
    /// The model of its embedding; absent when it has none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) embedding_model: Option<String>,
    /// Search only: higher is better, comparable within one search.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) score: Option<f64>,
    /// Search only: which ranking found it.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "matched_schema")]
    pub(crate) matched: Option<Matched>,
}

impl From<MemoryEntry> for MemoryEntryJson {
    fn from(entry: MemoryEntry) -> Self {
        Self {
            id: entry.id,
            agent: entry.agent,
            content: entry.content,
            metadata: entry.metadata,
            created_at: Timestamp(entry.created_at),
            embedding_model: entry.embedding_model,
            score: None,
            matched: None,
        }
    }
}

impl From<MemoryHit> for MemoryEntryJson {
    fn from(hit: MemoryHit) -> Self {
        Self {
            score: Some(hit.score),
            matched: Some(hit.matched),
            ..hit.entry.into()
        }
    }
}

/// One trace of a session as span trees (`trace show --format json`).
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TraceTree {
    pub(crate) trace_id: String,
    /// Spans whose parent is not in the trace, in start order.
    pub(crate) roots: Vec<TraceSpan>,
}

impl From<LibraryTree> for TraceTree {
    fn from(tree: LibraryTree) -> Self {
        Self {
            trace_id: tree.trace_id.to_string(),
            roots: tree.roots.into_iter().map(TraceSpan::from).collect(),
        }
    }
}

/// One span (`trace export --format jsonl` prints one per line; in `trace show` it holds its
/// `children`).
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TraceSpan {
    pub(crate) trace_id: String,
    pub(crate) span_id: String,
    /// The enclosing span; absent for a trace's root.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) parent_id: Option<String>,
    /// Spans this one follows from without being inside them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) links: Vec<String>,
    /// The session it was recorded in.
    pub(crate) session_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) agent: Option<String>,
    /// When it started: RFC 3339 UTC to the nanosecond (spans are shorter than milliseconds).
    pub(crate) start_time: String,
    /// How long it took, milliseconds.
    pub(crate) duration_ms: f64,
    /// `ok` or `error`.
    pub(crate) status: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) error: Option<String>,
    /// The span's kind: `session`, `graph`, `agent_run`, `model_call`, `tool_call`, …
    #[serde(rename = "type")]
    pub(crate) kind: String,
    /// What it is about, by kind (top-level keys camelCase; values as recorded).
    pub(crate) data: Value,
    /// What a run's or a model call's tokens cost in US dollars, by the model catalogue's
    /// list prices.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) cost_usd: Option<f64>,
    /// `trace show` only: the spans inside it, in start order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) children: Vec<TraceSpan>,
}

impl From<Span> for TraceSpan {
    fn from(span: Span) -> Self {
        // The library's shape, then re-keyed: its `type`/`data` pair and status stay its own.
        let library = serde_json::to_value(&span).unwrap_or(Value::Null);
        let text = |key: &str| library.get(key).and_then(Value::as_str).map(str::to_owned);
        let data = match library.get("data") {
            Some(Value::Object(fields)) => Value::Object(
                fields
                    .iter()
                    .map(|(key, value)| (camel_case(key), value.clone()))
                    .collect(),
            ),
            Some(other) => other.clone(),
            None => Value::Null,
        };
        let nanos = i64::try_from(span.start_unix_nano).unwrap_or(i64::MAX);
        let cost_usd = agentctl_session::trace::span_cost(&span.detail);
        Self {
            trace_id: span.trace_id.to_string(),
            span_id: span.span_id.to_string(),
            parent_id: span.parent_id.map(|id| id.to_string()),
            links: span.links.iter().map(ToString::to_string).collect(),
            session_id: span.session_id,
            agent: span.agent,
            start_time: chrono::DateTime::from_timestamp_nanos(nanos)
                .to_rfc3339_opts(chrono::SecondsFormat::Nanos, true),
            duration_ms: span.duration_ms,
            status: text("status").unwrap_or_default(),
            error: span.error,
            kind: text("type").unwrap_or_default(),
            data,
            cost_usd,
            children: Vec::new(),
        }
    }
}

impl From<TraceNode> for TraceSpan {
    fn from(node: TraceNode) -> Self {
        Self {
            children: node.children.into_iter().map(TraceSpan::from).collect(),
            ..node.span.into()
        }
    }
}

/// `tool_calls` → `toolCalls`.
fn camel_case(key: &str) -> String {
    let mut out = String::with_capacity(key.len());
    let mut upper = false;
    for c in key.chars() {
        if c == '_' && !out.is_empty() {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::camel_case;

    #[test]
    fn keys_become_camel_case() {
        assert_eq!(camel_case("tool_calls"), "toolCalls");
        assert_eq!(camel_case("latency_ms"), "latencyMs");
        assert_eq!(camel_case("prompt"), "prompt");
        assert_eq!(camel_case("_private"), "_private");
    }
}
