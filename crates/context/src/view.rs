//! What an agent sees of a session, by context mode.
//!
//! * `isolated`: its own workspace `agent:{name}` (after the latest compaction summary).
//! * `shared`: the `main` workspace, capped to `agents.sharedContextMaxMessages`, with the
//!   messages of other agents marked `[name]` so the agent knows who said what.
//! * `run`: nothing — a fresh workspace.
//!
//! A [`HistoryView`] is a window into an immutable `Arc<[ScopedMessage]>`: handing the main
//! history to a shared agent clones an `Arc` and sets a start index, whatever the history's
//! length. Marking happens lazily in [`HistoryView::iter`], so nothing is copied until the
//! caller materialises the request with [`HistoryView::to_messages`] (at most the capped
//! window).

mod filter;

use agentctl_core::{ContextMode, Message};
use agentctl_store::{
    ContextScope, ContextSummary, MessageId, MessageQuery, Result, SessionStore, StoredMessage,
    estimate_text_tokens,
};
use std::borrow::Cow;
use std::sync::Arc;

/// One message of a workspace with the agent that produced it.
#[derive(Debug, Clone, PartialEq)]
pub struct ScopedMessage {
    /// Store id (0 for messages not stored yet).
    pub id: MessageId,
    /// The agent that produced it; `None` for the user.
    pub agent: Option<String>,
    /// The message.
    pub message: Message,
}

impl From<StoredMessage> for ScopedMessage {
    fn from(stored: StoredMessage) -> Self {
        Self {
            id: stored.id,
            agent: stored.agent,
            message: stored.message,
        }
    }
}

/// The history an agent is given: an optional summary of older messages, then a window of a
/// shared, immutable message list.
///
/// ```
/// use agentctl_context::{HistoryView, ScopedMessage};
/// use agentctl_core::Message;
/// use std::sync::Arc;
///
/// let main: Arc<[ScopedMessage]> = vec![
///     ScopedMessage { id: 1, agent: None, message: Message::user("fix the bug") },
///     ScopedMessage { id: 2, agent: Some("planner".into()), message: Message::assistant("plan: …") },
/// ].into();
/// let view = HistoryView::shared(&main, "coder", 100, None);
/// assert_eq!(view.to_messages()[1], Message::assistant("[planner] plan: …"));
/// ```
#[derive(Debug, Clone, Default)]
pub struct HistoryView {
    entries: Option<Arc<[ScopedMessage]>>,
    start: usize,
    summary: Option<Arc<str>>,
    /// The agent looking, when messages of others are to be marked.
    viewer: Option<Arc<str>>,
}

impl HistoryView {
    /// An empty history (`run` mode).
    pub fn empty() -> Self {
        Self::default()
    }

    /// An agent's own workspace, whole.
    pub fn isolated(entries: Arc<[ScopedMessage]>, summary: Option<Arc<str>>) -> Self {
        Self {
            start: skip_orphan_results(&entries, 0),
            entries: Some(entries),
            summary,
            viewer: None,
        }
    }

    /// The main history as a shared agent `viewer` sees it: the last `max_messages`, others'
    /// messages marked. Constant time in the history's length: nothing is copied.
    pub fn shared(
        main: &Arc<[ScopedMessage]>,
        viewer: &str,
        max_messages: usize,
        summary: Option<Arc<str>>,
    ) -> Self {
        let start = skip_orphan_results(main, main.len().saturating_sub(max_messages));
        Self {
            entries: Some(Arc::clone(main)),
            start,
            summary,
            viewer: Some(Arc::from(viewer)),
        }
    }

    /// The window's messages, unmarked.
    pub fn entries(&self) -> &[ScopedMessage] {
        match &self.entries {
            Some(entries) => entries.get(self.start..).unwrap_or_default(),
            None => &[],
        }
    }

    /// Messages in the window (the summary not counted).
    pub fn len(&self) -> usize {
        self.entries().len()
    }

    /// True when there is neither a summary nor a message.
    pub fn is_empty(&self) -> bool {
        self.summary.is_none() && self.entries().is_empty()
    }

    /// The compaction summary standing for older messages, if any.
    pub fn summary(&self) -> Option<&str> {
        self.summary.as_deref()
    }

    /// The window's messages as the agent sees them: others' messages marked `[name]`.
    pub fn iter(&self) -> impl Iterator<Item = Cow<'_, Message>> + '_ {
        self.entries().iter().map(|entry| self.present(entry))
    }

    /// The history to prepend to the agent's request (`RunOptions::history`): the summary as a
    /// first user message, then the window, without a trailing unanswered tool call.
    pub fn to_messages(&self) -> Vec<Message> {
        let mut messages = Vec::with_capacity(self.len() + 1);
        if let Some(summary) = &self.summary {
            messages.push(summary_message(summary));
        }
        messages.extend(self.iter().map(Cow::into_owned));
        drop_unanswered_tail(&mut messages);
        messages
    }

    fn present<'a>(&self, entry: &'a ScopedMessage) -> Cow<'a, Message> {
        let (Some(viewer), Some(author)) = (&self.viewer, &entry.agent) else {
            return Cow::Borrowed(&entry.message);
        };
        if **viewer == **author {
            return Cow::Borrowed(&entry.message);
        }
        match &entry.message {
            Message::User { content } => Cow::Owned(Message::User {
                content: format!("[{author}] {content}"),
            }),
            Message::Assistant {
                content,
                tool_calls,
            } => Cow::Owned(Message::Assistant {
                content: Some(match content {
                    Some(text) => format!("[{author}] {text}"),
                    None => format!("[{author}]"),
                }),
                tool_calls: tool_calls.clone(),
            }),
            // Tool results answer a call by id; the call itself carries the mark.
            Message::Tool { .. } => Cow::Borrowed(&entry.message),
        }
    }
}

/// The summary as it is shown to the model.
pub(crate) fn summary_message(summary: &str) -> Message {
    Message::user(format!(
        "<summary of the earlier conversation>\n{summary}\n</summary of the earlier conversation>"
    ))
}

/// A window must not begin with tool results whose calls were cut off.
fn skip_orphan_results(entries: &[ScopedMessage], mut start: usize) -> usize {
    while entries
        .get(start)
        .is_some_and(|entry| matches!(entry.message, Message::Tool { .. }))
    {
        start += 1;
    }
    start
}

/// Removes a final assistant message whose tool calls have no results (a turn that was cut
/// off), so the history is valid for every provider.
fn drop_unanswered_tail(messages: &mut Vec<Message>) {
    let Some(last_call) = messages.iter().rposition(
        |message| matches!(message, Message::Assistant { tool_calls, .. } if !tool_calls.is_empty()),
    ) else {
        return;
    };
    let Message::Assistant { tool_calls, .. } = &messages[last_call] else {
        return;
    };
    let answered = tool_calls.iter().all(|call| {
        messages[last_call + 1..]
            .iter()
            .any(|message| matches!(message, Message::Tool { call_id, .. } if *call_id == call.id))
    });
    if !answered {
        messages.truncate(last_call);
    }
}

/// A workspace loaded from the store: its messages after the latest summary, and the summary.
#[derive(Debug, Clone)]
pub struct ScopeHistory {
    /// The workspace.
    pub scope: ContextScope,
    /// Messages after the summary's cursor, oldest first.
    pub messages: Arc<[ScopedMessage]>,
    /// The latest summary, if the scope was compacted.
    pub summary: Option<ContextSummary>,
}

impl ScopeHistory {
    /// Loads `scope` of `session`; `last` keeps only the newest messages.
    pub fn load(
        store: &dyn SessionStore,
        session: &str,
        scope: ContextScope,
        last: Option<usize>,
    ) -> Result<Self> {
        Self::load_within(store, session, scope, last, None)
    }

    /// Loads `scope` of `session` as far as `max_tokens` allows: the summary's estimate first,
    /// then the newest messages whose estimates fit the rest (and at most `last` of them).
    /// Only those rows are read, newest first, whatever the scope's length.
    pub fn load_within(
        store: &dyn SessionStore,
        session: &str,
        scope: ContextScope,
        last: Option<usize>,
        max_tokens: Option<u64>,
    ) -> Result<Self> {
        let summary = store.latest_summary(session, &scope)?;
        let summary_tokens = summary
            .as_ref()
            .map_or(0, |summary| estimate_text_tokens(&summary.summary_text));
        let query = MessageQuery {
            scope: Some(scope.clone()),
            after_id: summary.as_ref().map(|summary| summary.until_message_id),
            last,
            max_tokens: max_tokens.map(|max| max.saturating_sub(summary_tokens)),
            ..MessageQuery::default()
        };
        let messages: Arc<[ScopedMessage]> = store
            .messages(session, &query)?
            .into_iter()
            .map(ScopedMessage::from)
            .collect();
        Ok(Self {
            scope,
            messages,
            summary,
        })
    }

    fn summary_text(&self) -> Option<Arc<str>> {
        self.summary
            .as_ref()
            .map(|summary| Arc::from(summary.summary_text.as_str()))
    }
}

/// Loads what `agent` sees in `session` when it runs in `mode`, whatever its length (see
/// [`load_history_within`] to read only what a context window can hold).
///
/// `shared_max_messages` is `agents.sharedContextMaxMessages`. The mode must already be
/// resolved (see [`resolve_mode`](crate::resolve_mode)), which enforces
/// `agents.allowSharedContext`.
///
/// ```
/// use agentctl_context::*;
/// use agentctl_store_sqlite::*;
/// use agentctl_store::*;
/// use agentctl_core::{ContextMode, Message};
///
/// let store = SqliteStore::open_in_memory()?;
/// let session = store.create_session(None)?.id;
/// store.append_messages(&session, None, &[
///     NewMessage::new(ContextScope::Main, None, Message::user("main question")),
///     NewMessage::new(ContextScope::agent("a"), Some("a"), Message::assistant("a's notes")),
/// ])?;
/// let shared = load_history(&store, &session, "b", ContextMode::Shared, 100)?;
/// assert_eq!(shared.to_messages(), vec![Message::user("main question")]);
/// let isolated = load_history(&store, &session, "a", ContextMode::Isolated, 100)?;
/// assert_eq!(isolated.to_messages(), vec![Message::assistant("a's notes")]);
/// assert!(load_history(&store, &session, "a", ContextMode::Run, 100)?.is_empty());
/// # Ok::<(), ContextError>(())
/// ```
pub fn load_history(
    store: &dyn SessionStore,
    session: &str,
    agent: &str,
    mode: ContextMode,
    shared_max_messages: u32,
) -> Result<HistoryView> {
    load(store, session, agent, mode, shared_max_messages, None)
}

/// [`load_history`] for a prompt of at most `max_tokens` history tokens (estimated, see
/// [`estimate_tokens`](agentctl_store::estimate_tokens)): the summary, then the newest messages that
/// fit, read newest first and stopping at the first that does not. Opening a session of
/// 100,000 messages reads only the window's rows.
///
/// The window keeps the view's rules: it never starts with tool results whose call was cut
/// off, never ends with a call whose results are missing, and shared agents see others'
/// messages marked `[name]`. [`CompactionPolicy::budget_tokens`](crate::CompactionPolicy)
/// for the model's context window is the budget compaction keeps a workspace under, so a
/// compacted workspace loads whole.
///
/// ```
/// use agentctl_context::*;
/// use agentctl_store_sqlite::*;
/// use agentctl_store::*;
/// use agentctl_core::{ContextMode, Message};
///
/// let store = SqliteStore::open_in_memory()?;
/// let session = store.create_session(None)?.id;
/// let scope = ContextScope::agent("a");
/// let notes: Vec<_> = (0..100)
///     .map(|i| NewMessage::new(scope.clone(), Some("a"), Message::assistant(format!("note {i}"))))
///     .collect();
/// store.append_messages(&session, None, &notes)?;
/// // Each note is estimated at 6 tokens: a 60-token budget holds the last 10.
/// let view = load_history_within(&store, &session, "a", ContextMode::Isolated, 100, 60)?;
/// assert_eq!(view.len(), 10);
/// assert_eq!(view.to_messages()[0], Message::assistant("note 90"));
/// # Ok::<(), ContextError>(())
/// ```
pub fn load_history_within(
    store: &dyn SessionStore,
    session: &str,
    agent: &str,
    mode: ContextMode,
    shared_max_messages: u32,
    max_tokens: u64,
) -> Result<HistoryView> {
    load(
        store,
        session,
        agent,
        mode,
        shared_max_messages,
        Some(max_tokens),
    )
}

fn load(
    store: &dyn SessionStore,
    session: &str,
    agent: &str,
    mode: ContextMode,
    shared_max_messages: u32,
    max_tokens: Option<u64>,
) -> Result<HistoryView> {
    match mode {
        ContextMode::Run => {
            // Still fail on an unknown session, like the other modes.
            store.session(session)?;
            Ok(HistoryView::empty())
        }
        ContextMode::Isolated => {
            let scope = ContextScope::agent(agent);
            let history = ScopeHistory::load_within(store, session, scope, None, max_tokens)?;
            let summary = history.summary_text();
            Ok(HistoryView::isolated(history.messages, summary))
        }
        ContextMode::Shared => {
            let max = usize::try_from(shared_max_messages).unwrap_or(usize::MAX);
            let history = ScopeHistory::load_within(
                store,
                session,
                ContextScope::Main,
                Some(max),
                max_tokens,
            )?;
            let summary = history.summary_text();
            Ok(HistoryView::shared(&history.messages, agent, max, summary))
        }
    }
}
