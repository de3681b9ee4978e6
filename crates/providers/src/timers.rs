//! The timers that enforce the request and idle-stream time limits, kept from one request to
//! the next.
//!
//! A new tokio timer is put in the timer driver's wheel under its lock, and taken out again
//! under it when dropped; and one whose deadline is earlier than any the driver already waits
//! for makes tokio wake the thread parked on the driver (an `eventfd` write and a thread woken
//! for nothing). The time limits (60 s idle, 120 s per request by default) are usually the
//! earliest timers of all, so a timer made per request cost two locks and often such a wake-up
//! per model call. A timer kept registered and moved later for the next request costs an
//! atomic store: its old deadline is already in the driver's view, and a later one needs no
//! wake-up. Moving one earlier takes the lock, as a new timer does.

use pin_project_lite::pin_project;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Mutex, PoisonError};
use std::task::{Context, Poll};
use tokio::runtime::{Handle, Id};
use tokio::time::{Instant, Sleep};

/// Timers kept per provider; more than this many requests at once make new ones.
const KEEP: usize = 64;

/// Timers not in use, each with the runtime it belongs to (a timer only works in its own
/// runtime: a provider may outlive one, or serve several).
#[derive(Debug, Default)]
pub(crate) struct TimerPool {
    free: Mutex<Vec<(Id, Pin<Box<Sleep>>)>>,
}

impl TimerPool {
    /// A timer of the current runtime set to fire at `deadline`. Must be called within a
    /// tokio runtime, as any timer.
    pub fn take(&self, deadline: Instant) -> PooledTimer<'_> {
        let runtime = Handle::current().id();
        let kept = {
            let mut free = self.free.lock().unwrap_or_else(PoisonError::into_inner);
            let position = free.iter().rposition(|(id, _)| *id == runtime);
            position.map(|position| free.swap_remove(position).1)
        };
        let sleep = match kept {
            Some(mut sleep) => {
                sleep.as_mut().reset(deadline);
                sleep
            }
            None => Box::pin(tokio::time::sleep_until(deadline)),
        };
        PooledTimer {
            timers: self,
            runtime,
            sleep: Some(sleep),
        }
    }

    fn give_back(&self, runtime: Id, sleep: Pin<Box<Sleep>>) {
        let mut free = self.free.lock().unwrap_or_else(PoisonError::into_inner);
        if free.len() >= KEEP {
            // The oldest goes: it may belong to a runtime that has ended.
            drop(free.remove(0));
        }
        free.push((runtime, sleep));
    }
}

/// A timer in use by one request; it goes back to its [`TimerPool`] when dropped.
#[derive(Debug)]
pub(crate) struct PooledTimer<'a> {
    timers: &'a TimerPool,
    runtime: Id,
    /// Always `Some` until dropped.
    sleep: Option<Pin<Box<Sleep>>>,
}

impl PooledTimer<'_> {
    /// Waits for the deadline.
    pub async fn elapsed(&mut self) {
        std::future::poll_fn(|cx| self.poll_elapsed(cx)).await;
    }

    /// Ready once the deadline has passed.
    pub fn poll_elapsed(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        match self.sleep.as_mut() {
            Some(sleep) => sleep.as_mut().poll(cx),
            None => Poll::Pending,
        }
    }

    /// Moves the deadline.
    pub fn reset(&mut self, deadline: Instant) {
        if let Some(sleep) = self.sleep.as_mut() {
            sleep.as_mut().reset(deadline);
        }
    }

    /// When it fires.
    pub fn deadline(&self) -> Instant {
        self.sleep
            .as_ref()
            .map_or_else(Instant::now, |sleep| sleep.deadline())
    }
}

impl Drop for PooledTimer<'_> {
    fn drop(&mut self) {
        if let Some(sleep) = self.sleep.take() {
            self.timers.give_back(self.runtime, sleep);
        }
    }
}

/// `future`, or `None` once `deadline` has passed; timed by `timer`, which may be set to fire
/// before `deadline` (it is then set again, to `deadline`).
pub(crate) fn within<'t, 'a, F: Future>(
    timer: &'t mut PooledTimer<'a>,
    deadline: Instant,
    future: F,
) -> Within<'t, 'a, F> {
    Within {
        timer,
        deadline,
        future,
    }
}

pin_project! {
    /// The future of [`within`]: the future it times is held in place, not copied into a
    /// future of its own.
    pub(crate) struct Within<'t, 'a, F> {
        timer: &'t mut PooledTimer<'a>,
        deadline: Instant,
        #[pin]
        future: F,
    }
}

impl<F: Future> Future for Within<'_, '_, F> {
    type Output = Option<F::Output>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        if let Poll::Ready(output) = this.future.poll(cx) {
            return Poll::Ready(Some(output));
        }
        while this.timer.poll_elapsed(cx).is_ready() {
            if Instant::now() >= *this.deadline {
                return Poll::Ready(None);
            }
            this.timer.reset(*this.deadline);
        }
        Poll::Pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    const SHORT: Duration = Duration::from_millis(20);

    #[tokio::test]
    async fn a_kept_timer_fires_at_its_new_deadline() {
        let timers = TimerPool::default();
        let start = Instant::now();
        {
            let mut timer = timers.take(start + SHORT);
            timer.elapsed().await;
            assert!(start.elapsed() >= SHORT);
        }
        assert_eq!(timers.free.lock().unwrap().len(), 1);
        // The same timer, moved later: it waits again.
        let again = Instant::now();
        let mut timer = timers.take(again + SHORT);
        assert!(timers.free.lock().unwrap().is_empty());
        timer.elapsed().await;
        assert!(again.elapsed() >= SHORT);
        drop(timer);
        assert_eq!(timers.free.lock().unwrap().len(), 1);
    }

    #[test]
    fn a_timer_is_only_reused_in_its_own_runtime() {
        let timers = TimerPool::default();
        let runtime = || {
            tokio::runtime::Builder::new_current_thread()
                .enable_time()
                .build()
                .unwrap()
        };
        runtime().block_on(async {
            drop(timers.take(Instant::now() + SHORT));
        });
        // The first runtime has ended; its timer is not used by the second.
        runtime().block_on(async {
            let start = Instant::now();
            let mut timer = timers.take(start + SHORT);
            timer.elapsed().await;
            assert!(start.elapsed() >= SHORT);
        });
        assert_eq!(timers.free.lock().unwrap().len(), 2);
    }
}
