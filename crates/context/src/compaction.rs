//! Compaction: when a workspace outgrows the model's budget, its oldest messages are
//! summarised by the model into `chat_context_summaries` with an `until_message_id` cursor;
//! recent messages stay verbatim and the conversation goes on. Each scope compacts on its own.
//!
//! Later summaries fold in the previous one, so a scope's history is always
//! `latest summary + messages after its cursor` (what [`load_history`](crate::load_history)
//! loads). Nothing is deleted: `sessions show --all` still shows every message.

use agentctl_core::ModelProvider;
use agentctl_core::{Message, ModelRequest};
use agentctl_store::{
    ContextError, ContextScope, ContextSummary, MessageId, MessageQuery, Result, SessionStore,
    StoredMessage, estimate_text_tokens,
};
use async_trait::async_trait;
use std::sync::Arc;

/// What a summariser is asked to condense.
#[derive(Debug, Clone, Copy)]
pub struct SummaryRequest<'a> {
    /// The workspace.
    pub scope: &'a ContextScope,
    /// The summary the new one replaces, if any.
    pub previous_summary: Option<&'a str>,
    /// The messages to fold in, oldest first.
    pub messages: &'a [Message],
}

/// Writes the summary of older messages.
#[async_trait]
pub trait Summarizer: Send + Sync {
    /// Summarises the messages (and the previous summary) into one text.
    async fn summarize(&self, request: SummaryRequest<'_>) -> Result<String>;
}

/// System prompt of [`ProviderSummarizer`].
const SUMMARY_PROMPT: &str = "You compact the history of an AI agent's conversation. Write a \
concise summary that lets the agent continue the work: the user's goals and constraints, \
decisions made, facts learned (file paths, commands, results), work done, and what is still \
open. Fold in the previous summary if there is one. Answer with the summary only.";

/// A [`Summarizer`] that asks a model through a [`ModelProvider`].
pub struct ProviderSummarizer {
    provider: Arc<dyn ModelProvider>,
    model: String,
    max_tokens: u32,
}

impl std::fmt::Debug for ProviderSummarizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProviderSummarizer")
            .field("provider", &self.provider.name())
            .field("model", &self.model)
            .finish()
    }
}

impl ProviderSummarizer {
    /// Summarises with `model` (the provider's model id, without the `provider:` prefix).
    pub fn new(provider: Arc<dyn ModelProvider>, model: impl Into<String>) -> Self {
        Self {
            provider,
            model: model.into(),
            max_tokens: 2_048,
        }
    }
}

/// The messages as a plain transcript: a summariser needs no tool schema to read them.
fn transcript(request: &SummaryRequest<'_>) -> String {
    let mut text = String::new();
    if let Some(previous) = request.previous_summary {
        text.push_str(&format!(
            "<previous summary>\n{previous}\n</previous summary>\n\n"
        ));
    }
    for message in request.messages {
        match message {
            Message::User { content } => text.push_str(&format!("USER: {content}\n")),
            Message::Assistant {
                content,
                tool_calls,
            } => {
                if let Some(content) = content {
                    text.push_str(&format!("ASSISTANT: {content}\n"));
                }
                for call in tool_calls {
                    text.push_str(&format!("TOOL CALL {}: {}\n", call.name, call.arguments));
                }
            }
            Message::Tool {
                name,
                content,
                is_error,
                ..
            } => {
                let status = if *is_error { " (error)" } else { "" };
                text.push_str(&format!("TOOL RESULT {name}{status}: {content}\n"));
            }
        }
    }
    text
}

#[async_trait]
impl Summarizer for ProviderSummarizer {
    async fn summarize(&self, request: SummaryRequest<'_>) -> Result<String> {
        let model_request = ModelRequest {
            model: self.model.clone(),
            system: Some(SUMMARY_PROMPT.to_owned()),
            messages: vec![Message::user(transcript(&request))],
            tools: Default::default(),
            temperature: None,
            effort: None,
            max_tokens: Some(self.max_tokens),
            stream: false,
        };
        let response = self
            .provider
            .complete(&model_request, &|_| {})
            .await
            .map_err(|error| ContextError::Summarizer {
                scope: request.scope.to_string(),
                message: error.to_string(),
            })?;
        match response.text {
            Some(text) if !text.trim().is_empty() => Ok(text.trim().to_owned()),
            _ => Err(ContextError::Summarizer {
                scope: request.scope.to_string(),
                message: "the model answered with an empty summary".into(),
            }),
        }
    }
}

/// When and how much to compact.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompactionPolicy {
    /// Tokens a scope may use: the model's context window minus a reserve for the system
    /// prompt, tools and the answer.
    pub budget_tokens: u64,
    /// Tokens of recent messages kept verbatim when compacting.
    pub keep_recent_tokens: u64,
    /// Compact even under budget (`agentctl sessions compact`): at most half of the scope's
    /// tokens are kept verbatim then.
    pub force: bool,
}

impl CompactionPolicy {
    /// The policy for a model's context window (e.g. `agentctl_runtime::model_context_window`):
    /// a reserve of a quarter of the window (at most 32k tokens), half the budget kept verbatim.
    ///
    /// ```
    /// let policy = agentctl_context::CompactionPolicy::for_context_window(200_000);
    /// assert_eq!(policy.budget_tokens, 200_000 - 32_768);
    /// assert_eq!(policy.keep_recent_tokens, (200_000 - 32_768) / 2);
    /// ```
    pub fn for_context_window(window: u64) -> Self {
        let reserve = (window / 4).min(32_768);
        let budget_tokens = window.saturating_sub(reserve);
        Self {
            budget_tokens,
            keep_recent_tokens: budget_tokens / 2,
            force: false,
        }
    }
}

/// Where to cut: messages before the returned index are summarised. `None` when there is
/// nothing to compact under the policy.
fn split_point(
    messages: &[StoredMessage],
    summary_tokens: u64,
    policy: &CompactionPolicy,
) -> Option<usize> {
    let total: u64 = summary_tokens
        + messages
            .iter()
            .map(|message| u64::from(message.token_estimate))
            .sum::<u64>();
    if !policy.force && total <= policy.budget_tokens {
        return None;
    }
    // Keep the newest messages that fit `keep_recent_tokens` (when forced, at most half the
    // scope, so that something is summarised), and always at least one.
    let keep = if policy.force {
        policy.keep_recent_tokens.min(total / 2)
    } else {
        policy.keep_recent_tokens
    };
    let mut kept = 0u64;
    let mut split = messages.len();
    while split > 0 {
        let next = kept + u64::from(messages[split - 1].token_estimate);
        if next > keep && split < messages.len() {
            break;
        }
        kept = next;
        split -= 1;
    }
    // Never keep tool results without their call: they join the summarised part.
    while messages
        .get(split)
        .is_some_and(|message| matches!(message.message, Message::Tool { .. }))
    {
        split += 1;
    }
    (split > 0 && split <= messages.len()).then_some(split)
}

/// Whether [`compact_scope`] would summarise part of `scope` under `policy`: forced, or the
/// scope (its summary plus what came after it) is over the budget. Lets a caller decide
/// first and act between the decision and the compaction (a `PreCompact` hook).
pub fn needs_compaction(
    store: &dyn SessionStore,
    session: &str,
    scope: &ContextScope,
    policy: &CompactionPolicy,
) -> Result<bool> {
    if policy.force {
        return Ok(true);
    }
    let previous = store.latest_summary(session, scope)?;
    over_budget(store, session, scope, previous.as_ref(), policy)
}

/// Whether the scope is over budget past `previous`. Checked before every turn: under
/// budget, only the rows the budget covers are counted, never the whole workspace.
fn over_budget(
    store: &dyn SessionStore,
    session: &str,
    scope: &ContextScope,
    previous: Option<&ContextSummary>,
    policy: &CompactionPolicy,
) -> Result<bool> {
    let after_id = previous.map(|summary| summary.until_message_id);
    let summary_tokens = previous.map_or(0, |summary| estimate_text_tokens(&summary.summary_text));
    let room = policy.budget_tokens.saturating_sub(summary_tokens);
    Ok(summary_tokens > policy.budget_tokens
        || store.scope_tokens(session, scope, after_id, room)? > room)
}

/// Compacts one scope if it is over budget (or `policy.force`); returns the new summary.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// use agentctl_context::*;
/// use agentctl_store_sqlite::*;
/// use agentctl_store::*;
/// use agentctl_core::Message;
///
/// struct Fixed;
/// #[async_trait::async_trait]
/// impl Summarizer for Fixed {
///     async fn summarize(&self, request: SummaryRequest<'_>) -> Result<String> {
///         Ok(format!("{} messages about cats", request.messages.len()))
///     }
/// }
///
/// let store = SqliteStore::open_in_memory()?;
/// let session = store.create_session(None)?.id;
/// let scope = ContextScope::agent("a");
/// let turns: Vec<_> = (0..10)
///     .map(|i| NewMessage::new(scope.clone(), Some("a"), Message::user(format!("cat fact {i}"))))
///     .collect();
/// store.append_messages(&session, None, &turns)?;
/// let policy = CompactionPolicy { budget_tokens: 40, keep_recent_tokens: 20, force: false };
/// let summary = compact_scope(&store, &Fixed, &session, &scope, &policy).await?.unwrap();
/// let view = load_history(&store, &session, "a", agentctl_core::ContextMode::Isolated, 100)?;
/// assert_eq!(view.summary(), Some(summary.summary_text.as_str()));
/// assert!(view.len() < 10);
/// # Ok::<(), ContextError>(())
/// # }).unwrap();
/// ```
pub async fn compact_scope(
    store: &dyn SessionStore,
    summarizer: &dyn Summarizer,
    session: &str,
    scope: &ContextScope,
    policy: &CompactionPolicy,
) -> Result<Option<ContextSummary>> {
    let Some(pending) = PendingCompaction::read(store, session, scope, policy)? else {
        return Ok(None);
    };
    let text = pending.summarize(summarizer).await?;
    pending.save(store, session, &text)
}

/// [`compact_scope`] in its three steps — read what is due, summarise, save — for a caller
/// that must not hold its store while a model writes the summary (the session engine's
/// store thread, which writes for every session of the process).
#[derive(Debug, Clone)]
pub struct PendingCompaction {
    scope: ContextScope,
    /// The summary the new one replaces.
    previous: Option<ContextSummary>,
    /// The messages to fold in, oldest first.
    older: Vec<Message>,
    /// The last of them: the new summary's cursor.
    until: MessageId,
}

impl PendingCompaction {
    /// What compacting `scope` under `policy` summarises now; `None` when nothing is due.
    pub fn read(
        store: &dyn SessionStore,
        session: &str,
        scope: &ContextScope,
        policy: &CompactionPolicy,
    ) -> Result<Option<Self>> {
        let previous = store.latest_summary(session, scope)?;
        let after_id = previous.as_ref().map(|summary| summary.until_message_id);
        let summary_tokens = previous
            .as_ref()
            .map_or(0, |summary| estimate_text_tokens(&summary.summary_text));
        if !policy.force && !over_budget(store, session, scope, previous.as_ref(), policy)? {
            return Ok(None);
        }
        let query = MessageQuery {
            scope: Some(scope.clone()),
            after_id,
            ..MessageQuery::default()
        };
        let messages = store.messages(session, &query)?;
        let Some(split) = split_point(&messages, summary_tokens, policy) else {
            return Ok(None);
        };
        let Some(until) = messages.get(split - 1).map(|stored| stored.id) else {
            return Ok(None);
        };
        let older = messages[..split]
            .iter()
            .map(|stored| stored.message.clone())
            .collect();
        Ok(Some(Self {
            scope: scope.clone(),
            previous,
            older,
            until,
        }))
    }

    /// The workspace it summarises.
    pub fn scope(&self) -> &ContextScope {
        &self.scope
    }

    /// Asks `summarizer` for the summary. Touches no store.
    pub async fn summarize(&self, summarizer: &dyn Summarizer) -> Result<String> {
        summarizer
            .summarize(SummaryRequest {
                scope: &self.scope,
                previous_summary: self
                    .previous
                    .as_ref()
                    .map(|summary| summary.summary_text.as_str()),
                messages: &self.older,
            })
            .await
    }

    /// Writes `text` as the scope's summary; `None`, writing nothing, when another summary of
    /// the scope was written since [`read`](Self::read) (it already covers these messages, or
    /// more).
    pub fn save(
        &self,
        store: &dyn SessionStore,
        session: &str,
        text: &str,
    ) -> Result<Option<ContextSummary>> {
        let cursor = |summary: &ContextSummary| (summary.until_message_id, summary.updated_at);
        let now = store.latest_summary(session, &self.scope)?;
        if now.as_ref().map(cursor) != self.previous.as_ref().map(cursor) {
            return Ok(None);
        }
        store
            .save_summary(session, &self.scope, self.until, text)
            .map(Some)
    }
}

/// Compacts every scope of a session on its own; returns the summaries written.
pub async fn compact_session(
    store: &dyn SessionStore,
    summarizer: &dyn Summarizer,
    session: &str,
    policy: &CompactionPolicy,
) -> Result<Vec<ContextSummary>> {
    let mut written = Vec::new();
    for scope in store.scopes(session)? {
        if let Some(summary) = compact_scope(store, summarizer, session, &scope, policy).await? {
            written.push(summary);
        }
    }
    Ok(written)
}
