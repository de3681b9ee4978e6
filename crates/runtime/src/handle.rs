//! [`RunHandle`]: a run as a stream of its events.
//!
//! A run starts at once: [`RunHandle::start`] polls it up to its first wait (usually the
//! model request, sent). When it is woken before anyone reads it, a task of its own starts
//! and drives it, so it goes on whether or not anyone reads it yet. The first time its reader
//! waits for an event, the reader takes the run over and polls it itself: the answer's chunks
//! then wake the reader directly, instead of waking the run's task which wakes the reader — a
//! hop between tasks (and often threads) per streamed delta. A run read at once never has a
//! task: no spawn, and no worker thread woken to run it. A reader that goes away hands the run
//! to a task, which winds it down (cancelled). The run is always polled with one waker of its
//! own (a [`NotedWaker`]), which wakes whichever side drives it.

use crate::events::{self, SharedOutbox};
use crate::noted_waker::NotedWaker;
use agentctl_core::{RunError, RunEvent, RunResult, RunStream};
use futures_util::Stream;
use futures_util::future::BoxFuture;
use futures_util::task::AtomicWaker;
use std::collections::VecDeque;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, TryLockError, Weak};
use std::task::{Context, Poll, Wake, Waker};
use tokio_util::sync::CancellationToken;

/// The agent loop of one run.
pub(crate) type RunFuture = Pin<Box<dyn Future<Output = Result<RunResult, RunError>> + Send>>;

/// Who polls the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Driver {
    /// Nobody yet: polled once when it started, it gets a task when it is woken.
    Idle,
    /// The run's own task: nobody reads it (yet, or any more).
    Task,
    /// The reader, from its own task.
    Reader,
}

/// The run, shared by its task and its reader.
struct Slot {
    /// The loop, until it ends.
    run: Option<RunFuture>,
    /// How it ended, until taken by [`RunHandle::result`].
    result: Option<Result<RunResult, RunError>>,
    driver: Driver,
}

impl Slot {
    /// Polls the run once with `waker`; true when it has ended (its result is kept).
    fn poll_run(&mut self, outbox: &SharedOutbox, waker: &Waker) -> bool {
        let Some(run) = self.run.as_mut() else {
            return true;
        };
        outbox.begin_poll();
        let mut cx = Context::from_waker(waker);
        // The loop runs tools and other crates' code: a panic ends the run, not the reader.
        let poll = catch_unwind(AssertUnwindSafe(|| run.as_mut().poll(&mut cx)));
        let result = match poll {
            Ok(Poll::Pending) => return false,
            Ok(Poll::Ready(result)) => result,
            Err(panic) => Err(RunError::Aborted(format!(
                "the run panicked: {}",
                panic_message(panic.as_ref())
            ))),
        };
        self.run = None;
        self.result = Some(result);
        true
    }
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> &str {
    panic
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("no message")
}

/// The driver the run's wake-ups reach while nobody drives it ([`Driver::Idle`]): the first
/// one starts the run's task.
struct TaskStarter {
    shared: Weak<Shared>,
}

impl Wake for TaskStarter {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        if let Some(shared) = self.shared.upgrade() {
            shared.start_task();
        }
    }
}

/// What a run's task and its handle share.
struct Shared {
    slot: Mutex<Slot>,
    outbox: SharedOutbox,
    /// The run's task, to wake when the reader hands the run back or the run ends.
    task: AtomicWaker,
    /// A task of the run's own exists (it ends once the reader drives the run). Set by
    /// whoever starts one ([`Self::start_task`]); cleared by the task, as it ends, with the
    /// slot held.
    task_alive: AtomicBool,
    /// The one waker the run is ever polled with, whoever polls it: it notes that the run has
    /// something to do and wakes the current driver.
    run_waker: Arc<NotedWaker>,
    /// [`Self::run_waker`] as a [`Waker`].
    waker: Waker,
    /// The runtime the run started on, where its task runs (a handle may be dropped, or a
    /// wake-up come, outside it).
    runtime: tokio::runtime::Handle,
}

impl Shared {
    fn slot(&self) -> MutexGuard<'_, Slot> {
        // A panic while polling is caught inside the lock, so this never sees poison; the
        // slot stays usable regardless.
        self.slot.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The slot, unless the other side is polling the run right now.
    fn try_slot(&self) -> Option<MutexGuard<'_, Slot>> {
        match self.slot.try_lock() {
            Ok(slot) => Some(slot),
            Err(TryLockError::Poisoned(poisoned)) => Some(poisoned.into_inner()),
            Err(TryLockError::WouldBlock) => None,
        }
    }

    /// Makes `driver` the one the run's wake-ups reach, and says whether the run was woken
    /// since its last poll. Called with the slot held, so drivers never register at once.
    fn woken_for(&self, driver: &Waker) -> bool {
        self.run_waker.register(driver);
        self.run_waker.take_woken()
    }

    /// One poll by the run's task: drives the run while no reader does, and ends when one
    /// does (or the run has ended).
    fn poll_task(&self, cx: &mut Context<'_>) -> Poll<()> {
        self.task.register(cx.waker());
        let Some(mut slot) = self.try_slot() else {
            // The reader is polling the run; having taken it over, it wakes the task to end.
            return Poll::Pending;
        };
        if slot.driver == Driver::Idle {
            slot.driver = Driver::Task;
        }
        let done = if slot.run.is_none() || slot.driver == Driver::Reader {
            true
        } else if self.woken_for(cx.waker()) {
            slot.poll_run(&self.outbox, &self.waker)
        } else {
            false
        };
        if done {
            self.task_alive.store(false, Ordering::Release);
        }
        let ended = slot.run.is_none();
        drop(slot);
        // However the poll went: a reader that found the slot taken waits for this.
        let reader = self.outbox.end_poll().end_task_poll(ended);
        if let Some(reader) = reader {
            reader.wake();
        }
        if done { Poll::Ready(()) } else { Poll::Pending }
    }

    /// Starts a task that drives the run until a reader does, unless one exists.
    fn start_task(self: &Arc<Self>) {
        if self.task_alive.swap(true, Ordering::AcqRel) {
            return;
        }
        let shared = Arc::clone(self);
        // On a runtime that has shut down the task is dropped, and the run with it.
        drop(
            self.runtime
                .spawn(std::future::poll_fn(move |cx| shared.poll_task(cx))),
        );
    }

    /// Wakes the run's task, if it exists: it ends once it sees the reader drives the run.
    fn wake_task(&self) {
        if self.task_alive.load(Ordering::Acquire) {
            self.task.wake();
        }
    }

    /// One poll by the reader: the next event, driving the run itself to get it. Events are
    /// taken from the outbox all at once, into `ready`, which the reader empties first.
    fn poll_reader(
        &self,
        cx: &mut Context<'_>,
        ready: &mut VecDeque<RunEvent>,
    ) -> Poll<Option<RunEvent>> {
        if let Some(event) = ready.pop_front() {
            return Poll::Ready(Some(event));
        }
        loop {
            {
                let mut outbox = self.outbox.lock();
                if outbox.take_all(ready) {
                    return Poll::Ready(ready.pop_front());
                }
                // Events a sub-agent's task emits wake the reader from there.
                outbox.register(cx.waker(), false);
            }
            let mut slot = match self.try_slot() {
                Some(slot) => slot,
                None => {
                    // The run's task is polling it: it wakes the reader when done, and the
                    // reader takes over then — unless it let go in between, so try once more.
                    self.outbox.lock().register(cx.waker(), true);
                    match self.try_slot() {
                        Some(slot) => slot,
                        None => return Poll::Pending,
                    }
                }
            };
            if slot.run.is_none() {
                return Poll::Ready(None);
            }
            if slot.driver != Driver::Reader {
                // Taking the run over: poll it at once, and let its task (if any) end.
                slot.driver = Driver::Reader;
                self.run_waker.note();
                self.wake_task();
            }
            if !self.woken_for(cx.waker()) {
                // Nothing happened since the last poll.
                return Poll::Pending;
            }
            let ended = slot.poll_run(&self.outbox, &self.waker);
            drop(slot);
            // A task that found the slot taken while the reader polled ends now.
            self.wake_task();
            {
                let mut outbox = self.outbox.end_poll();
                outbox.end_own_poll();
                if outbox.take_all(ready) {
                    return Poll::Ready(ready.pop_front());
                }
            }
            if !ended {
                return Poll::Pending;
            }
        }
    }
}

/// A running agent: a [`Stream`] of [`RunEvent`]s ending after `run_finished` or `run_failed`.
///
/// The run starts at once and goes on by itself until the handle is first polled; from then
/// on the reader drives it, so it goes at the reader's pace — keep reading, or call
/// [`RunHandle::result`]. Dropping the handle cancels the run (it winds down in a task).
pub struct RunHandle {
    run_id: String,
    cancel: CancellationToken,
    shared: Arc<Shared>,
    /// Events taken from the outbox and not read yet.
    ready: VecDeque<RunEvent>,
}

impl std::fmt::Debug for RunHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunHandle")
            .field("run_id", &self.run_id)
            .finish_non_exhaustive()
    }
}

impl RunHandle {
    /// Starts `run` on the current tokio runtime: polls it up to its first wait; it gets a
    /// task of its own if it is woken before anyone reads it.
    pub(crate) fn start(
        run_id: String,
        cancel: CancellationToken,
        outbox: SharedOutbox,
        run: RunFuture,
    ) -> Self {
        let run_waker = Arc::new(NotedWaker::new(false));
        let shared = Arc::new_cyclic(|weak| {
            let starter = Waker::from(Arc::new(TaskStarter {
                shared: Weak::clone(weak),
            }));
            run_waker.register(&starter);
            Shared {
                slot: Mutex::new(Slot {
                    run: Some(run),
                    result: None,
                    driver: Driver::Idle,
                }),
                outbox,
                task: AtomicWaker::new(),
                task_alive: AtomicBool::new(false),
                waker: Waker::from(Arc::clone(&run_waker)),
                run_waker,
                runtime: tokio::runtime::Handle::current(),
            }
        });
        {
            let mut slot = shared.slot();
            slot.poll_run(&shared.outbox, &shared.waker);
        }
        shared.outbox.end_poll().end_own_poll();
        // A task started by a wake-up during that poll found the slot taken.
        shared.wake_task();
        Self {
            run_id,
            cancel,
            shared,
            // As the outbox: the two are swapped.
            ready: VecDeque::with_capacity(events::EVENTS_PER_POLL),
        }
    }

    /// Id of the run (also in `run_started`).
    pub fn run_id(&self) -> &str {
        &self.run_id
    }

    /// Cancels the run; it ends with `run_failed` and [`RunError::Cancelled`].
    pub fn cancel(&self) {
        self.cancel.cancel();
    }

    /// A token that cancels this run (e.g. for a Ctrl-C handler).
    pub fn cancellation_token(&self) -> CancellationToken {
        self.cancel.clone()
    }

    /// Waits for the end of the run and returns its result, including the conversation
    /// ([`RunResult::messages`], which the `run_finished` event leaves empty). Events not read
    /// yet are discarded.
    pub async fn result(mut self) -> Result<RunResult, RunError> {
        self.shared.outbox.lock().close();
        self.ready.clear();
        // Read to the end: the events are dropped as they come.
        let shared = Arc::clone(&self.shared);
        std::future::poll_fn(|cx| {
            while let Some(_event) = std::task::ready!(shared.poll_reader(cx, &mut self.ready)) {}
            Poll::Ready(())
        })
        .await;
        let result = self.shared.slot().result.take();
        result.unwrap_or_else(|| Err(RunError::Aborted("the run's result was taken".into())))
    }
}

impl RunStream for RunHandle {
    fn run_id(&self) -> &str {
        &self.run_id
    }

    fn cancel(&self) {
        self.cancel.cancel();
    }

    fn into_result(self: Box<Self>) -> BoxFuture<'static, Result<RunResult, RunError>> {
        Box::pin((*self).result())
    }
}

impl Stream for RunHandle {
    type Item = RunEvent;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<RunEvent>> {
        let this = self.get_mut();
        this.shared.poll_reader(cx, &mut this.ready)
    }
}

impl Drop for RunHandle {
    fn drop(&mut self) {
        let mut slot = self.shared.slot();
        if slot.run.is_none() {
            return;
        }
        // Cancelled, the run winds down in a task of its own (a tool's child process is
        // stopped, not abandoned).
        self.cancel.cancel();
        if slot.driver == Driver::Task {
            // Its task drives it still.
            return;
        }
        slot.driver = Driver::Task;
        self.shared.run_waker.note();
        drop(slot);
        // A task that has not ended yet takes the run back; else a new one starts.
        self.shared.wake_task();
        self.shared.start_task();
    }
}
