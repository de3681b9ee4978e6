//! The rows keyed by session and name: state values, mode overrides and the copy mark, each
//! set (or, for the first two, removed) the same way in both stores.

use super::described;
use crate::schema::{Value, Write, WriteKind};
use crate::transfer::SyncMark;
use agentctl_core::ContextMode;

/// `key` of `session`'s state set to `value` (JSON text, masked) by `agent` at `now`, or
/// removed when `value` is `None`.
pub fn state_write(session: &str, key: &str, value: Option<&str>, now: i64, agent: &str) -> Write {
    let table = described("session_state");
    match value {
        Some(value) => Write {
            table,
            kind: WriteKind::Upsert,
            columns: &["session_id", "key", "value", "updated_at", "updated_by"],
            values: vec![
                session.into(),
                key.into(),
                value.into(),
                now.into(),
                agent.into(),
            ],
        },
        None => Write {
            table,
            kind: WriteKind::Delete,
            columns: &[],
            values: vec![session.into(), key.into()],
        },
    }
}

/// `agent`'s context mode in `session` set to `mode`, or back to its own when `None`.
pub fn mode_override_write(session: &str, agent: &str, mode: Option<ContextMode>) -> Write {
    let table = described("session_mode_overrides");
    match mode {
        Some(mode) => Write {
            table,
            kind: WriteKind::Upsert,
            columns: &["session_id", "agent_id", "mode"],
            values: vec![session.into(), agent.into(), mode.as_str().into()],
        },
        None => Write {
            table,
            kind: WriteKind::Delete,
            columns: &[],
            values: vec![session.into(), agent.into()],
        },
    }
}

/// `session`'s mark of its last copy set to `mark` at `now`.
pub fn sync_mark_write(session: &str, mark: &SyncMark, now: i64) -> Write {
    Write {
        table: described("session_sync"),
        kind: WriteKind::Upsert,
        columns: &["session_id", "mine", "theirs", "marked_at"],
        values: vec![
            session.into(),
            mark.mine.as_str().into(),
            mark.theirs.as_str().into(),
            Value::from(now),
        ],
    }
}
