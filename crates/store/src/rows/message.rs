//! The row of a new message: what both stores insert for a turn's messages.

use crate::record::{MAIN_TIMELINE, NewMessage, RunId, role_of};
use crate::schema::RowError;
use crate::schema::{Value, Write, WriteKind};
use crate::source::Source;
use crate::tokens::estimate_tokens;
use agentctl_core::Redactor;
use std::borrow::Cow;

/// The columns of a new `chat_messages` row, in the order of its values.
pub(crate) const MESSAGE_COLUMNS: &[&str] = &[
    "session_id",
    "run_id",
    "timeline_scope",
    "context_scope",
    "agent_id",
    "role",
    "content",
    "visible",
    "token_estimate",
    "created_at",
    "source",
];

/// The insert of a `chat_messages` row of [`MESSAGE_COLUMNS`] values; the new id is returned.
pub(crate) fn message_insert(values: Vec<Value>) -> Write {
    Write {
        table: super::described("chat_messages"),
        kind: WriteKind::InsertReturningId,
        columns: MESSAGE_COLUMNS,
        values,
    }
}

/// A [`NewMessage`] as its row holds it: masked, serialised and measured, so a store can do
/// it before taking its lock (PostgreSQL: on the caller's thread).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MessageRow {
    scope: String,
    agent: Option<String>,
    role: &'static str,
    content: String,
    visible: bool,
    token_estimate: u32,
    source: Option<Source>,
}

impl MessageRow {
    /// `new` with every secret `redactor` knows masked. A sub-agent's message never reaches
    /// the timeline, whatever the caller asked.
    pub fn new(redactor: &Redactor, new: &NewMessage) -> Result<Self, RowError> {
        // Copied only when there are secrets to mask in it.
        let message = if redactor.is_empty() {
            Cow::Borrowed(&new.message)
        } else {
            let mut message = new.message.clone();
            redactor.redact_message(&mut message);
            Cow::Owned(message)
        };
        let content = serde_json::to_string(&*message).map_err(|error| RowError {
            table: "chat_messages",
            reason: error.to_string(),
        })?;
        Ok(Self {
            scope: new.scope.to_string(),
            agent: new.agent.clone(),
            role: role_of(&message),
            visible: new.visible && !new.scope.is_sub(),
            token_estimate: estimate_tokens(&message),
            content,
            source: new.source.clone(),
        })
    }

    /// The insert of this message into `session` at `now`, in `run` when there is one; a
    /// message that names no source takes `source` (its run's, or the default).
    pub fn write(&self, session: &str, run: Option<RunId>, source: &Source, now: i64) -> Write {
        message_insert(vec![
            session.into(),
            run.into(),
            MAIN_TIMELINE.into(),
            self.scope.as_str().into(),
            self.agent.as_deref().into(),
            self.role.into(),
            self.content.as_str().into(),
            self.visible.into(),
            self.token_estimate.into(),
            now.into(),
            self.source.as_ref().unwrap_or(source).as_str().into(),
        ])
    }
}
