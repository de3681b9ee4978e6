//! A run's loop, ended early when the run is cancelled ([`until_cancelled`]); the loop is
//! watched once for the whole run, not step by step (each watch allocates its waker and
//! registers with the token, under its locks).
//!
//! `select!` over [`CancellationToken::cancelled`] and the loop polls both at every wake-up of
//! the loop — once per streamed chunk — and polling the token's future takes two locks (the
//! token's node, and the waiter list it sleeps on). Here the token's future is polled once, to
//! register, and again only when the token wakes it: a poll of the loop costs an atomic swap.

use crate::noted_waker::NotedWaker;
use agentctl_core::RunError;
use pin_project_lite::pin_project;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};
use tokio_util::sync::{CancellationToken, WaitForCancellationFuture};

/// Runs `step` to its end, or stops it (dropped) with [`RunError::Cancelled`] as soon as
/// `token` is cancelled — checked before every poll of `step`, so a step whose run was
/// cancelled is never polled again.
pub(crate) fn until_cancelled<F: Future>(
    token: &CancellationToken,
    step: F,
) -> UntilCancelled<'_, F> {
    // Noted as woken: the token's future is polled on the first poll, to register.
    let signal = Arc::new(NotedWaker::new(true));
    UntilCancelled {
        step,
        cancelled: token.cancelled(),
        signal_waker: Waker::from(Arc::clone(&signal)),
        signal,
    }
}

pin_project! {
    /// The future of [`until_cancelled`]: the step is held in place, not copied into a
    /// future of its own.
    pub(crate) struct UntilCancelled<'a, F> {
        #[pin]
        step: F,
        #[pin]
        cancelled: WaitForCancellationFuture<'a>,
        // The waker the token's future keeps: it notes the wake-up and passes it on to the
        // step's current waker.
        signal: Arc<NotedWaker>,
        // `signal` as the waker the token's future is polled with.
        signal_waker: Waker,
    }
}

impl<F: Future> Future for UntilCancelled<'_, F> {
    type Output = Result<F::Output, RunError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        // Registered before the token's future is polled: a cancellation in between wakes
        // this step's waker.
        this.signal.register(cx.waker());
        if this.signal.take_woken()
            && this
                .cancelled
                .poll(&mut Context::from_waker(this.signal_waker))
                .is_ready()
        {
            return Poll::Ready(Err(RunError::Cancelled));
        }
        this.step.poll(cx).map(Ok)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::Duration;

    #[tokio::test]
    async fn a_step_ends_with_its_value() {
        let token = CancellationToken::new();
        let value = until_cancelled(&token, async {
            tokio::task::yield_now().await;
            7
        })
        .await;
        assert!(matches!(value, Ok(7)));
    }

    #[tokio::test]
    async fn an_already_cancelled_token_stops_the_step_before_it_runs() {
        let token = CancellationToken::new();
        token.cancel();
        let ran = AtomicBool::new(false);
        let value = until_cancelled(&token, async { ran.store(true, Ordering::Relaxed) }).await;
        assert!(matches!(value, Err(RunError::Cancelled)));
        assert!(!ran.load(Ordering::Relaxed));
    }

    #[tokio::test]
    async fn cancelling_wakes_and_stops_a_waiting_step() {
        let token = CancellationToken::new();
        let canceller = token.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(20)).await;
            canceller.cancel();
        });
        let value = until_cancelled(&token, std::future::pending::<()>()).await;
        assert!(matches!(value, Err(RunError::Cancelled)));
    }

    #[tokio::test]
    async fn a_cancelled_parent_stops_the_step() {
        let parent = CancellationToken::new();
        let child = parent.child_token();
        let canceller = parent.clone();
        tokio::spawn(async move {
            tokio::task::yield_now().await;
            canceller.cancel();
        });
        let value = until_cancelled(&child, std::future::pending::<()>()).await;
        assert!(matches!(value, Err(RunError::Cancelled)));
    }

    #[tokio::test]
    async fn a_step_woken_often_still_sees_a_late_cancellation() {
        let token = CancellationToken::new();
        let canceller = token.clone();
        let mut polls = 0u32;
        let step = std::future::poll_fn(|cx| {
            polls += 1;
            if polls == 50 {
                canceller.cancel();
            }
            cx.waker().wake_by_ref();
            Poll::<()>::Pending
        });
        let value = until_cancelled(&token, step).await;
        assert!(matches!(value, Err(RunError::Cancelled)));
    }
}
