//! [`NotedWaker`]: a waker that notes it was woken and passes the wake-up on.

use futures_util::task::AtomicWaker;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Wake, Waker};

/// A waker that notes that it was woken and wakes whichever waker is registered with it. A
/// future polled with it keeps a waker that stays right when the one to reach changes, and its
/// holder can skip a poll that would find nothing new.
pub(crate) struct NotedWaker {
    woken: AtomicBool,
    target: AtomicWaker,
}

impl NotedWaker {
    /// A waker whose note starts as `woken`.
    pub(crate) fn new(woken: bool) -> Self {
        Self {
            woken: AtomicBool::new(woken),
            target: AtomicWaker::new(),
        }
    }

    /// Makes `waker` the one wake-ups reach.
    pub(crate) fn register(&self, waker: &Waker) {
        self.target.register(waker);
    }

    /// Whether it was woken since the last call (or [`note`](Self::note)); clears the note.
    pub(crate) fn take_woken(&self) -> bool {
        self.woken.swap(false, Ordering::AcqRel)
    }

    /// Notes a wake-up without waking anyone: the holder looks at its next poll.
    pub(crate) fn note(&self) {
        self.woken.store(true, Ordering::Release);
    }
}

impl Wake for NotedWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.note();
        self.target.wake();
    }
}
