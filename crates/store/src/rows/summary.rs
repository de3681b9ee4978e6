//! Saving a scope's summary: the rows it writes, decided once for both stores.

use super::described;
use crate::record::{ContextSummary, MessageId};
use crate::schema::{Value, Write, WriteKind};
use crate::scope::ContextScope;

/// What saving a scope's summary writes ([`SummarySave::new`]) and the scope's current summary
/// after it ([`SummarySave::saved`]): the rule both stores follow, decided once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SummarySave {
    /// The rows to write, in order, in the transaction that read the current summary (locking
    /// it where the store can). The last is a [`WriteKind::InsertReturningId`] when the scope
    /// had no summary.
    pub writes: Vec<Write>,
    current: ContextSummary,
}

/// The `chat_context_summary_history` row of a replaced summary.
fn history(
    session: &str,
    scope: &str,
    until_message_id: MessageId,
    text: &str,
    created_at: i64,
    replaced_at: i64,
) -> Write {
    Write {
        table: described("chat_context_summary_history"),
        kind: WriteKind::Insert,
        columns: &[
            "session_id",
            "scope",
            "until_message_id",
            "summary_text",
            "created_at",
            "replaced_at",
        ],
        values: vec![
            session.into(),
            scope.into(),
            until_message_id.into(),
            text.into(),
            created_at.into(),
            replaced_at.into(),
        ],
    }
}

/// The `chat_context_summaries` row of a scope's first summary; its id is returned.
fn first_summary(
    session: &str,
    scope: &str,
    until_message_id: MessageId,
    text: &str,
    now: i64,
) -> Write {
    Write {
        table: described("chat_context_summaries"),
        kind: WriteKind::InsertReturningId,
        columns: &[
            "session_id",
            "scope",
            "until_message_id",
            "summary_text",
            "created_at",
            "updated_at",
        ],
        values: vec![
            session.into(),
            scope.into(),
            until_message_id.into(),
            text.into(),
            now.into(),
            now.into(),
        ],
    }
}

impl SummarySave {
    /// Makes `text` the current summary of `scope` in `session` at `now`, given the scope's
    /// `current` one: a new row when there is none; the current row updated, and its old text
    /// moved to history, when the new cursor is at least as far (equal cursors: the newer text
    /// wins); otherwise (another process compacted further meanwhile) the current one stays
    /// and the new one goes straight to history.
    pub fn new(
        session: &str,
        scope: &ContextScope,
        until_message_id: MessageId,
        text: &str,
        current: Option<ContextSummary>,
        now: i64,
    ) -> Self {
        let scope_text = scope.to_string();
        match current {
            None => Self {
                writes: vec![first_summary(
                    session,
                    &scope_text,
                    until_message_id,
                    text,
                    now,
                )],
                current: ContextSummary {
                    id: 0,
                    scope: scope.clone(),
                    until_message_id,
                    summary_text: text.to_owned(),
                    created_at: now,
                    updated_at: now,
                },
            },
            Some(old) if until_message_id >= old.until_message_id => Self {
                writes: vec![
                    history(
                        session,
                        &scope_text,
                        old.until_message_id,
                        &old.summary_text,
                        old.updated_at,
                        now,
                    ),
                    Write {
                        table: described("chat_context_summaries"),
                        kind: WriteKind::Update,
                        columns: &["until_message_id", "summary_text", "updated_at"],
                        values: vec![
                            until_message_id.into(),
                            text.into(),
                            now.into(),
                            Value::Integer(old.id),
                        ],
                    },
                ],
                current: ContextSummary {
                    until_message_id,
                    summary_text: text.to_owned(),
                    updated_at: now,
                    ..old
                },
            },
            Some(further) => Self {
                writes: vec![history(
                    session,
                    &scope_text,
                    until_message_id,
                    text,
                    now,
                    now,
                )],
                current: further,
            },
        }
    }

    /// The scope's current summary once [`writes`](Self::writes) are written; `new_id` is
    /// the id the database gave the new row, when one was inserted.
    pub fn saved(self, new_id: Option<i64>) -> ContextSummary {
        match new_id {
            Some(id) => ContextSummary { id, ..self.current },
            None => self.current,
        }
    }
}
