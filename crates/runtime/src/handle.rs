//! [`RunHandle`]: a run as a stream of its events. The run goes on in a task of its own; its
//! events wait in the handle's outbox and reach the reader in batches, one wake-up each time
//! the run's task yields (see [`crate::events`]).

use crate::events::{self, SharedOutbox};
use agentctl_core::{RunError, RunEvent, RunResult, RunStream};
use futures_util::Stream;
use futures_util::future::BoxFuture;
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// A running agent: a [`Stream`] of [`RunEvent`]s ending after `run_finished` or `run_failed`.
///
/// Dropping the handle cancels the run.
#[derive(Debug)]
pub struct RunHandle {
    run_id: String,
    outbox: SharedOutbox,
    cancel: CancellationToken,
    task: JoinHandle<Result<RunResult, RunError>>,
}

impl RunHandle {
    pub(crate) fn new(
        run_id: String,
        cancel: CancellationToken,
        outbox: SharedOutbox,
        task: JoinHandle<Result<RunResult, RunError>>,
    ) -> Self {
        Self {
            run_id,
            outbox,
            cancel,
            task,
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
        events::close(&self.outbox);
        match (&mut self.task).await {
            Ok(result) => result,
            Err(error) => Err(RunError::Aborted(error.to_string())),
        }
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
        events::poll_next(&self.outbox, cx)
    }
}

impl Drop for RunHandle {
    fn drop(&mut self) {
        if !self.task.is_finished() {
            self.cancel.cancel();
        }
    }
}
