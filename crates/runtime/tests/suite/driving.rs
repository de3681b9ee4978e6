//! Who drives a run: `Runtime::run` itself up to the run's first wait, its own task if it is
//! woken before anyone reads it, then its reader; and wake-ups that reach the wrong one still
//! move the run on.

use super::support::{agent, collect, kinds, text};
use agentctl_core::{
    DeltaSink, ModelProvider, ModelRequest, ModelResponse, ProviderError, RunOptions, Settings,
    ToolRegistry,
};
use agentctl_runtime::Runtime;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::sync::Notify;

/// Answers a moment after it is first asked, waking only the waker of its first poll — which
/// the `Future` contract forbids, and some futures in the wild do anyway.
struct FirstWakerOnly {
    asked: Arc<Notify>,
}

struct Answer {
    ready: Arc<AtomicBool>,
    started: bool,
}

impl Future for Answer {
    type Output = Result<ModelResponse, ProviderError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        if self.ready.load(Ordering::SeqCst) {
            return Poll::Ready(Ok(text("done")));
        }
        if !self.started {
            self.started = true;
            let (ready, waker) = (Arc::clone(&self.ready), cx.waker().clone());
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(100));
                ready.store(true, Ordering::SeqCst);
                waker.wake();
            });
        }
        Poll::Pending
    }
}

#[async_trait::async_trait]
impl ModelProvider for FirstWakerOnly {
    fn name(&self) -> &str {
        "first-waker-only"
    }

    async fn complete(
        &self,
        _request: &ModelRequest,
        _on_delta: DeltaSink<'_>,
    ) -> Result<ModelResponse, ProviderError> {
        self.asked.notify_one();
        Answer {
            ready: Arc::default(),
            started: false,
        }
        .await
    }
}

fn runtime(asked: &Arc<Notify>) -> Runtime {
    let asked = Arc::clone(asked);
    Runtime::new(
        Settings::default(),
        move |_: &agentctl_core::ModelRef, _: &Settings| {
            Ok(Arc::new(FirstWakerOnly {
                asked: Arc::clone(&asked),
            }) as Arc<dyn ModelProvider>)
        },
        ToolRegistry::new(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_goes_on_before_it_is_read_and_its_reader_takes_it_over() {
    let asked = Arc::new(Notify::new());
    let handle = runtime(&asked).run(&agent("a"), "hi", RunOptions::new());
    // Nobody reads yet: the run has started, up to the model call.
    tokio::time::timeout(Duration::from_secs(10), asked.notified())
        .await
        .expect("the run started without being read");
    // The answer wakes the run, which starts a task of its own to drive it; the reader, which
    // polls the run from then on, must still hear of it.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let events = tokio::time::timeout(Duration::from_secs(10), collect(handle))
        .await
        .expect("the run stalled after its reader took it over");
    assert_eq!(
        kinds(&events).last().map(String::as_str),
        Some("run_finished")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_runs_read_at_once_all_finish() {
    let asked = Arc::new(Notify::new());
    let runtime = runtime(&asked);
    let reads = (0..50).map(|_| {
        let handle = runtime.run(&agent("a"), "hi", RunOptions::new());
        tokio::spawn(collect(handle))
    });
    let all = tokio::time::timeout(
        Duration::from_secs(20),
        futures_util::future::join_all(reads),
    )
    .await
    .expect("a run stalled");
    for events in all {
        assert_eq!(
            kinds(&events.unwrap()).last().map(String::as_str),
            Some("run_finished")
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_result_of_a_run_read_partway() {
    use futures_util::StreamExt;
    let asked = Arc::new(Notify::new());
    let mut handle = runtime(&asked).run(&agent("a"), "hi", RunOptions::new());
    let first = handle.next().await.expect("run_started");
    assert_eq!(kinds(&[first]), ["run_started"]);
    let result = tokio::time::timeout(Duration::from_secs(10), handle.result())
        .await
        .expect("the run stalled")
        .unwrap();
    assert_eq!(result.text, "done");
}

/// Waits (up to 10 s) until the runtime has at most `alive` tasks.
async fn tasks_settle_to(alive: usize) -> usize {
    let metrics = tokio::runtime::Handle::current().metrics();
    for _ in 0..1000 {
        if metrics.num_alive_tasks() <= alive {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    metrics.num_alive_tasks()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn runs_read_to_the_end_leave_no_task_behind() {
    let asked = Arc::new(Notify::new());
    let runtime = runtime(&asked);
    for _ in 0..20 {
        let events = collect(runtime.run(&agent("a"), "hi", RunOptions::new())).await;
        assert_eq!(
            kinds(&events).last().map(String::as_str),
            Some("run_finished")
        );
    }
    assert_eq!(tasks_settle_to(0).await, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_read_at_once_never_has_a_task_of_its_own() {
    let asked = Arc::new(Notify::new());
    let runtime = runtime(&asked);
    let metrics = tokio::runtime::Handle::current().metrics();
    let before = metrics.num_alive_tasks();
    let handle = runtime.run(&agent("a"), "hi", RunOptions::new());
    // The run is at the model call already, and no task was started for it: nothing woke it.
    tokio::time::timeout(Duration::from_millis(50), asked.notified())
        .await
        .expect("the run went up to its first wait in `run`");
    assert_eq!(metrics.num_alive_tasks(), before);
    // Its reader drives it to the end; the answer wakes the reader, not a new task.
    let reading = tokio::spawn(collect(handle));
    tokio::time::sleep(Duration::from_millis(20)).await;
    assert!(
        metrics.num_alive_tasks() <= before + 1,
        "only the reader's task"
    );
    let events = tokio::time::timeout(Duration::from_secs(10), reading)
        .await
        .expect("the run stalled")
        .unwrap();
    assert_eq!(
        kinds(&events).last().map(String::as_str),
        Some("run_finished")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_handle_dropped_after_its_first_event_winds_its_run_down() {
    use futures_util::StreamExt;
    let asked = Arc::new(Notify::new());
    let runtime = runtime(&asked);
    let mut handle = runtime.run(&agent("a"), "hi", RunOptions::new());
    let token = handle.cancellation_token();
    handle.next().await.expect("run_started");
    drop(handle);
    assert!(token.is_cancelled());
    // The run goes on in a task of its own until it sees the cancellation, then ends.
    assert_eq!(tasks_settle_to(0).await, 0);
}
