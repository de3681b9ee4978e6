//! The session's store thread: every store read and write of a session's turns happens here,
//! in the order it was sent, never inside a stream's `poll_next` or on an async worker — a
//! PostgreSQL round trip (or a slow disk) stalls this thread, not the other sessions' turns.
//!
//! Runs are recorded by [`Recording`] handles: the run's events go to the thread a model turn at
//! a time (nothing waits for them), and [`Recording::finish`] waits until everything the run
//! sent is written and returns the first store error — a turn that could not be saved fails.

use super::locking::lock;
use agentctl_core::RunEvent;
use agentctl_store::{
    ContextError, NewRun, NewStep, RunEnding, RunId, RunRecord, RunRecorder, SessionStore,
};
use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use tokio::sync::oneshot;

/// What the store thread keeps between jobs: the runs being recorded.
#[derive(Default)]
pub(crate) struct Records {
    runs: HashMap<RunId, RunRecorder>,
}

type Job = Box<dyn FnOnce(&mut Records) + Send>;

/// The sending side of a session's store thread. Cheap to clone.
#[derive(Clone)]
pub(crate) struct StoreWriter {
    jobs: mpsc::Sender<Job>,
}

impl std::fmt::Debug for StoreWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StoreWriter")
    }
}

/// The thread stopped (it cannot, short of the process ending): what a job that never ran
/// reports.
fn stopped() -> ContextError {
    ContextError::Backend {
        store: "session store".into(),
        message: "the session's store thread stopped".into(),
        retryable: false,
    }
}

impl StoreWriter {
    /// Starts the thread. It ends once every writer is dropped and its jobs are done.
    pub(crate) fn start() -> Result<Self, ContextError> {
        let (jobs, queue) = mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name("agentctl-store".into())
            .spawn(move || {
                let mut records = Records::default();
                while let Ok(job) = queue.recv() {
                    // A job that panics loses its own answer (its caller reads an error), not
                    // the thread: later turns are still saved.
                    let _ = catch_unwind(AssertUnwindSafe(|| job(&mut records)));
                }
                // Runs never finished (their turn was dropped) are closed as cancelled here.
                drop(records);
            })
            .map(drop)
            .map_err(|error| ContextError::Backend {
                store: "session store".into(),
                message: format!("cannot start the store thread: {error}"),
                retryable: false,
            })?;
        Ok(Self { jobs })
    }

    /// Runs `job` on the store thread, after everything sent before it, and returns its
    /// answer.
    pub(crate) async fn call<T, E>(
        &self,
        job: impl FnOnce(&mut Records) -> Result<T, E> + Send + 'static,
    ) -> Result<T, E>
    where
        T: Send + 'static,
        E: From<ContextError> + Send + 'static,
    {
        let (reply, answer) = oneshot::channel();
        let sent = self.jobs.send(Box::new(move |records: &mut Records| {
            let _ = reply.send(job(records));
        }));
        if sent.is_err() {
            return Err(stopped().into());
        }
        answer.await.unwrap_or_else(|_| Err(stopped().into()))
    }

    /// Sends `job` to the store thread without waiting for it.
    fn send(&self, job: impl FnOnce(&mut Records) + Send + 'static) {
        // A stopped thread is reported by the run's `finish`.
        let _ = self.jobs.send(Box::new(job));
    }

    /// Starts recording a run of `store`'s `session` (a sub-agent's): its store run, its prompt
    /// and `steps`, written before it starts.
    pub(crate) async fn start_run(
        &self,
        store: Arc<dyn SessionStore>,
        session: String,
        run: NewRun,
        prompt: String,
        steps: Vec<NewStep>,
    ) -> Result<Recording, ContextError> {
        let run = self
            .call(move |records| {
                let recorder = RunRecorder::start(store, &session, &run, &prompt, steps)?;
                Ok::<_, ContextError>(records.keep(recorder))
            })
            .await?;
        Ok(Recording::new(self.clone(), run))
    }

    /// Waits until every job sent so far is done.
    pub(crate) async fn flush(&self) {
        let _: Result<(), ContextError> = self.call(|_| Ok(())).await;
    }
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
        let mut recorder = self.runs.remove(&closing.run)?;
        for event in &closing.events {
            recorder.event(event);
        }
        recorder.finish(closing.ending)
    }

    /// Passes `events` to the recorder of `run`.
    fn events(&mut self, run: RunId, events: &[RunEvent]) {
        if let Some(recorder) = self.runs.get_mut(&run) {
            for event in events {
                recorder.event(event);
            }
        }
    }

    /// Forgets the recorder of `run` without closing it: its start was not committed.
    pub(crate) fn forget(&mut self, run: RunId) {
        if let Some(recorder) = self.runs.remove(&run) {
            recorder.abandon();
        }
    }

    /// Keeps `recorder` (started on this thread) for the events of its run.
    pub(crate) fn keep(&mut self, recorder: RunRecorder) -> RunRecord {
        let run = recorder.run().clone();
        self.runs.insert(run.id, recorder);
        run
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
            if let Some(recorder) = records.runs.get_mut(&id) {
                recorder.user(&text);
            }
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
            // The recorder closes its run as cancelled as it is dropped.
            self.writer.send(move |records| {
                records.events(id, &events);
                drop(records.runs.remove(&id));
            });
        }
    }
}
