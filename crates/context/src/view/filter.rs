//! A shared agent's `contextFilter`: the messages of the main conversation it lets through,
//! with tool calls and their results kept or left out together, so the history stays one
//! every provider accepts.

use super::{HistoryView, ScopedMessage, skip_orphan_results};
use agentctl_core::{ContextFilter, Message, MessageRole};
use std::collections::HashSet;
use std::sync::Arc;

impl HistoryView {
    /// The view with only what `filter` lets through (a copy of the window's passing
    /// messages; the view itself when the filter lets everything through). The summary of
    /// older messages stays: it stands for what came before the window.
    ///
    /// ```
    /// use agentctl_context::{HistoryView, ScopedMessage};
    /// use agentctl_core::{ContextFilter, Message};
    /// use std::sync::Arc;
    ///
    /// let main: Arc<[ScopedMessage]> = vec![
    ///     ScopedMessage { id: 1, agent: None, message: Message::user("fix the login") },
    ///     ScopedMessage { id: 2, agent: Some("planner".into()), message: Message::assistant("plan: …") },
    ///     ScopedMessage { id: 3, agent: Some("reviewer".into()), message: Message::assistant("looks risky") },
    /// ].into();
    /// let filter = ContextFilter { agents: vec!["user".into(), "reviewer".into()], ..ContextFilter::default() };
    /// let view = HistoryView::shared(&main, "fixer", 100, None).filtered(&filter);
    /// assert_eq!(view.to_messages(), [Message::user("fix the login"), Message::assistant("[reviewer] looks risky")]);
    /// ```
    pub fn filtered(&self, filter: &ContextFilter) -> HistoryView {
        if filter.is_empty() {
            return self.clone();
        }
        let mut kept = passing(self.entries(), filter);
        if let Some(recent) = filter.recent {
            let recent = usize::try_from(recent).unwrap_or(usize::MAX);
            kept.drain(..kept.len().saturating_sub(recent));
        }
        let entries: Arc<[ScopedMessage]> = kept.into();
        HistoryView {
            start: skip_orphan_results(&entries, 0),
            entries: Some(entries),
            summary: self.summary.clone(),
            viewer: self.viewer.clone(),
        }
    }
}

/// The entries `filter` lets through, in order: an assistant message keeps its text when
/// assistants pass and its tool calls when tools pass; a tool result passes with its call.
fn passing(entries: &[ScopedMessage], filter: &ContextFilter) -> Vec<ScopedMessage> {
    let mut kept_calls: HashSet<&str> = HashSet::new();
    let mut kept = Vec::new();
    for entry in entries {
        if !filter.admits_agent(entry.agent.as_deref()) {
            continue;
        }
        let message = match &entry.message {
            Message::User { .. } => filter
                .admits_role(MessageRole::User)
                .then(|| entry.message.clone()),
            Message::Assistant {
                content,
                tool_calls,
            } => {
                let content = content
                    .clone()
                    .filter(|_| filter.admits_role(MessageRole::Assistant));
                let tool_calls = if filter.admits_role(MessageRole::Tool) {
                    kept_calls.extend(tool_calls.iter().map(|call| call.id.as_str()));
                    tool_calls.clone()
                } else {
                    Vec::new()
                };
                (content.is_some() || !tool_calls.is_empty()).then_some(Message::Assistant {
                    content,
                    tool_calls,
                })
            }
            Message::Tool { call_id, .. } => kept_calls
                .contains(call_id.as_str())
                .then(|| entry.message.clone()),
        };
        if let Some(message) = message {
            kept.push(ScopedMessage {
                id: entry.id,
                agent: entry.agent.clone(),
                message,
            });
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentctl_core::{MessageRole, ToolCall};
    use serde_json::json;

    fn entry(id: i64, agent: Option<&str>, message: Message) -> ScopedMessage {
        ScopedMessage {
            id,
            agent: agent.map(str::to_owned),
            message,
        }
    }

    fn main() -> Arc<[ScopedMessage]> {
        let call = ToolCall {
            id: "c1".into(),
            name: "read_file".into(),
            arguments: json!({"path": "a.rs"}),
            signature: None,
        };
        vec![
            entry(1, None, Message::user("fix a.rs")),
            entry(
                2,
                Some("reviewer"),
                Message::Assistant {
                    content: Some("reading".into()),
                    tool_calls: vec![call],
                },
            ),
            entry(
                3,
                Some("reviewer"),
                Message::Tool {
                    call_id: "c1".into(),
                    name: "read_file".into(),
                    content: "fn a() {}".into(),
                    is_error: false,
                },
            ),
            entry(4, Some("reviewer"), Message::assistant("a() is empty")),
            entry(5, Some("planner"), Message::assistant("plan")),
        ]
        .into()
    }

    #[test]
    fn without_tools_calls_and_results_go_together() {
        let filter = ContextFilter {
            roles: vec![MessageRole::User, MessageRole::Assistant],
            ..ContextFilter::default()
        };
        let view = HistoryView::shared(&main(), "fixer", 100, None).filtered(&filter);
        assert_eq!(
            view.to_messages(),
            [
                Message::user("fix a.rs"),
                Message::assistant("[reviewer] reading"),
                Message::assistant("[reviewer] a() is empty"),
                Message::assistant("[planner] plan"),
            ]
        );
    }

    #[test]
    fn recent_counts_what_passes_and_never_starts_with_a_result() {
        let filter = ContextFilter {
            agents: vec!["reviewer".into()],
            recent: Some(2),
            ..ContextFilter::default()
        };
        let view = HistoryView::shared(&main(), "fixer", 100, None).filtered(&filter);
        // The last two that pass are the result and the answer: the orphan result is cut.
        assert_eq!(
            view.to_messages(),
            [Message::assistant("[reviewer] a() is empty")]
        );
        let everything = HistoryView::shared(&main(), "fixer", 100, None);
        assert_eq!(
            everything.filtered(&ContextFilter::default()).to_messages(),
            everything.to_messages()
        );
    }
}
