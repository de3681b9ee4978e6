//! Lost wake-ups: thousands of streamed runs through the runtime and the OpenAI provider against
//! the instant server, on two worker threads, each under a watchdog.
//!
//! A run's handle hands the run between its own task and its reader, and every streamed chunk
//! wakes whichever of them drives it; a wake-up that reaches nobody leaves a run waiting
//! forever with its answer already read from the socket. Such a race shows in one run of
//! thousands: a change that skipped re-registering an unchanged waker (reverted in b6493f8)
//! passed every other test and hung only the benchmark; the sequential test here caught it in
//! 6 of 6 tries (stalling between its 290th and 6,932nd run). The concurrent one reads runs in
//! every way a front end does: at once, late (after the run's task has driven it for a while),
//! through `result()`, and dropped partway.

use super::common::lookup_runtime;
use agentctl_core::{RunEvent, RunOptions};
use agentctl_runtime::{RunHandle, Runtime};
use agentctl_test_support::{INSTANT_ANSWER, InstantServer, agent};
use futures_util::StreamExt;
use std::time::Duration;

/// Runs one after another, each read at once by one reader while the rest of the runtime is
/// idle: the answer's chunks then come from the connection's task on the other worker thread,
/// racing the reader's polls (where a lost wake-up shows most).
const SEQUENTIAL: usize = 8000;

/// Runs at once, and rounds each of them makes.
const READERS: usize = 16;
const ROUNDS: usize = 50;

/// Far longer than a run against the instant server takes, even in a debug build on a busy
/// machine: a run still going after this lost a wake-up.
const WATCHDOG: Duration = Duration::from_secs(20);

/// How a front end reads a run.
#[derive(Debug, Clone, Copy)]
enum Reading {
    /// Every event, from the start.
    AtOnce,
    /// Every event, after the run has gone on without a reader for a while.
    Late,
    /// Only the result.
    Result,
    /// The first few events, then the handle is dropped (which cancels the run).
    DroppedPartway,
}

impl Reading {
    fn of(reader: usize, round: usize) -> Self {
        match (reader + round) % 4 {
            0 => Self::AtOnce,
            1 => Self::Late,
            2 => Self::Result,
            _ => Self::DroppedPartway,
        }
    }
}

/// Reads `run` as `reading` says; the answer it read, if it read to the end.
async fn read(mut run: RunHandle, reading: Reading) -> Option<String> {
    match reading {
        Reading::AtOnce | Reading::Late => {
            if let Reading::Late = reading {
                tokio::task::yield_now().await;
                tokio::time::sleep(Duration::from_micros(200)).await;
            }
            let mut answer = String::new();
            while let Some(event) = run.next().await {
                match event {
                    RunEvent::TextDelta { text, .. } => answer.push_str(&text),
                    RunEvent::RunFailed { error } => panic!("a run failed: {error}"),
                    _ => {}
                }
            }
            Some(answer)
        }
        Reading::Result => match run.result().await {
            Ok(result) => Some(result.text),
            Err(error) => panic!("a run failed: {error}"),
        },
        Reading::DroppedPartway => {
            for _ in 0..3 {
                run.next().await;
            }
            None
        }
    }
}

/// One run, read as `reading` says, under the watchdog.
async fn run_once(runtime: &Runtime, reading: Reading, which: &str) {
    let run = runtime.run(
        &agent("clerk"),
        "What is the capital of France?",
        RunOptions::new().stream(true),
    );
    let answer = tokio::time::timeout(WATCHDOG, read(run, reading))
        .await
        .unwrap_or_else(|_| {
            panic!("{which} ({reading:?}) stalled for {WATCHDOG:?}: a wake-up was lost")
        });
    if let Some(answer) = answer {
        assert_eq!(answer, INSTANT_ANSWER, "{which} ({reading:?})");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn thousands_of_streamed_runs_one_after_another_all_end() {
    let server = InstantServer::start().expect("the instant server starts");
    let runtime = lookup_runtime(&server.base_url());
    // On a worker thread, as a server's request handler reads a run.
    tokio::spawn(async move {
        for index in 0..SEQUENTIAL {
            run_once(&runtime, Reading::AtOnce, &format!("run {index}")).await;
        }
    })
    .await
    .expect("the reader panicked");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn thousands_of_streamed_runs_read_every_way_at_once_all_end() {
    let server = InstantServer::start().expect("the instant server starts");
    let runtime = lookup_runtime(&server.base_url());
    let readers = (0..READERS).map(|reader| {
        let runtime = runtime.clone();
        tokio::spawn(async move {
            for round in 0..ROUNDS {
                let which = format!("run {round} of reader {reader}");
                run_once(&runtime, Reading::of(reader, round), &which).await;
            }
        })
    });
    for reader in futures_util::future::join_all(readers).await {
        reader.expect("a reader panicked");
    }
}
