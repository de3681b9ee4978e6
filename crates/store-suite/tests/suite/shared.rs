//! The shared store suite: what every [`SessionStore`] must do, run against each backend —
//! the embedded SQLite store and the PostgreSQL store (when `AGENTCTL_TEST_DATABASE_URL`
//! names a server; see `agentctl_store_suite::backends`).
//!
//! Each case is written once, as a function of a fresh store, and [`on_each_backend!`] makes
//! one test per backend of it (`…::sqlite`, `…::postgres`), so a failure names its backend.
//! Tests of what only one backend has (SQLite files, migrations of old files, `/proc`
//! owners) stay in the other modules.

use agentctl_core::{ContextMode, Message, ToolCall};
use agentctl_store::*;
use serde_json::json;

/// One test per backend of each `fn name(store) { … }`: the body gets a `&FreshStore`.
macro_rules! on_each_backend {
    ($(fn $name:ident($fresh:ident) $body:block)*) => {
        $(
            mod $name {
                #[allow(unused_imports)]
                use super::*;
                #[allow(unused_imports)]
                use agentctl_store_suite::{Backend, FreshStore};

                fn case($fresh: &FreshStore) $body

                #[test]
                fn sqlite() {
                    case(&Backend::Sqlite.fresh());
                }

                #[test]
                fn postgres() {
                    if agentctl_test_support::postgres_url().is_some() {
                        case(&Backend::Postgres.fresh());
                    }
                }
            }
        )*
    };
}

mod graph;
mod messages;
mod processes;
mod runs;
mod sessions;
mod state;
mod trace;
mod transfer;

/// A run of `agent` in `mode` from the command line, without a parent.
pub fn new_run(agent: &str, mode: ContextMode) -> NewRun {
    NewRun {
        model: Some("scripted:x".into()),
        ..NewRun::new(agent, mode)
    }
}

/// One turn as the recorder writes it: an assistant message calling a tool, and its result.
pub fn turn(scope: &ContextScope, agent: &str, label: &str) -> Vec<NewMessage> {
    let call_id = format!("{label}-call");
    vec![
        NewMessage::new(
            scope.clone(),
            Some(agent),
            Message::Assistant {
                content: Some(label.to_owned()),
                tool_calls: vec![ToolCall {
                    id: call_id.clone(),
                    name: "read_file".into(),
                    arguments: json!({"path": "x"}),
                    signature: None,
                }],
            },
        ),
        NewMessage::new(
            scope.clone(),
            Some(agent),
            Message::Tool {
                call_id,
                name: "read_file".into(),
                content: format!("{label} result"),
                is_error: false,
            },
        ),
    ]
}

/// The text of a stored message: an assistant's content, a user's text, a tool's output.
pub fn text_of(message: &StoredMessage) -> String {
    match &message.message {
        Message::User { content } => content.clone(),
        Message::Assistant { content, .. } => content.clone().unwrap_or_default(),
        Message::Tool { content, .. } => content.clone(),
    }
}
