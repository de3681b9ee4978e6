//! Copying sessions between stores (`agentctl sessions migrate --to URL` / `--from URL`).
//!
//! A session travels whole, as a [`SessionBundle`] read through the store traits
//! ([`export_session`]), and lands in one transaction of the target
//! ([`SessionImport::import_session`], or [`SessionImport::replace_session`] to bring an
//! earlier copy up to date): a copy interrupted half way leaves every session either as it was
//! or as the source has it, never in between. [`copy_sessions`] decides, per session, whether
//! to copy, update, skip or refuse (see [`CopyOutcome`] and the rule in its module).
//!
//! Row ids are the target's own: two machines' stores both have a message 1 and a run 1, and
//! both may be copied into one shared store. Every reference inside the session — a message's
//! run, a run's parent, a step's run, a checkpoint's run, a summary's cursor, current or
//! replaced — is rewritten to the new ids, in the same order, so cursors still cut the same
//! messages.
//!
//! What does not travel: which process owns a `running` run (in the target no process does,
//! so resuming the session there marks such a run `interrupted`).

mod copy;
mod fingerprint;
mod plan;

pub use copy::{Conflict, CopyOutcome, CopyReport, copy_sessions};
pub use fingerprint::SyncMark;
pub use plan::ImportPlan;

use crate::error::Result;
use crate::record::StateEntry;
use crate::record::{
    ContextSummary, GraphCheckpoint, MessageId, MessageQuery, ReplacedSummary, RunId, RunRecord,
    SessionInfo, StepRecord, StoredMessage,
};
use crate::scope::ContextScope;
use crate::store::SessionStore;
use agentctl_core::{ContextMode, Span};
use std::collections::{BTreeMap, HashMap};

/// One session with everything stored about it, read from a store by [`export_session`].
#[derive(Debug, Clone, PartialEq)]
pub struct SessionBundle {
    /// The session (its id is kept in the target).
    pub session: SessionInfo,
    /// Per-agent context mode overrides.
    pub mode_overrides: BTreeMap<String, ContextMode>,
    /// Runs, oldest first (a parent before its children).
    pub runs: Vec<RunRecord>,
    /// The steps of every run, by run then step index.
    pub steps: Vec<StepRecord>,
    /// Every message of every workspace, oldest first.
    pub messages: Vec<StoredMessage>,
    /// The current summary of each workspace that has one.
    pub summaries: Vec<ContextSummary>,
    /// The summaries newer ones replaced, oldest first.
    pub replaced_summaries: Vec<ReplacedSummary>,
    /// Session state, in key order.
    pub state: Vec<StateEntry>,
    /// Every graph checkpoint, by branch then step.
    pub checkpoints: Vec<GraphCheckpoint>,
    /// Trace spans, in start order.
    pub spans: Vec<Span>,
}

/// A summary of a bundle to write, current or replaced: what a [`SessionImport`]
/// implementation inserts ([`SessionBundle::summary_rows`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SummaryRow<'a> {
    /// True for a summary a newer one replaced (`chat_context_summary_history`), false for a
    /// scope's current one (`chat_context_summaries`).
    pub replaced: bool,
    /// Its workspace, in the source's ids.
    pub scope: &'a ContextScope,
    /// Its cursor, in the source's ids.
    pub until_message_id: MessageId,
    /// The text.
    pub summary_text: &'a str,
    /// When it (or the scope's first summary, for a current one) was written.
    pub created_at: i64,
    /// When it was last written (current) or replaced (replaced).
    pub last_at: i64,
}

impl SessionBundle {
    /// The current summaries, then the replaced ones, as rows to write.
    pub fn summary_rows(&self) -> impl Iterator<Item = SummaryRow<'_>> {
        let current = self.summaries.iter().map(|summary| SummaryRow {
            replaced: false,
            scope: &summary.scope,
            until_message_id: summary.until_message_id,
            summary_text: &summary.summary_text,
            created_at: summary.created_at,
            last_at: summary.updated_at,
        });
        let replaced = self.replaced_summaries.iter().map(|summary| SummaryRow {
            replaced: true,
            scope: &summary.scope,
            until_message_id: summary.until_message_id,
            summary_text: &summary.summary_text,
            created_at: summary.created_at,
            last_at: summary.replaced_at,
        });
        current.chain(replaced)
    }
}

/// What [`SessionImport::import_session`] did with a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImportOutcome {
    /// Copied, with this many messages and runs.
    Copied {
        /// Messages written.
        messages: u64,
        /// Runs written.
        runs: u64,
    },
    /// The target already holds this session (same id and creation time): nothing written.
    AlreadyThere,
}

/// A store that can take a whole session from another store, and remembers, per session,
/// where it and the other store last stood ([`SyncMark`]) so a later copy knows which side
/// changed.
pub trait SessionImport: Send + Sync {
    /// Writes `bundle` in one transaction with ids of this store, or nothing when the session
    /// is already here ([`ImportOutcome::AlreadyThere`]).
    /// [`ContextError::Transfer`](crate::ContextError::Transfer) when another session has the
    /// same id.
    fn import_session(&self, bundle: &SessionBundle) -> Result<ImportOutcome>;
    /// Replaces this store's copy of the session with `bundle`, in one transaction (the old
    /// rows go, the bundle's are written with new ids; the session's [`SyncMark`] goes with
    /// them), provided the copy is still as `expected` says: same creation and update time,
    /// same message and run counts. Otherwise nothing is written and the error is
    /// [`ContextError::Transfer`](crate::ContextError::Transfer) (it changed meanwhile: run the
    /// copy again). [`ContextError::SessionNotFound`](crate::ContextError) when there is none.
    fn replace_session(
        &self,
        bundle: &SessionBundle,
        expected: &SessionInfo,
    ) -> Result<ImportOutcome>;
    /// The session's mark of its last copy to or from another store, if one was recorded.
    fn sync_mark(&self, session: &str) -> Result<Option<SyncMark>>;
    /// Records `mark` for session `copy.id`, replacing any earlier one, provided the session
    /// is still as `copy` says (same creation and update time, message and run counts);
    /// returns false, writing nothing, when it is not (or is gone).
    fn set_sync_mark(&self, copy: &SessionInfo, mark: &SyncMark) -> Result<bool>;
}

/// True when `found` is the session `expected` describes, unchanged: same creation and update
/// time, message and run counts (for [`SessionImport`] implementations).
pub fn same_version(expected: &SessionInfo, found: &SessionInfo) -> bool {
    (
        expected.created_at,
        expected.updated_at,
        expected.message_count,
        expected.run_count,
    ) == (
        found.created_at,
        found.updated_at,
        found.message_count,
        found.run_count,
    )
}

/// Reads a session and everything stored about it.
pub fn export_session<S: SessionStore + ?Sized>(store: &S, id: &str) -> Result<SessionBundle> {
    let session = store.session(id)?;
    let runs = store.runs(id)?;
    let mut steps = Vec::new();
    for run in &runs {
        steps.extend(store.steps(run.id)?);
    }
    let messages = store.messages(id, &MessageQuery::default())?;
    let mut summaries = Vec::new();
    for scope in store.scopes(id)? {
        summaries.extend(store.latest_summary(id, &scope)?);
    }
    let replaced_summaries = store.replaced_summaries(id)?;
    let mut checkpoints = Vec::new();
    for branch in store.graph_branches(id)? {
        checkpoints.extend(store.graph_checkpoints(id, branch.branch)?);
    }
    let mut spans = Vec::new();
    store.for_each_span(id, &mut |span| spans.push(span))?;
    Ok(SessionBundle {
        mode_overrides: store.mode_overrides(id)?,
        state: store.state_entries(id)?,
        session,
        runs,
        steps,
        messages,
        summaries,
        replaced_summaries,
        checkpoints,
        spans,
    })
}

/// Old ids to new ones while a bundle is written: for store implementations of
/// [`SessionImport`].
#[derive(Debug, Default)]
pub struct IdMap {
    runs: HashMap<RunId, RunId>,
    /// `(old, new)` message ids in ascending order of both.
    messages: Vec<(MessageId, MessageId)>,
}

impl IdMap {
    /// An empty map.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records that run `old` was written as `new`.
    pub fn run_written(&mut self, old: RunId, new: RunId) {
        self.runs.insert(old, new);
    }

    /// The new id of run `old`; `None` for a run the bundle does not hold (a reference the
    /// source had already lost).
    pub fn run(&self, old: RunId) -> Option<RunId> {
        self.runs.get(&old).copied()
    }

    /// A workspace in new ids: `run:{id}` and `sub:{agent}:{id}` name a run, whose id changes
    /// with the copy (a run the bundle does not hold keeps its number).
    pub fn scope(&self, scope: &ContextScope) -> ContextScope {
        let renumber = |id: &str| {
            id.parse::<RunId>()
                .ok()
                .and_then(|old| self.run(old))
                .map_or_else(|| id.to_owned(), |new| new.to_string())
        };
        match scope {
            ContextScope::Run(id) => ContextScope::Run(renumber(id)),
            ContextScope::Sub { agent, run } => ContextScope::Sub {
                agent: agent.clone(),
                run: renumber(run),
            },
            other => other.clone(),
        }
    }

    /// Records that message `old` was written as `new`; messages are written oldest first.
    pub fn message_written(&mut self, old: MessageId, new: MessageId) {
        self.messages.push((old, new));
    }

    /// A summary cursor in new ids: the new id of the last message at or before `old`, so the
    /// cursor cuts the same messages; 0 when it covered none.
    pub fn cursor(&self, old: MessageId) -> MessageId {
        let at = self.messages.partition_point(|(from, _)| *from <= old);
        at.checked_sub(1)
            .and_then(|index| self.messages.get(index))
            .map_or(0, |(_, to)| *to)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_cut_the_same_messages() {
        let mut map = IdMap::new();
        for (old, new) in [(3, 100), (7, 101), (9, 140)] {
            map.message_written(old, new);
        }
        assert_eq!(map.cursor(2), 0);
        assert_eq!(map.cursor(3), 100);
        assert_eq!(map.cursor(8), 101);
        assert_eq!(map.cursor(9), 140);
        assert_eq!(map.cursor(i64::MAX), 140);
        map.run_written(1, 5);
        assert_eq!((map.run(1), map.run(2)), (Some(5), None));
        assert_eq!(map.scope(&ContextScope::run(1)), ContextScope::run(5));
        assert_eq!(
            map.scope(&ContextScope::sub("t", 1)),
            ContextScope::sub("t", 5)
        );
        assert_eq!(
            map.scope(&ContextScope::sub("t", 2)),
            ContextScope::sub("t", 2)
        );
        assert_eq!(
            map.scope(&ContextScope::agent("1")),
            ContextScope::agent("1")
        );
    }
}
