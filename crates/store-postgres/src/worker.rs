//! The thread that talks to the server.
//!
//! The store traits are synchronous (the embedded SQLite store answers in microseconds, and
//! async callers call it inline), while the PostgreSQL driver is async. Calling `block_on`
//! from inside a tokio runtime panics, and agentctl calls the store from inside one. So each
//! [`PgStore`](crate::PgStore) owns one thread running its own current-thread runtime, where
//! the connection pool and its connections live; a trait call sends its query as a future to
//! that thread and blocks the calling thread until the answer comes back — as SQLite's file
//! I/O blocks it. Calls from several threads run concurrently on the pool.
//!
//! Dropping the store closes the channel: the thread finishes, its runtime drops the
//! connections (the server releases their locks) and the thread is joined.

use std::future::Future;
use std::pin::Pin;
use std::sync::mpsc;
use std::thread::JoinHandle;
use tokio::sync::mpsc::{UnboundedSender, unbounded_channel};

type Job = Pin<Box<dyn Future<Output = ()> + Send>>;

/// A thread with a tokio runtime that runs the futures it is sent.
pub(crate) struct Worker {
    jobs: Option<UnboundedSender<Job>>,
    thread: Option<JoinHandle<()>>,
}

/// The worker's thread is gone (it could not start its runtime, or panicked).
#[derive(Debug)]
pub(crate) struct WorkerGone;

impl Worker {
    /// Starts the thread.
    pub(crate) fn start() -> std::io::Result<Self> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let (jobs, mut inbox) = unbounded_channel::<Job>();
        let thread = std::thread::Builder::new()
            .name("agentctl-postgres".into())
            .spawn(move || {
                runtime.block_on(async move {
                    while let Some(job) = inbox.recv().await {
                        tokio::spawn(job);
                    }
                });
            })?;
        Ok(Self {
            jobs: Some(jobs),
            thread: Some(thread),
        })
    }

    /// Runs `future` on the worker's runtime and waits for its output.
    pub(crate) fn run<T, F>(&self, future: F) -> Result<T, WorkerGone>
    where
        T: Send + 'static,
        F: Future<Output = T> + Send + 'static,
    {
        let (answer, reply) = mpsc::sync_channel(1);
        let job: Job = Box::pin(async move {
            // The caller waits for this answer; it only goes missing if the caller is gone.
            let _ = answer.send(future.await);
        });
        self.jobs
            .as_ref()
            .ok_or(WorkerGone)?
            .send(job)
            .map_err(|_| WorkerGone)?;
        reply.recv().map_err(|_| WorkerGone)
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.jobs = None;
        if let Some(thread) = self.thread.take() {
            // The runtime drops its tasks as soon as the channel closes: a short wait.
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_from_inside_and_outside_a_runtime() {
        let worker = Worker::start().unwrap();
        assert_eq!(worker.run(async { 1 + 1 }).unwrap(), 2);
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        // A sync call inside async code: the caller blocks, the worker's runtime answers.
        let answer = runtime.block_on(async {
            worker
                .run(async {
                    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
                    "slept"
                })
                .unwrap()
        });
        assert_eq!(answer, "slept");
    }

    #[test]
    fn calls_from_many_threads_run_concurrently() {
        let worker = std::sync::Arc::new(Worker::start().unwrap());
        let barrier = std::sync::Arc::new(tokio::sync::Barrier::new(4));
        let threads: Vec<_> = (0..4)
            .map(|n| {
                let (worker, barrier) = (worker.clone(), barrier.clone());
                // Each waits for all four: only concurrent futures get past the barrier.
                std::thread::spawn(move || {
                    worker
                        .run(async move {
                            barrier.wait().await;
                            n
                        })
                        .unwrap()
                })
            })
            .collect();
        let mut answers: Vec<i32> = threads.into_iter().map(|t| t.join().unwrap()).collect();
        answers.sort_unstable();
        assert_eq!(answers, [0, 1, 2, 3]);
    }
}
