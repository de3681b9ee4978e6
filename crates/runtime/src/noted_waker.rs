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

    /// Whether it was woken since the last call (or [`note`](Self::note)), clearing the note,
    /// with `waker` made the one later wake-ups reach. `registered` is where the caller keeps
    /// the waker it registered last: polled again by the same waker and not woken, nothing
    /// is registered (a load and a swap instead of the registration's two compare-exchanges).
    /// A wake-up takes the registered waker out, and it notes before it takes: once woken,
    /// the waker is registered again.
    pub(crate) fn take_woken_for(&self, waker: &Waker, registered: &mut Option<Waker>) -> bool {
        let woken = self.woken.swap(false, Ordering::AcqRel);
        let same = registered
            .as_ref()
            .is_some_and(|last| last.will_wake(waker));
        if woken || !same {
            self.target.register(waker);
            if !same {
                *registered = Some(waker.clone());
            }
        }
        woken
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    /// A waker that counts its wake-ups.
    #[derive(Default)]
    struct Count(AtomicUsize);

    impl Wake for Count {
        fn wake(self: Arc<Self>) {
            self.wake_by_ref();
        }

        fn wake_by_ref(self: &Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    fn counting() -> (Arc<Count>, Waker) {
        let count = Arc::new(Count::default());
        (Arc::clone(&count), Waker::from(count))
    }

    #[test]
    fn every_wake_up_reaches_a_waker_registered_once() {
        let noted = Arc::new(NotedWaker::new(false));
        let waker = Waker::from(Arc::clone(&noted));
        let (count, target) = counting();
        let mut registered = None;
        assert!(!noted.take_woken_for(&target, &mut registered));
        for round in 1..=3 {
            // Polled again by the same waker, not woken: nothing registered, still reached.
            assert!(!noted.take_woken_for(&target, &mut registered));
            waker.wake_by_ref();
            assert_eq!(count.0.load(Ordering::SeqCst), round);
            // The wake-up took the waker out; the next poll registers it again.
            assert!(noted.take_woken_for(&target, &mut registered));
        }
        waker.wake_by_ref();
        assert_eq!(count.0.load(Ordering::SeqCst), 4);
    }

    #[test]
    fn a_new_waker_replaces_the_old_one() {
        let noted = Arc::new(NotedWaker::new(false));
        let waker = Waker::from(Arc::clone(&noted));
        let (old_count, old) = counting();
        let (new_count, new) = counting();
        let mut registered = None;
        noted.take_woken_for(&old, &mut registered);
        noted.take_woken_for(&new, &mut registered);
        waker.wake_by_ref();
        assert_eq!(old_count.0.load(Ordering::SeqCst), 0);
        assert_eq!(new_count.0.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn a_note_without_a_wake_up_is_seen_once() {
        let noted = NotedWaker::new(false);
        let (count, target) = counting();
        let mut registered = None;
        noted.note();
        assert!(noted.take_woken_for(&target, &mut registered));
        assert!(!noted.take_woken_for(&target, &mut registered));
        assert_eq!(count.0.load(Ordering::SeqCst), 0);
    }
}
