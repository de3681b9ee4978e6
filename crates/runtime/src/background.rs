//! The background work of one run ([`Background`]): each piece spawned on the runtime,
//! cancelled when the run ends or is cancelled, at most `limit` at once.

use agentctl_core::Background;
use futures_util::future::BoxFuture;
use std::sync::atomic::{AtomicUsize, Ordering};
use tokio::sync::{Mutex, mpsc};
use tokio_util::sync::CancellationToken;

/// A run's background tasks and the results they sent.
pub(crate) struct BackgroundTasks {
    sender: mpsc::UnboundedSender<String>,
    results: Mutex<mpsc::UnboundedReceiver<String>>,
    outstanding: AtomicUsize,
    limit: usize,
    /// Cancelled with the run, and when the run's state is dropped.
    cancel: CancellationToken,
}

impl BackgroundTasks {
    /// The background of a run cancelled by `run`, at most `limit` tasks at once.
    pub(crate) fn new(run: &CancellationToken, limit: usize) -> Self {
        let (sender, results) = mpsc::unbounded_channel();
        Self {
            sender,
            results: Mutex::new(results),
            outstanding: AtomicUsize::new(0),
            limit: limit.max(1),
            cancel: run.child_token(),
        }
    }
}

impl Drop for BackgroundTasks {
    fn drop(&mut self) {
        self.cancel.cancel();
    }
}

impl Background for BackgroundTasks {
    fn start(&self, work: BoxFuture<'static, String>) -> Result<(), String> {
        let running = self.outstanding.load(Ordering::SeqCst);
        if running >= self.limit {
            return Err(format!(
                "{running} background tasks are running, the most this run may have \
                 (agents.maxParallel); wait for one to finish"
            ));
        }
        self.outstanding.fetch_add(1, Ordering::SeqCst);
        let sender = self.sender.clone();
        let cancel = self.cancel.clone();
        tokio::spawn(async move {
            tokio::select! {
                () = cancel.cancelled() => {}
                text = work => {
                    let _ = sender.send(text);
                }
            }
        });
        Ok(())
    }

    fn next(&self) -> BoxFuture<'_, Option<String>> {
        Box::pin(async move {
            if self.outstanding.load(Ordering::SeqCst) == 0 {
                return None;
            }
            let text = self.results.lock().await.recv().await?;
            self.outstanding.fetch_sub(1, Ordering::SeqCst);
            Some(text)
        })
    }
}
