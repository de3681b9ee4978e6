//! The timers that enforce the idle-stream limit, kept from one stream to the next.
//!
//! A new tokio timer whose deadline is earlier than any the timer driver already waits for
//! makes tokio wake the thread parked on the driver (an `eventfd` write and a thread woken for
//! nothing). The idle limit (60 s by default) is usually the earliest timer of all, so a timer
//! made per stream cost one such wake-up per streamed call. A timer kept registered and moved
//! later for the next stream costs an atomic store: its old deadline is already in the driver's
//! view, and a later one needs no wake-up.

use std::pin::Pin;
use std::sync::{Mutex, PoisonError};
use tokio::runtime::{Handle, Id};
use tokio::time::{Instant, Sleep};

/// Timers kept per provider; more than this many streams at once make new ones.
const KEEP: usize = 64;

/// Idle timers not in use, each with the runtime it belongs to (a timer only works in its own
/// runtime: a provider may outlive one, or serve several).
#[derive(Debug, Default)]
pub(crate) struct IdleTimers {
    free: Mutex<Vec<(Id, Pin<Box<Sleep>>)>>,
}

impl IdleTimers {
    /// A timer of the current runtime set to fire at `deadline`. Must be called within a
    /// tokio runtime, as any timer.
    pub fn take(&self, deadline: Instant) -> IdleTimer<'_> {
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
        IdleTimer {
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

/// A timer in use by one stream; it goes back to its [`IdleTimers`] when dropped.
#[derive(Debug)]
pub(crate) struct IdleTimer<'a> {
    timers: &'a IdleTimers,
    runtime: Id,
    /// Always `Some` until dropped.
    sleep: Option<Pin<Box<Sleep>>>,
}

impl IdleTimer<'_> {
    /// Waits for the deadline.
    pub async fn elapsed(&mut self) {
        if let Some(sleep) = self.sleep.as_mut() {
            sleep.as_mut().await;
        }
    }

    /// Moves the deadline.
    pub fn reset(&mut self, deadline: Instant) {
        if let Some(sleep) = self.sleep.as_mut() {
            sleep.as_mut().reset(deadline);
        }
    }
}

impl Drop for IdleTimer<'_> {
    fn drop(&mut self) {
        if let Some(sleep) = self.sleep.take() {
            self.timers.give_back(self.runtime, sleep);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    const SHORT: Duration = Duration::from_millis(20);

    #[tokio::test]
    async fn a_kept_timer_fires_at_its_new_deadline() {
        let timers = IdleTimers::default();
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
        let timers = IdleTimers::default();
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
