//! The runs being recorded: [`Records`] on the store thread (each run's [`RunRecorder`]),
//! [`Recording`] on the turn's side.
//!
//! A run's events go to the thread a model turn at a time (nothing waits for them), and
//! [`Recording::finish`] waits until everything the run sent is written and committed, and
//! returns the first store error — a turn that could not be saved fails its run.

use super::StoreWriter;
use super::backend;
use crate::engine::locking::lock;
use agentctl_core::{RunEvent, Usage};
use agentctl_store::{
    ContextError, RunEnding, RunId, RunRecord, RunRecorder, RunStatus, SessionStore,
};
use std::collections::{HashMap, HashSet};
use std::sync::Mutex;

/// What the store thread keeps between jobs: the runs being recorded, and which of them the
/// batch in progress wrote.
#[derive(Default)]
pub(crate) struct Records {
    runs: HashMap<RunId, RunRecorder>,
    /// Runs the batch in progress started.
    started: HashSet<RunId>,
    /// Runs the batch in progress wrote to.
    written: HashSet<RunId>,
    /// Runs whose start was lost with its batch, and why: what closing them reports.
    lost: HashMap<RunId, ContextError>,
    /// Runs the batch in progress closed, with their usage.
    closed: Vec<(RunId, Usage)>,
    /// Runs whose closing was lost with its batch: left `running` in the store unless marked
    /// `failed` after it ([`mark_unsaved_endings`](Records::mark_unsaved_endings)).
    unsaved_endings: Vec<(RunId, Usage)>,
}

/// A run being recorded on the store thread.
#[derive(Debug)]
pub(crate) struct Recording {
    writer: StoreWriter,
    run: RunRecord,
    /// Not finished yet: dropped as it is (its run cancelled, its future dropped), the run is
    /// closed as cancelled on the store thread.
    open: bool,
    /// Events the store keeps, not sent yet: they go to the store thread together when a
    /// model turn ends (the store writes a turn as the next one begins) and at the run's end,
    /// so the thread wakes a few times a run, not at every event.
    pending: Mutex<Vec<RunEvent>>,
}

/// A run whose ending is decided but not written yet: a handoff's, written with the next
/// run's start in one commit.
#[derive(Debug)]
pub(crate) struct Closing {
    run: RunId,
    /// The run's events not sent yet.
    events: Vec<RunEvent>,
    ending: RunEnding,
}

impl Records {
    /// Closes `closing`'s run (on this thread, after everything it sent); the first store
    /// error of the run, if any.
    pub(crate) fn close(&mut self, closing: Closing) -> Option<ContextError> {
        let Some(mut recorder) = self.runs.remove(&closing.run) else {
            return self.lost.remove(&closing.run);
        };
        self.written.insert(closing.run);
        for event in &closing.events {
            recorder.event(event);
        }
        self.closed.push((closing.run, recorder.usage()));
        recorder.finish(closing.ending)
    }

    /// Passes `events` to the recorder of `run`.
    fn events(&mut self, run: RunId, events: &[RunEvent]) {
        if let Some(recorder) = self.runs.get_mut(&run) {
            self.written.insert(run);
            for event in events {
                recorder.event(event);
            }
        }
    }

    /// Records a further user message of `run`.
    fn user(&mut self, run: RunId, text: &str) {
        if let Some(recorder) = self.runs.get_mut(&run) {
            self.written.insert(run);
            recorder.user(text);
        }
    }

    /// Closes `run` as cancelled, if it is still open.
    fn cancel(&mut self, run: RunId) {
        self.lost.remove(&run);
        if let Some(recorder) = self.runs.remove(&run) {
            self.written.insert(run);
            self.closed.push((run, recorder.usage()));
            // The recorder closes its run as cancelled as it is dropped.
            drop(recorder);
        }
    }

    /// Keeps `recorder` (started on this thread) for the events of its run.
    pub(crate) fn keep(&mut self, recorder: RunRecorder) -> RunRecord {
        let run = recorder.run().clone();
        self.started.insert(run.id);
        self.runs.insert(run.id, recorder);
        run
    }

    /// The batch in progress failed to commit with `error`: the runs it started do not exist
    /// (closing them reports the error), and the runs it wrote to lost those writes (their
    /// `finish` reports it).
    pub(crate) fn void(&mut self, error: &ContextError) {
        let lost = || backend(format!("a write of this run was not committed: {error}"));
        // A run started in the same batch does not exist either: nothing to mark.
        let started = &self.started;
        self.unsaved_endings.extend(
            self.closed
                .drain(..)
                .filter(|(run, _)| !started.contains(run)),
        );
        for run in self.started.drain() {
            if let Some(recorder) = self.runs.remove(&run) {
                recorder.abandon();
                self.lost.insert(run, lost());
            }
        }
        for run in self.written.drain() {
            if let Some(recorder) = self.runs.get_mut(&run) {
                recorder.fail(lost());
            }
        }
    }

    /// The batch in progress ended (committed, or voided by [`void`](Self::void)).
    pub(crate) fn batch_done(&mut self) {
        self.started.clear();
        self.written.clear();
        self.closed.clear();
    }

    /// Marks `failed` in `store`, each in a write of its own, the runs whose closing a failed
    /// batch lost: their turn was told so (`finish` returned the error), and the store no
    /// longer says they are running. A write that fails too leaves the run to stale-run
    /// cleanup (`interrupted` once this process is gone).
    pub(crate) fn mark_unsaved_endings(&mut self, store: &dyn SessionStore) {
        for (run, usage) in self.unsaved_endings.drain(..) {
            let _ = store.finish_run(run, RunStatus::Failed, usage);
        }
    }
}

impl Recording {
    /// The recording of `run`, kept on `writer`'s thread by [`Records::keep`].
    pub(crate) fn new(writer: StoreWriter, run: RunRecord) -> Self {
        Self {
            writer,
            run,
            open: true,
            pending: Mutex::new(Vec::new()),
        }
    }

    /// The run in the store.
    pub(crate) fn run(&self) -> &RunRecord {
        &self.run
    }

    /// Takes one of the run's events, when the store keeps anything of it (streamed text and
    /// the run's start and end are not kept). A model request after a committed turn sends
    /// the events so far: the store writes that turn while the model works on the next.
    pub(crate) fn event(&self, event: &RunEvent) {
        let kept = matches!(
            event,
            RunEvent::ModelRequest { .. }
                | RunEvent::TurnCommitted { .. }
                | RunEvent::ToolDecision { .. }
                | RunEvent::ApprovalRequested { .. }
                | RunEvent::TaskStopped { .. }
                | RunEvent::PlanUpdated { .. }
                | RunEvent::Guardrail { .. }
                | RunEvent::Usage { .. }
        );
        if !kept {
            return;
        }
        let mut pending = lock(&self.pending);
        let turn_ended = matches!(event, RunEvent::ModelRequest { .. })
            && pending
                .iter()
                .any(|event| matches!(event, RunEvent::TurnCommitted { .. }));
        pending.push(event.clone());
        if turn_ended {
            let events = std::mem::take(&mut *pending);
            drop(pending);
            let id = self.run.id;
            self.writer.send(move |records| records.events(id, &events));
        }
    }

    /// The run's events not sent yet.
    fn take_pending(&self) -> Vec<RunEvent> {
        std::mem::take(&mut *lock(&self.pending))
    }

    /// Records a further user message of the run (a repair request), after its events so far.
    pub(crate) fn user(&self, text: &str) {
        let (text, events) = (text.to_owned(), self.take_pending());
        let id = self.run.id;
        self.writer.send(move |records| {
            records.events(id, &events);
            records.user(id, &text);
        });
    }

    /// Records how the run ended, once everything it sent is written; returns the first store
    /// error of the run: the run was not (completely) saved.
    pub(crate) async fn finish(self, ending: RunEnding) -> Option<ContextError> {
        let writer = self.writer.clone();
        let closing = self.closing(ending);
        let finished: Result<_, ContextError> =
            writer.call(move |records| Ok(records.close(closing))).await;
        match finished {
            Ok(error) => error,
            Err(error) => Some(error),
        }
    }

    /// How the run ended, to be written later by [`Records::close`] (with the next run's
    /// start, for a handoff).
    pub(crate) fn closing(mut self, ending: RunEnding) -> Closing {
        self.open = false;
        Closing {
            run: self.run.id,
            events: self.take_pending(),
            ending,
        }
    }
}

impl Drop for Recording {
    fn drop(&mut self) {
        if self.open {
            let (id, events) = (self.run.id, self.take_pending());
            self.writer.send(move |records| {
                records.events(id, &events);
                records.cancel(id);
            });
        }
    }
}
