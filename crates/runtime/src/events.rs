//! Where a run's events go: an [`Outbox`] its [`RunHandle`](crate::RunHandle) reads, or
//! nowhere ([`EventSink::disabled`], for `run_to_completion`).
//!
//! Whoever polls the run (its reader, or the run's own task until a reader comes; see
//! [`crate::handle`]) queues events without waking anyone while it polls; the reader is woken
//! once the poll ends, if it was not the poller. Events a tool emits from a task of its own (a
//! sub-agent it started) wake the reader at once.

use agentctl_core::{EventEmitter, RunEvent};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::Waker;

/// Events emitted and not read yet.
#[derive(Debug, Default)]
pub(crate) struct Outbox {
    events: VecDeque<RunEvent>,
    /// The reader, while it waits for events.
    waker: Option<Waker>,
    /// The reader found the run's task polling the run, and waits to take it over.
    reader_waiting: bool,
    /// Nobody reads any more ([`RunHandle::result`](crate::RunHandle::result)): events are
    /// dropped.
    closed: bool,
}

/// The [`Outbox`] of one run, shared by the run, its reader and its task.
#[derive(Debug)]
pub(crate) struct RunOutbox {
    queue: Mutex<Outbox>,
    /// True while the run is being polled: its events are handed over when the poll ends. Set
    /// without the lock (it is read under it: a poll that ends sets it before it locks).
    polling: AtomicBool,
}

/// A run's outbox, shared.
pub(crate) type SharedOutbox = Arc<RunOutbox>;

impl RunOutbox {
    pub(crate) fn lock(&self) -> MutexGuard<'_, Outbox> {
        // The outbox holds plain data: a panic elsewhere leaves it usable.
        self.queue.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A poll of the run begins: its events are queued without waking anyone.
    pub(crate) fn begin_poll(&self) {
        self.polling.store(true, Ordering::Relaxed);
    }

    /// A poll of the run ended: events pushed from now on wake the reader. Returns the
    /// outbox, locked, to see what the poll left.
    pub(crate) fn end_poll(&self) -> MutexGuard<'_, Outbox> {
        self.polling.store(false, Ordering::Relaxed);
        self.lock()
    }
}

/// Room for the events of a usual poll in the outbox, and in the reader's buffer it is swapped
/// with: a poll reads one chunk of an answer, or ends a turn with one tool call (usage, the
/// call, its result, the committed turn, the next request). Growing would `realloc`, which
/// takes the allocator's lock of the thread that allocated the buffer — contended when runs
/// move between threads. Kept under 1 KiB: glibc's malloc serves larger blocks on a slower
/// path, which also merges its caches of small freed blocks first.
pub(crate) const EVENTS_PER_POLL: usize = 6;
const _: () = assert!(EVENTS_PER_POLL * std::mem::size_of::<RunEvent>() < 1000);

/// An empty outbox with room for [`EVENTS_PER_POLL`] events.
pub(crate) fn new_outbox() -> SharedOutbox {
    Arc::new(RunOutbox {
        queue: Mutex::new(Outbox {
            events: VecDeque::with_capacity(EVENTS_PER_POLL),
            ..Outbox::default()
        }),
        polling: AtomicBool::new(false),
    })
}

fn push(outbox: &RunOutbox, event: RunEvent) {
    let waker = {
        let mut queue = outbox.lock();
        if queue.closed {
            return;
        }
        queue.events.push_back(event);
        if outbox.polling.load(Ordering::Relaxed) {
            None
        } else {
            queue.waker.take()
        }
    };
    if let Some(waker) = waker {
        waker.wake();
    }
}

impl Outbox {
    /// Moves every event not read yet into `ready`, which the reader passes empty (it reads
    /// all it took before it takes more): the two buffers are swapped, nothing is copied.
    /// False when there were none.
    pub(crate) fn take_all(&mut self, ready: &mut VecDeque<RunEvent>) -> bool {
        if self.events.is_empty() {
            return false;
        }
        debug_assert!(ready.is_empty(), "events taken before the last were read");
        std::mem::swap(&mut self.events, ready);
        true
    }

    /// Remembers the reader's waker, to be woken by events from other tasks (and, with
    /// `waiting`, by the run's task once it stops polling the run).
    pub(crate) fn register(&mut self, waker: &Waker, waiting: bool) {
        if !self.waker.as_ref().is_some_and(|old| old.will_wake(waker)) {
            self.waker = Some(waker.clone());
        }
        self.reader_waiting |= waiting;
    }

    /// Drops the queued events and every later one.
    pub(crate) fn close(&mut self) {
        self.closed = true;
        self.events.clear();
    }

    /// After a poll of the run by its own task ([`RunOutbox::end_poll`]): the reader to wake,
    /// if events wait for it, the run `ended`, or the reader waits to take the run over.
    pub(crate) fn end_task_poll(&mut self, ended: bool) -> Option<Waker> {
        if ended || self.reader_waiting || !self.events.is_empty() {
            self.reader_waiting = false;
            self.waker.take()
        } else {
            None
        }
    }

    /// After a poll of the run by its reader (or when it started, before anyone read it):
    /// nobody to wake.
    pub(crate) fn end_own_poll(&mut self) {
        self.reader_waiting = false;
    }
}

/// Where events go; building an event is skipped entirely when nobody listens.
pub(crate) struct EventSink {
    outbox: Option<SharedOutbox>,
}

impl EventSink {
    pub(crate) fn outbox(outbox: SharedOutbox) -> Self {
        Self {
            outbox: Some(outbox),
        }
    }

    pub(crate) fn disabled() -> Self {
        Self { outbox: None }
    }

    /// The same sink for a tool call's own events ([`agentctl_core::ToolContext::emit`]).
    pub(crate) fn emitter(&self) -> Option<EventEmitter> {
        let outbox = Arc::clone(self.outbox.as_ref()?);
        Some(Arc::new(move |event| push(&outbox, event)))
    }

    pub(crate) fn emit(&self, make: impl FnOnce() -> RunEvent) {
        if let Some(outbox) = &self.outbox {
            push(outbox, make());
        }
    }
}
