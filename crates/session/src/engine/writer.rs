//! The store thread: every store read and write of a session's turns happens there, in the
//! order it was sent, never inside a stream's `poll_next` or on an async worker — a
//! PostgreSQL round trip (or a slow disk) stalls that thread, not the other sessions' turns.
//!
//! The thread runs the jobs waiting for it as one batch ([`SessionLog::batch`]: one SQLite
//! transaction), so writes that arrive together share a commit, and keeps the batch open for
//! the jobs that follow while none of its callers waits for the commit ([`linger`]). A store
//! that takes one writer at a time ([`SessionLog::single_writer`], SQLite) has one thread for
//! every session of the process, and concurrent sessions' turns are committed together
//! instead of queueing for the file's lock one by one; other stores have a thread per session.
//!
//! What a job is told is answered once its batch is committed ([`StoreWriter::call`]); or at
//! once ([`StoreWriter::call_uncommitted`], a run's start: the model works while it commits),
//! and a batch that then fails to commit fails every run it wrote (their
//! [`Recording::finish`] returns the error), so no turn is lost silently; a run whose ending
//! it held is then marked `failed` in a write of its own, not left `running`.
//!
//! [`SessionLog::batch`]: agentctl_store::SessionLog::batch
//! [`SessionLog::single_writer`]: agentctl_store::SessionLog::single_writer

mod records;

pub(crate) use records::{Closing, Recording, Records};

use super::locking::lock;
use agentctl_store::{ContextError, NewRun, NewStep, SessionStore};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};
use tokio::sync::oneshot;

/// Most jobs one batch takes: a long queue is still committed now and then.
const BATCH_JOBS: usize = 256;

/// How long the thread looks for a next job, and a caller for its answer, before sleeping
/// until woken. A turn's next write often comes within tens of microseconds of the last batch
/// (the next run's start once a run finished, a handoff after a fast model's answer), an
/// answer within tens of microseconds of its job, and a sleeping thread or async worker takes
/// about as long again to be woken. On the triage bench (one SQLite session, sequential) the
/// thread's look took a recorded scenario from 0.62–0.81 to about 0.41 ms, and the callers'
/// to about 0.30 ms, with no more CPU over the run. Both yield meanwhile: the thread its core,
/// a caller its runtime's other tasks.
const SOON: Duration = Duration::from_micros(100);

/// The longest a batch stays open waiting for more jobs ([`linger`]): other processes'
/// writes to the file wait for it meanwhile.
const LINGER: Duration = Duration::from_millis(2);

/// What a job leaves to do once its batch is committed (or failed to be): answer its caller.
type Settle = Box<dyn FnOnce(Option<&ContextError>) + Send>;

type Job = Box<dyn FnOnce(&mut Records) -> Option<Settle> + Send>;

/// When a job's caller gets its answer.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Answered {
    /// Once the job's batch is committed.
    Committed,
    /// As soon as the job ran.
    Ran,
}

/// The sending side of a store thread. Cheap to clone; the thread ends once every clone is
/// dropped and its jobs are done (a single-writer store's thread: once the store is dropped).
#[derive(Clone)]
pub(crate) struct StoreWriter {
    jobs: mpsc::Sender<Job>,
}

impl std::fmt::Debug for StoreWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StoreWriter")
    }
}

/// How often an idle thread of a single-writer store looks whether its store is still in
/// use (it ends once nothing holds the store).
const IDLE: Duration = Duration::from_secs(2);

/// The threads of the single-writer stores, by store: each lives as long as its store, so a
/// process that opens session after session starts one.
static SHARED: Mutex<Vec<(Weak<dyn SessionStore>, StoreWriter)>> = Mutex::new(Vec::new());

/// The thread stopped (it cannot, short of the process ending): what a job that never ran
/// reports.
fn stopped() -> ContextError {
    backend("the session's store thread stopped".into())
}

fn backend(message: String) -> ContextError {
    ContextError::Backend {
        store: "session store".into(),
        message,
        retryable: false,
    }
}

/// Whether `a` and `b` are the same store object.
fn same(a: &Arc<dyn SessionStore>, b: &Weak<dyn SessionStore>) -> bool {
    std::ptr::addr_eq(Arc::as_ptr(a), b.as_ptr())
}

impl StoreWriter {
    /// The thread that writes to `store`: the process's one for a single-writer store,
    /// started at its first use; else a new one.
    pub(crate) fn start(store: Arc<dyn SessionStore>) -> Result<Self, ContextError> {
        if !store.single_writer() {
            return Self::spawn(&store, None);
        }
        let mut shared = lock(&SHARED);
        shared.retain(|(store, _)| store.strong_count() > 0);
        let running = shared.iter().find(|(known, _)| same(&store, known));
        if let Some((_, writer)) = running {
            return Ok(writer.clone());
        }
        let writer = Self::spawn(&store, Some(IDLE))?;
        shared.push((Arc::downgrade(&store), writer.clone()));
        Ok(writer)
    }

    /// Starts a thread for `store`; with `idle`, it looks that often whether the store is
    /// still held (by anything but the thread) and ends once it is not.
    fn spawn(store: &Arc<dyn SessionStore>, idle: Option<Duration>) -> Result<Self, ContextError> {
        let (jobs, queue) = mpsc::channel::<Job>();
        let store = Arc::downgrade(store);
        std::thread::Builder::new()
            .name("agentctl-store".into())
            .spawn(move || serve(&store, &queue, idle))
            .map(drop)
            .map_err(|error| backend(format!("cannot start the store thread: {error}")))?;
        Ok(Self { jobs })
    }

    /// Runs `job` on the store thread, after everything sent before it, and returns its
    /// answer once its writes are committed (a failed commit is the answer then).
    pub(crate) async fn call<T, E>(
        &self,
        job: impl FnOnce(&mut Records) -> Result<T, E> + Send + 'static,
    ) -> Result<T, E>
    where
        T: Send + 'static,
        E: From<ContextError> + Send + 'static,
    {
        self.ask(Answered::Committed, job).await
    }

    /// Runs `job` on the store thread and returns its answer as soon as it ran, before its
    /// writes are committed: for jobs whose writes are a run's, which [`Records::void`] fails
    /// if the commit does.
    pub(crate) async fn call_uncommitted<T, E>(
        &self,
        job: impl FnOnce(&mut Records) -> Result<T, E> + Send + 'static,
    ) -> Result<T, E>
    where
        T: Send + 'static,
        E: From<ContextError> + Send + 'static,
    {
        self.ask(Answered::Ran, job).await
    }

    async fn ask<T, E>(
        &self,
        answered: Answered,
        job: impl FnOnce(&mut Records) -> Result<T, E> + Send + 'static,
    ) -> Result<T, E>
    where
        T: Send + 'static,
        E: From<ContextError> + Send + 'static,
    {
        let (reply, answer) = oneshot::channel();
        self.send_job(Box::new(move |records: &mut Records| {
            let answer = job(records);
            if answered == Answered::Ran {
                let _ = reply.send(answer);
                return None;
            }
            Some(Box::new(move |failed: Option<&ContextError>| {
                let answer = match failed {
                    Some(error) => Err(backend(error.to_string()).into()),
                    None => answer,
                };
                let _ = reply.send(answer);
            }))
        }));
        soon_answered(answer)
            .await
            .unwrap_or_else(|| Err(stopped().into()))
    }

    /// Sends `job` to the store thread without waiting for it.
    fn send(&self, job: impl FnOnce(&mut Records) + Send + 'static) {
        self.send_job(Box::new(move |records: &mut Records| {
            job(records);
            None
        }));
    }

    fn send_job(&self, job: Job) {
        // A job that never runs drops its reply: its caller reads `stopped`, and a run's
        // `finish` reports it.
        let _ = self.jobs.send(job);
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
            .call_uncommitted(move |records| {
                let recorder =
                    agentctl_store::RunRecorder::start(store, &session, &run, &prompt, steps)?;
                Ok::<_, ContextError>(records.keep(recorder))
            })
            .await?;
        Ok(Recording::new(self.clone(), run))
    }

    /// Waits until every job sent so far is done and committed.
    pub(crate) async fn flush(&self) {
        let _: Result<(), ContextError> = self.call(|_| Ok(())).await;
    }
}

/// The thread's loop: the jobs waiting, a batch at a time, until every writer is dropped (or,
/// with `idle`, the store).
fn serve(store: &Weak<dyn SessionStore>, queue: &mpsc::Receiver<Job>, idle: Option<Duration>) {
    let mut records = Records::default();
    loop {
        let waited = match soon(queue) {
            Some(job) => Ok(job),
            None => match idle {
                Some(idle) => queue.recv_timeout(idle),
                None => queue
                    .recv()
                    .map_err(|_| mpsc::RecvTimeoutError::Disconnected),
            },
        };
        let first = match waited {
            Ok(job) => job,
            Err(mpsc::RecvTimeoutError::Timeout) if store.strong_count() > 0 => continue,
            Err(_) => break,
        };
        // Every job that writes holds the store; one that does not needs no batch.
        let Some(store) = store.upgrade() else {
            let mut settles = Vec::new();
            run(&mut vec![first], &mut settles, &mut records);
            settles.into_iter().for_each(|settle| settle(None));
            continue;
        };
        let mut jobs = vec![first];
        jobs.extend(queue.try_iter().take(BATCH_JOBS - 1));
        let mut settles = Vec::with_capacity(jobs.len());
        let mut began = false;
        let committed = catch_unwind(AssertUnwindSafe(|| {
            store.batch(&mut || {
                began = true;
                let taken = jobs.len();
                run(&mut jobs, &mut settles, &mut records);
                linger(queue, taken, &mut settles, &mut records);
            })
        }))
        .unwrap_or_else(|_| Err(backend("the store panicked committing a batch".into())));
        let failed = match committed {
            // A batch that could not even begin ran nothing: the jobs run with each write
            // committed on its own.
            Err(_) if !began => {
                run(&mut jobs, &mut settles, &mut records);
                None
            }
            committed => committed.err(),
        };
        if let Some(error) = &failed {
            records.void(error);
        }
        records.batch_done();
        records.mark_unsaved_endings(store.as_ref());
        for settle in settles {
            settle(failed.as_ref());
        }
    }
    // Runs never finished (their turn was dropped) are closed as cancelled here.
    drop(records);
}

/// The answer of a job: looked for without sleeping (yielding to the runtime's other tasks
/// between looks) for [`SOON`], then awaited; `None` if the job never answers.
async fn soon_answered<T>(mut answer: oneshot::Receiver<T>) -> Option<T> {
    let until = Instant::now() + SOON;
    while Instant::now() < until {
        match answer.try_recv() {
            Ok(value) => return Some(value),
            Err(oneshot::error::TryRecvError::Empty) => tokio::task::yield_now().await,
            Err(oneshot::error::TryRecvError::Closed) => return None,
        }
    }
    answer.await.ok()
}

/// The next job if it comes within [`SOON`], looked for without sleeping (yielding the core
/// meanwhile); `None` to sleep until one comes.
fn soon(queue: &mpsc::Receiver<Job>) -> Option<Job> {
    let until = Instant::now() + SOON;
    loop {
        match queue.try_recv() {
            Ok(job) => return Some(job),
            Err(mpsc::TryRecvError::Empty) if Instant::now() < until => std::thread::yield_now(),
            Err(_) => return None,
        }
    }
}

/// Keeps a batch open for the jobs that follow it while nobody waits for its commit: each
/// job that comes before [`LINGER`] has passed joins it, until one waits for the commit (a
/// run's finish, a read) or [`BATCH_JOBS`] were taken. A run's start and its turns' writes
/// are answered before their commit, so a sequential client's triage scenario (two runs,
/// three turns, a finish) is one commit instead of five: each page it changes is appended to
/// the write-ahead log once instead of once a commit (126 → 55 `pwrite` calls a scenario).
fn linger(
    queue: &mpsc::Receiver<Job>,
    mut taken: usize,
    settles: &mut Vec<Settle>,
    records: &mut Records,
) {
    let until = Instant::now() + LINGER;
    while settles.is_empty() && taken < BATCH_JOBS {
        let next = match soon(queue) {
            Some(job) => job,
            None => match queue.recv_timeout(until.saturating_duration_since(Instant::now())) {
                Ok(job) => job,
                Err(_) => return,
            },
        };
        taken += 1;
        run(&mut vec![next], settles, records);
    }
}

/// Runs `jobs` in order, keeping what each leaves to do once its batch ends.
fn run(jobs: &mut Vec<Job>, settles: &mut Vec<Settle>, records: &mut Records) {
    for job in jobs.drain(..) {
        // A job that panics loses its own answer (its caller reads an error), not the thread:
        // later turns are still saved.
        if let Ok(Some(settle)) = catch_unwind(AssertUnwindSafe(|| job(records))) {
            settles.push(settle);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A job that counts itself in `ran`; with `waits`, its caller waits for the commit.
    fn job(ran: &Arc<AtomicUsize>, waits: bool) -> Job {
        let ran = Arc::clone(ran);
        Box::new(move |_| {
            ran.fetch_add(1, Ordering::SeqCst);
            waits.then(|| Box::new(|_: Option<&ContextError>| {}) as Settle)
        })
    }

    #[test]
    fn a_batch_takes_the_jobs_that_follow_until_one_waits_for_its_commit() {
        let (sender, queue) = mpsc::channel();
        let ran = Arc::new(AtomicUsize::new(0));
        for waits in [false, false, true, false] {
            sender.send(job(&ran, waits)).unwrap();
        }
        let (mut settles, mut records) = (Vec::new(), Records::default());
        linger(&queue, 1, &mut settles, &mut records);
        // The jobs up to the one waiting for the commit ran; the fourth is left to the next
        // batch, so the commit that job waits for is not held back by it.
        assert_eq!(ran.load(Ordering::SeqCst), 4 - 1);
        assert_eq!(settles.len(), 1);
        assert_eq!(queue.try_iter().count(), 1);
    }

    #[test]
    fn a_batch_stops_taking_jobs_once_its_time_is_up_or_it_is_full() {
        let (sender, queue) = mpsc::channel::<Job>();
        let (mut settles, mut records) = (Vec::new(), Records::default());
        let started = Instant::now();
        linger(&queue, 1, &mut settles, &mut records);
        assert!(started.elapsed() >= LINGER);
        let ran = Arc::new(AtomicUsize::new(0));
        for _ in 0..BATCH_JOBS {
            sender.send(job(&ran, false)).unwrap();
        }
        linger(&queue, 1, &mut settles, &mut records);
        assert_eq!(ran.load(Ordering::SeqCst), BATCH_JOBS - 1);
        assert!(settles.is_empty());
    }
}
