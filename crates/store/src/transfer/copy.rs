//! [`copy_sessions`]: every session of one store into another, again and again as both keep
//! being used.
//!
//! The rule, per session of the source (`S` now, `T` the target's copy now):
//!
//! * `T` absent: copied ([`CopyOutcome::Copied`]).
//! * The two were in step at some earlier copy: each store keeps a [`SyncMark`] per session,
//!   the fingerprints ([`SessionBundle::fingerprint`]) of its copy and of the other store's at
//!   the end of the last copy between them. From the target's mark and the source's (read the
//!   other way round) come the pairs `(source then, target then)`.
//!   * `S` is as it was then (or `S` and `T` are the same): nothing to bring
//!     ([`CopyOutcome::Unchanged`]). A target that moved on since keeps its changes.
//!   * Else, `T` is as it was then: only the source changed, and `T` is replaced by `S` in one
//!     transaction ([`CopyOutcome::Updated`]) — provided it is still untouched when the
//!     transaction runs (same update time and counts as when it was read).
//!   * Else both changed: nothing is written ([`CopyOutcome::Conflict`]); the caller names
//!     the session and the user chooses which copy to keep.
//!
//! Fingerprints cover everything but row ids, so "as it was" is exact: a new message, a
//! finished run, a changed state value or a new summary on either side counts as a change.
//! The cost is one export of each session of the source (as any copy needs) and, only when the
//! source changed or no mark says otherwise, one export of the target's copy.
//!
//! A session copied before marks existed (or whose mark was not written because the process
//! stopped right after the copy) has no mark: it counts as in step when both copies are the
//! same, and as changed on both sides otherwise.

use super::{ImportOutcome, SessionBundle, SessionImport, SyncMark, export_session, same_version};
use crate::error::{ContextError, Result};
use crate::store::SessionStore;

/// Why [`copy_sessions`] left a session alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Conflict {
    /// Both copies changed since they were last in step: copying either way would lose the
    /// other's changes.
    BothChanged,
    /// The copies differ and neither store recorded when they were last in step (a copy made
    /// by an older agentctl, or one stopped right after writing), so which side changed is
    /// unknown.
    NoRecord,
}

/// What [`copy_sessions`] did with one session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CopyOutcome {
    /// The target did not have it: copied, with this many messages and runs.
    Copied {
        /// Messages written.
        messages: u64,
        /// Runs written.
        runs: u64,
    },
    /// The target had an earlier copy the source outgrew, untouched since: replaced by the
    /// source's, with this many messages and runs.
    Updated {
        /// Messages the session has now.
        messages: u64,
        /// Runs the session has now.
        runs: u64,
    },
    /// Nothing new in the source since the last copy: nothing written.
    Unchanged,
    /// Left alone, for this reason: the caller must say so (and fail at the end).
    Conflict(Conflict),
}

/// What [`copy_sessions`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CopyReport {
    /// Sessions copied.
    pub copied: u64,
    /// Sessions updated.
    pub updated: u64,
    /// Sessions with nothing new.
    pub skipped: u64,
    /// Messages written (copied and updated sessions).
    pub messages: u64,
    /// Runs written (copied and updated sessions).
    pub runs: u64,
    /// Sessions left alone, by id, with why.
    pub conflicts: Vec<(String, Conflict)>,
}

/// Copies every session of `from` into `to`, oldest first, one transaction per session, by
/// the rule of this module: new sessions are copied, earlier copies the source outgrew are
/// updated, unchanged ones skipped, and sessions changed on both sides left alone and
/// reported (in [`CopyReport::conflicts`], after everything else was copied). `progress` hears
/// of each session. A second call with no writes in between does nothing; a call after an
/// interrupted one finishes it.
pub fn copy_sessions<F, T>(
    from: &F,
    to: &T,
    progress: &mut dyn FnMut(&str, CopyOutcome),
) -> Result<CopyReport>
where
    F: SessionStore + SessionImport + ?Sized,
    T: SessionStore + SessionImport + ?Sized,
{
    let mut sessions = from.list_sessions()?;
    sessions.reverse();
    let mut report = CopyReport::default();
    for session in sessions {
        let bundle = match export_session(from, &session.id) {
            Ok(bundle) => bundle,
            // Deleted since the listing: nothing to copy.
            Err(ContextError::SessionNotFound(_)) => continue,
            Err(error) => return Err(error),
        };
        let outcome = copy_one(from, to, &bundle)?;
        match outcome {
            CopyOutcome::Copied { messages, runs } => {
                report.copied += 1;
                report.messages += messages;
                report.runs += runs;
            }
            CopyOutcome::Updated { messages, runs } => {
                report.updated += 1;
                report.messages += messages;
                report.runs += runs;
            }
            CopyOutcome::Unchanged => report.skipped += 1,
            CopyOutcome::Conflict(why) => report.conflicts.push((session.id.clone(), why)),
        }
        progress(&session.id, outcome);
    }
    Ok(report)
}

/// One session by the rule of the module.
fn copy_one<F, T>(from: &F, to: &T, bundle: &SessionBundle) -> Result<CopyOutcome>
where
    F: SessionStore + SessionImport + ?Sized,
    T: SessionStore + SessionImport + ?Sized,
{
    let id = &bundle.session.id;
    let source = bundle.fingerprint();
    if let ImportOutcome::Copied { messages, runs } = to.import_session(bundle)? {
        mark(to, bundle, &source)?;
        return Ok(CopyOutcome::Copied { messages, runs });
    }
    // (source then, target then), from the target's mark and the source's.
    let mut pairs = Vec::new();
    if let Some(mark) = to.sync_mark(id)? {
        pairs.push((mark.theirs, mark.mine));
    }
    if let Some(mark) = from.sync_mark(id)? {
        pairs.push((mark.mine, mark.theirs));
    }
    if pairs.iter().any(|(then, _)| *then == source) {
        return Ok(CopyOutcome::Unchanged);
    }
    let copy = export_session(to, id)?;
    let target = copy.fingerprint();
    if target == source {
        // In step without a mark (copied by an older agentctl): record it.
        to.set_sync_mark(
            &copy.session,
            &SyncMark {
                mine: target,
                theirs: source,
            },
        )?;
        return Ok(CopyOutcome::Unchanged);
    }
    if !pairs.iter().any(|(_, then)| *then == target) {
        return Ok(CopyOutcome::Conflict(if pairs.is_empty() {
            Conflict::NoRecord
        } else {
            Conflict::BothChanged
        }));
    }
    to.replace_session(bundle, &copy.session)?;
    mark(to, bundle, &source)?;
    Ok(CopyOutcome::Updated {
        messages: bundle.messages.len() as u64,
        runs: bundle.runs.len() as u64,
    })
}

/// Records in `to` that its copy of `written` is in step with a source whose fingerprint is
/// `source`. A write to the copy since it was written (its update time or counts are no longer
/// the bundle's) leaves it unmarked: the next copy then compares contents.
fn mark<T>(to: &T, written: &SessionBundle, source: &str) -> Result<()>
where
    T: SessionStore + SessionImport + ?Sized,
{
    let copy = export_session(to, &written.session.id)?;
    if !same_version(&written.session, &copy.session) {
        return Ok(());
    }
    to.set_sync_mark(
        &copy.session,
        &SyncMark {
            mine: copy.fingerprint(),
            theirs: source.to_owned(),
        },
    )?;
    Ok(())
}
