//! Where a run's events go: an [`Outbox`] its [`RunHandle`](crate::RunHandle) reads, or
//! nowhere ([`EventSink::disabled`], for `run_to_completion`).
//!
//! The run's task queues events without waking the reader, and wakes it once when the task
//! yields ([`batched`]): a model call's deltas, usage and tool events reach the reader in one
//! wake-up instead of one each. Events a tool emits from a task of its own (a sub-agent it
//! started) wake the reader at once.

use agentctl_core::{EventEmitter, RunEvent};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};

/// Events emitted and not read yet.
#[derive(Debug, Default)]
pub(crate) struct Outbox {
    events: VecDeque<RunEvent>,
    /// The reader, while it waits for events.
    waker: Option<Waker>,
    /// True while the run's task is being polled: its events are handed over when it yields.
    producing: bool,
    /// The run's task ended: no event comes after the queued ones.
    done: bool,
    /// Nobody reads any more ([`RunHandle::result`](crate::RunHandle::result)): events are
    /// dropped.
    closed: bool,
}

/// The shared [`Outbox`] of one run.
pub(crate) type SharedOutbox = Arc<Mutex<Outbox>>;

fn lock(outbox: &SharedOutbox) -> MutexGuard<'_, Outbox> {
    // The outbox holds plain data: a panic elsewhere leaves it usable.
    outbox.lock().unwrap_or_else(PoisonError::into_inner)
}

fn push(outbox: &SharedOutbox, event: RunEvent) {
    let waker = {
        let mut outbox = lock(outbox);
        if outbox.closed {
            return;
        }
        outbox.events.push_back(event);
        if outbox.producing {
            None
        } else {
            outbox.waker.take()
        }
    };
    if let Some(waker) = waker {
        waker.wake();
    }
}

/// The reader's side: the next event, `None` once the run ended and everything was read, or
/// `Pending` (after registering the reader's waker).
pub(crate) fn poll_next(outbox: &SharedOutbox, cx: &mut Context<'_>) -> Poll<Option<RunEvent>> {
    let mut outbox = lock(outbox);
    if let Some(event) = outbox.events.pop_front() {
        return Poll::Ready(Some(event));
    }
    if outbox.done {
        return Poll::Ready(None);
    }
    if !outbox
        .waker
        .as_ref()
        .is_some_and(|old| old.will_wake(cx.waker()))
    {
        outbox.waker = Some(cx.waker().clone());
    }
    Poll::Pending
}

/// Drops the queued events and every later one.
pub(crate) fn close(outbox: &SharedOutbox) {
    let mut outbox = lock(outbox);
    outbox.closed = true;
    outbox.events.clear();
}

/// Runs `run`, handing its events over each time it yields, and marks the outbox done when
/// it ends — or when it is dropped unfinished (a panic, an aborted task).
pub(crate) async fn batched<F: Future>(run: F, outbox: SharedOutbox) -> F::Output {
    let _done = Done(Arc::clone(&outbox));
    let mut run = std::pin::pin!(run);
    std::future::poll_fn(|cx| {
        lock(&outbox).producing = true;
        let poll = run.as_mut().poll(cx);
        yielded(&outbox, poll.is_ready());
        poll
    })
    .await
}

/// Ends a poll of the run: wakes the reader if events are waiting (or the run `ended`).
fn yielded(outbox: &SharedOutbox, ended: bool) {
    let waker = {
        let mut outbox = lock(outbox);
        outbox.producing = false;
        outbox.done |= ended;
        if ended || !outbox.events.is_empty() {
            outbox.waker.take()
        } else {
            None
        }
    };
    if let Some(waker) = waker {
        waker.wake();
    }
}

/// Marks the outbox done when the run's task ends, however it ends.
struct Done(SharedOutbox);

impl Drop for Done {
    fn drop(&mut self) {
        yielded(&self.0, true);
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
