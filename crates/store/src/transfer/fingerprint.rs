//! What a session is, apart from the ids its store gave its rows: the fingerprint
//! [`copy_sessions`](super::copy_sessions) compares to tell which side of a copy changed.
//!
//! Row ids differ between two copies of one session (each store numbers its own rows), so the
//! fingerprint replaces them by positions — a message's run is "the session's third run", a
//! cursor is "the first 42 messages" — and hashes everything else (texts, times, statuses,
//! usage, state, checkpoints, spans, current and replaced summaries) with SHA-256. Two
//! exports of an unchanged session give the same fingerprint; any write to the session
//! (a message, a finished run, a state value, a summary, a span) changes it.

use super::SessionBundle;
use crate::record::{MessageId, RunId};
use crate::scope::ContextScope;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::collections::HashMap;

/// Where one store's copy of a session and another store's stood when they were last in step
/// (the end of a copy or update between them), as fingerprints
/// ([`SessionBundle::fingerprint`]). Kept by the store per session
/// ([`SessionImport::sync_mark`](super::SessionImport::sync_mark)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyncMark {
    /// This store's copy then.
    pub mine: String,
    /// The other store's copy then.
    pub theirs: String,
}

impl SessionBundle {
    /// The session's content apart from row ids, as 64 hex digits: equal for two exports of
    /// an unchanged session, different after any write to it.
    pub fn fingerprint(&self) -> String {
        let digest = Sha256::digest(sorted(self.canonical()).to_string().as_bytes());
        digest.iter().map(|byte| format!("{byte:02x}")).collect()
    }

    /// The bundle with its store's ids replaced by positions (a run is `#2`, a cursor the
    /// number of messages it covers): what two copies of one session in two stores share, and
    /// what [`fingerprint`](Self::fingerprint) hashes.
    pub fn canonical(&self) -> Value {
        let runs: HashMap<RunId, usize> = self
            .runs
            .iter()
            .enumerate()
            .map(|(at, run)| (run.id, at))
            .collect();
        let run = |id: Option<RunId>| id.map(|id| runs.get(&id).copied());
        let scope = |scope: &ContextScope| -> String {
            let renumber = |id: &str| {
                id.parse::<RunId>()
                    .ok()
                    .and_then(|id| runs.get(&id))
                    .map_or_else(|| id.to_owned(), |at| format!("#{at}"))
            };
            match scope {
                ContextScope::Run(id) => format!("run:{}", renumber(id)),
                ContextScope::Sub { agent, run } => format!("sub:{agent}:{}", renumber(run)),
                other => other.to_string(),
            }
        };
        // Messages are in id order: a cursor is how many of them it covers.
        let cursor =
            |until: MessageId| self.messages.partition_point(|message| message.id <= until);
        let session = &self.session;
        json!({
            "session": [session.id, session.title, session.created_at, session.updated_at],
            "overrides": self.mode_overrides.iter().map(|(agent, mode)| format!("{agent}={mode}")).collect::<Vec<_>>(),
            "runs": self.runs.iter().map(|r| json!([r.agent, run(r.parent_run_id), scope(&r.context_scope), r.status.as_str(), r.model, r.source.as_str(), r.usage, r.started_at, r.finished_at])).collect::<Vec<_>>(),
            "steps": self.steps.iter().map(|s| json!([run(Some(s.run_id)), s.step_index, s.kind, s.content, s.budget, s.created_at])).collect::<Vec<_>>(),
            "messages": self.messages.iter().map(|m| json!([run(m.run_id), m.timeline_scope, scope(&m.context_scope), m.agent, m.role, m.visible, m.source.as_str(), m.token_estimate, m.created_at, m.message])).collect::<Vec<_>>(),
            "summaries": self.summaries.iter().map(|s| json!([scope(&s.scope), cursor(s.until_message_id), s.summary_text, s.created_at, s.updated_at])).collect::<Vec<_>>(),
            "replaced": self.replaced_summaries.iter().map(|s| json!([scope(&s.scope), cursor(s.until_message_id), s.summary_text, s.created_at, s.replaced_at])).collect::<Vec<_>>(),
            "state": self.state.iter().map(|e| json!([e.key, e.value, e.updated_at, e.updated_by])).collect::<Vec<_>>(),
            "checkpoints": self.checkpoints.iter().map(|c| {
                let mut row = json!([c.branch, c.step, c.graph, c.node, run(c.run), c.next, c.reason, c.state, c.source.as_str(), c.parent, c.created_at]);
                // Only rows of parallel branches carry it: the fingerprints of others stay.
                if let (Some(parallel), Some(fields)) = (&c.parallel, row.as_array_mut()) {
                    fields.push(parallel.clone());
                }
                row
            }).collect::<Vec<_>>(),
            "spans": self.spans,
        })
    }
}

/// `value` with every object's keys in order: JSON read back from a store (a step's content,
/// a state value) keeps the order it was written in, which two stores need not share.
fn sorted(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(String, Value)> = map.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(
                entries
                    .into_iter()
                    .map(|(key, value)| (key, sorted(value)))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.into_iter().map(sorted).collect()),
        other => other,
    }
}
