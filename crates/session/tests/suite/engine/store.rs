//! Store writes off the async workers: a store whose writes take 200 ms (and whose first write
//! waits for another session's turn) delays no other session's turn on the same one-thread
//! runtime, nor does one that takes as long to create a session; a turn waits for its own writes before it finishes; a turn whose writes fail fails;
//! a handoff's end and its target's start are one commit; a commit that fails after the run
//! was told its start fails the run, and one that held a run's ending leaves it `failed`, not
//! `running`; the sessions of a SQLite store write on one thread, which
//! no model holds up (a workspace is summarised off it).

use super::hooked::{Hooked, refused};
use super::wire::{answer, call, options};
use agentctl_core::{ContextMode, Message, Settings};
use agentctl_session::{Agent, RuntimeBuilder, Session, SessionError, Target, TurnOptions};
use agentctl_store::{
    ContextScope, MessageLog as _, MessageQuery, NewMessage, RunStatus, SessionLog as _,
    SessionStore,
};
use agentctl_store_sqlite::SqliteStore;
use agentctl_test_support::{FakeServer, Reply, openai};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

/// What happened, in order, across the sessions and the store thread.
#[derive(Clone, Default)]
struct Log(Arc<Mutex<Vec<String>>>);

impl Log {
    fn push(&self, line: impl Into<String>) {
        self.0.lock().unwrap().push(line.into());
    }

    fn lines(&self) -> Vec<String> {
        self.0.lock().unwrap().clone()
    }

    fn position(&self, line: &str) -> usize {
        let lines = self.lines();
        lines
            .iter()
            .position(|found| found == line)
            .unwrap_or_else(|| panic!("no `{line}` in {lines:#?}"))
    }
}

/// A latch the store thread waits on (at most `limit`) until the test opens it.
#[derive(Clone, Default)]
struct Latch(Arc<(Mutex<bool>, Condvar)>);

impl Latch {
    fn open(&self) {
        *self.0.0.lock().unwrap() = true;
        self.0.1.notify_all();
    }

    fn wait(&self, limit: Duration) {
        let open = self.0.0.lock().unwrap();
        let _ = self
            .0
            .1
            .wait_timeout_while(open, limit, |open| !*open)
            .unwrap();
    }
}

async fn session(
    server: &FakeServer,
    root: &Path,
    name: &str,
    store: Option<Arc<dyn SessionStore>>,
) -> Session {
    let runtime = RuntimeBuilder::with_settings(Settings::default(), root)
        .provider_options(options(server, root));
    let agent = Agent::new(name, format!("You are {name}.")).model("openai:gpt-4o-mini");
    let mut builder = Session::builder().runtime(runtime).agent(agent);
    if let Some(store) = store {
        builder = builder.store(store);
    }
    builder.build().await.unwrap()
}

#[tokio::test(flavor = "current_thread")]
async fn writes_taking_200_ms_delay_no_other_sessions_turn() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeServer::openai().await;
    answer(&server, "Done.");
    answer(&server, "Done.");
    let log = Log::default();
    let other_done = Latch::default();
    let first_write = Arc::new(tokio::sync::Notify::new());
    let writes = Arc::new(AtomicUsize::new(0));
    let hook = {
        let (log, other_done, first_write) = (log.clone(), other_done.clone(), first_write.clone());
        move |what: &str| {
            let n = writes.fetch_add(1, Ordering::SeqCst);
            log.push(format!("slow {what} {n} begins"));
            if n == 0 {
                first_write.notify_one();
                // Held until the other session's turn is over: a write on the async worker
                // would keep that turn from running at all (the runtime has one thread).
                other_done.wait(Duration::from_secs(10));
            }
            std::thread::sleep(Duration::from_millis(200));
            log.push(format!("slow {what} {n} ends"));
            Ok(())
        }
    };
    let store = Arc::new(Hooked::new(Box::new(hook)));
    let slow = session(&server, dir.path(), "slow", Some(store.clone())).await;
    let fast = session(&server, dir.path(), "fast", None).await;

    let turn = slow.turn(Target::Active, "Hello", TurnOptions::new());
    first_write.notified().await;
    let answer = fast.ask("Hello").await.unwrap();
    assert_eq!(answer.text, "Done.");
    log.push("fast turn finished");
    other_done.open();
    let outcome = turn.finish().await;
    log.push("slow turn finished");
    assert_eq!(outcome.result.unwrap().text, "Done.");

    // The other session's whole turn ran while the slow store's first write was under way.
    let lines = log.lines();
    let first_write_ends = lines
        .iter()
        .position(|line| line.starts_with("slow ") && line.ends_with(" 0 ends"))
        .unwrap();
    assert!(
        log.position("fast turn finished") < first_write_ends,
        "{lines:#?}"
    );
    // The slow turn finished only once all its writes were done, and they are all there.
    let finished = log.position("slow turn finished");
    let lines = log.lines();
    let last_write = lines
        .iter()
        .rposition(|line| line.ends_with(" ends"))
        .unwrap();
    assert!(last_write < finished, "{lines:#?}");
    let session = slow.id().unwrap().to_owned();
    let stored = store.messages(&session, &MessageQuery::timeline()).unwrap();
    assert_eq!(stored.len(), 2, "the prompt and the answer: {stored:?}");
    assert!(store.session(&session).is_ok());
    slow.shutdown().await;
    fast.shutdown().await;
    server.assert_no_violations();
}

#[tokio::test(flavor = "current_thread")]
async fn a_session_created_on_a_slow_store_delays_no_other_sessions_turn() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeServer::openai().await;
    answer(&server, "Done.");
    answer(&server, "Done.");
    let log = Log::default();
    let (other_done, creating) = (Latch::default(), Arc::new(tokio::sync::Notify::new()));
    let hook = {
        let (log, other_done, creating) = (log.clone(), other_done.clone(), creating.clone());
        move |_: &str| {
            log.push("slow session is being created");
            creating.notify_one();
            // Held until the other session's turn is over: created on the async worker, the
            // session would keep that turn from running at all (the runtime has one thread).
            other_done.wait(Duration::from_secs(10));
            std::thread::sleep(Duration::from_millis(200));
            log.push("slow session created");
            Ok(())
        }
    };
    let store = Arc::new(Hooked::new(Box::new(|_: &str| Ok(()))).creating_with(Box::new(hook)));
    let fast = session(&server, dir.path(), "fast", None).await;
    let building = session(&server, dir.path(), "slow", Some(store.clone()));
    let other_turn = async {
        creating.notified().await;
        assert_eq!(fast.ask("Hello").await.unwrap().text, "Done.");
        log.push("fast turn finished");
        other_done.open();
    };
    let (slow, ()) = tokio::join!(building, other_turn);
    assert_eq!(slow.ask("Hello").await.unwrap().text, "Done.");

    assert_eq!(
        log.lines(),
        [
            "slow session is being created",
            "fast turn finished",
            "slow session created"
        ]
    );
    let session = slow.id().unwrap().to_owned();
    let stored = store.messages(&session, &MessageQuery::timeline()).unwrap();
    assert_eq!(stored.len(), 2, "the prompt and the answer: {stored:?}");
    slow.shutdown().await;
    fast.shutdown().await;
    server.assert_no_violations();
}

#[tokio::test]
async fn a_turn_whose_writes_fail_fails() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeServer::openai().await;
    answer(&server, "Done.");
    let turns = AtomicUsize::new(0);
    // The run's start is written; the turn the model answered cannot be.
    let hook = move |what: &str| match what {
        "record_turn" if turns.fetch_add(1, Ordering::SeqCst) > 0 => Err(refused(what)),
        _ => Ok(()),
    };
    let store: Arc<dyn SessionStore> = Arc::new(Hooked::new(Box::new(hook)));
    let session = session(&server, dir.path(), "writer", Some(store)).await;
    not_saved(&session, "record_turn refused by the test").await;
    session.shutdown().await;
    server.assert_no_violations();
}

/// Asks `session` a question whose turn cannot be saved: the turn fails, saying `why`.
async fn not_saved(session: &Session, why: &str) {
    let error = session.ask("Hello").await.unwrap_err();
    let SessionError::NotSaved(cause) = &error else {
        panic!("{error:?}")
    };
    assert!(cause.to_string().contains(why), "{cause}");
    assert!(
        error
            .to_string()
            .starts_with("the session could not be saved"),
        "{error}"
    );
}

#[tokio::test]
async fn a_commit_that_fails_after_the_run_was_told_its_start_fails_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeServer::openai().await;
    answer(&server, "Done.");
    let commits = AtomicUsize::new(0);
    // The run's start is written and the run goes on before its commit, which fails.
    let hook = move |what: &str| match what {
        "batch committed" if commits.fetch_add(1, Ordering::SeqCst) == 0 => Err(refused(what)),
        _ => Ok(()),
    };
    let store: Arc<dyn SessionStore> = Arc::new(Hooked::new(Box::new(hook)));
    let session = session(&server, dir.path(), "writer", Some(Arc::clone(&store))).await;
    let why = "was not committed: session store hooked: batch committed refused";
    not_saved(&session, why).await;
    // Nothing more of the run was written once its start was lost (this store reports the
    // failure after its commit, so the start itself is there).
    let id = session.id().unwrap().to_owned();
    let runs = store.runs(&id).unwrap();
    assert!(
        runs.iter().all(|run| run.status == RunStatus::Running),
        "{runs:?}"
    );
    session.shutdown().await;
    server.assert_no_violations();
}

#[tokio::test]
async fn the_sessions_of_a_single_writer_store_write_on_one_thread() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeServer::openai().await;
    for _ in 0..3 {
        answer(&server, "Done.");
    }
    let threads = Arc::new(Mutex::new(Vec::new()));
    let hook = {
        let threads = Arc::clone(&threads);
        move |_: &str| {
            threads.lock().unwrap().push(std::thread::current().id());
            Ok(())
        }
    };
    let store: Arc<dyn SessionStore> = Arc::new(Hooked::new(Box::new(hook)));
    let one = session(&server, dir.path(), "one", Some(Arc::clone(&store))).await;
    let two = session(&server, dir.path(), "two", Some(Arc::clone(&store))).await;
    let (first, second) = tokio::join!(one.ask("Hello"), two.ask("Hello"));
    assert_eq!(first.unwrap().text, "Done.");
    assert_eq!(second.unwrap().text, "Done.");
    one.shutdown().await;
    two.shutdown().await;
    // The thread outlives its sessions: the store's next session writes on it too.
    let three = session(&server, dir.path(), "three", Some(Arc::clone(&store))).await;
    assert_eq!(three.ask("Hello").await.unwrap().text, "Done.");
    three.shutdown().await;
    let mut threads = threads.lock().unwrap().clone();
    assert!(threads.len() > 6, "{threads:?}");
    threads.dedup();
    assert_eq!(threads.len(), 1, "{threads:?}");
    assert_ne!(threads[0], std::thread::current().id());
    server.assert_no_violations();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_workspace_being_summarised_holds_back_no_other_sessions_turn() {
    let dir = tempfile::tempdir().unwrap();
    let store: Arc<dyn SessionStore> =
        Arc::new(SqliteStore::open(&dir.path().join("sessions.db")).unwrap());
    // The reader's workspace is past gpt-4's window (8,192 tokens): its next run is
    // summarised first, by a model that takes its time.
    let slow = FakeServer::openai().await;
    let summary = openai::text_response("Summary: lorem ipsum, at length.");
    slow.push(Reply::json(200, &summary).delayed(Duration::from_secs(3)));
    answer(&slow, "Read.");
    let reader = {
        let runtime = RuntimeBuilder::with_settings(Settings::default(), dir.path())
            .provider_options(options(&slow, dir.path()));
        let agent = Agent::new("reader", "You read.")
            .model("openai:gpt-4")
            .context_mode(ContextMode::Isolated);
        let session = Session::builder().runtime(runtime).agent(agent);
        session.store(Arc::clone(&store)).build().await.unwrap()
    };
    let long = "lorem ipsum ".repeat(1_500);
    let past: Vec<NewMessage> = (0..6)
        .map(|_| {
            NewMessage::new(
                ContextScope::agent("reader"),
                Some("reader"),
                Message::user(&long),
            )
        })
        .collect();
    store
        .append_messages(reader.id().unwrap(), None, &past)
        .unwrap();
    let fast = FakeServer::openai().await;
    answer(&fast, "Done.");
    let writer = session(&fast, dir.path(), "writer", Some(Arc::clone(&store))).await;

    let reading = tokio::spawn({
        let reader = reader.clone();
        async move { reader.ask("One more?").await }
    });
    while slow.requests().is_empty() {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // The other session of the store starts, records and finishes a turn while the summary
    // is being written: the store thread they share is not waiting for that model.
    assert_eq!(writer.ask("Hello").await.unwrap().text, "Done.");
    assert_eq!(
        slow.requests().len(),
        1,
        "the summary is still being written"
    );
    assert!(!reading.is_finished());
    assert_eq!(reading.await.unwrap().unwrap().text, "Read.");
    let summary = store
        .latest_summary(reader.id().unwrap(), &ContextScope::agent("reader"))
        .unwrap()
        .unwrap();
    assert_eq!(summary.summary_text, "Summary: lorem ipsum, at length.");
    reader.shutdown().await;
    writer.shutdown().await;
    slow.assert_no_violations();
    fast.assert_no_violations();
}

/// A session whose `triage` agent hands off to `billing`, recorded in `store`.
async fn handoff_session(
    server: &FakeServer,
    root: &Path,
    store: Arc<dyn SessionStore>,
) -> Session {
    let runtime = RuntimeBuilder::with_settings(Settings::default(), root)
        .provider_options(options(server, root));
    let model = "openai:gpt-4o-mini";
    Session::builder()
        .runtime(runtime)
        .agent(
            Agent::new("triage", "Route the request.")
                .model(model)
                .handoff("billing"),
        )
        .agent(Agent::new("billing", "Answer billing questions.").model(model))
        .store(store)
        .build()
        .await
        .unwrap()
}

/// A folder and a strict fake whose first answer is triage's handoff to billing.
async fn handing_off() -> (tempfile::TempDir, FakeServer) {
    let server = FakeServer::openai().await;
    call(
        &server,
        "call_1",
        "handoff_to_billing",
        r#"{"reason":"a refund"}"#,
    );
    (tempfile::tempdir().unwrap(), server)
}

#[tokio::test]
async fn a_handoffs_end_and_its_targets_start_are_one_commit() {
    let (dir, server) = handing_off().await;
    answer(&server, "Refunded.");
    let log = Log::default();
    let hook = {
        let log = log.clone();
        move |what: &str| {
            log.push(what);
            Ok(())
        }
    };
    let store: Arc<dyn SessionStore> = Arc::new(Hooked::new(Box::new(hook)));
    let session = handoff_session(&server, dir.path(), Arc::clone(&store)).await;
    let answer = session
        .ask_agent("triage", "I want a refund")
        .await
        .unwrap();
    assert_eq!(answer.text, "Refunded.");
    // Every write is part of a batch of the store thread; one of them holds triage's last
    // turn, status and handoff, then billing's start.
    let lines = log.lines();
    let mut batches: Vec<Vec<&str>> = Vec::new();
    let mut open = false;
    for line in &lines {
        match line.as_str() {
            "batch" => {
                batches.push(Vec::new());
                open = true;
            }
            "batch committed" => open = false,
            write => {
                assert!(open, "{write} outside a batch: {lines:#?}");
                batches.last_mut().unwrap().push(write);
            }
        }
    }
    let handoff = [
        "record_turn",
        "finish_run",
        "write_handoff",
        "start_run",
        "record_turn",
    ];
    // A batch may hold more (it stays open for the writes that follow while nobody waits
    // for its commit), never less.
    assert!(
        batches
            .iter()
            .any(|batch| batch.windows(handoff.len()).any(|writes| writes == handoff)),
        "{lines:#?}"
    );
    let id = session.id().unwrap().to_owned();
    let runs = store.runs(&id).unwrap();
    assert_eq!(runs.len(), 2);
    assert_eq!(
        (runs[0].agent.as_str(), runs[0].status),
        ("triage", RunStatus::Completed)
    );
    assert_eq!(
        (runs[1].agent.as_str(), runs[1].status),
        ("billing", RunStatus::Completed)
    );
    assert_eq!(runs[1].parent_run_id, Some(runs[0].id));
    session.shutdown().await;
    server.assert_no_violations();
}

#[tokio::test]
async fn a_handoff_whose_commit_fails_fails_the_turn() {
    let (dir, server) = handing_off().await;
    let hook = |what: &str| match what {
        "batch committed" => Err(refused(what)),
        _ => Ok(()),
    };
    let store: Arc<dyn SessionStore> = Arc::new(Hooked::new(Box::new(hook)));
    let session = handoff_session(&server, dir.path(), store).await;
    let error = session
        .ask_agent("triage", "I want a refund")
        .await
        .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("batch committed refused by the test"),
        "{error}"
    );
    session.shutdown().await;
    server.assert_no_violations();
}

#[tokio::test]
async fn a_run_whose_ending_was_not_committed_is_marked_failed_not_left_running() {
    let (dir, server) = handing_off().await;
    answer(&server, "Refunded.");
    // Only the batch holding triage's end (its handoff) and billing's start fails to commit.
    let ending = Arc::new(AtomicBool::new(false));
    let hook = {
        let ending = ending.clone();
        move |what: &str| match what {
            "batch" => {
                ending.store(false, Ordering::SeqCst);
                Ok(())
            }
            "write_handoff" => {
                ending.store(true, Ordering::SeqCst);
                Ok(())
            }
            "batch committed" if ending.swap(false, Ordering::SeqCst) => Err(refused(what)),
            _ => Ok(()),
        }
    };
    let store: Arc<dyn SessionStore> = Arc::new(Hooked::new(Box::new(hook)));
    let session = handoff_session(&server, dir.path(), Arc::clone(&store)).await;
    let error = session
        .ask_agent("triage", "I want a refund")
        .await
        .unwrap_err();
    assert!(matches!(error, SessionError::NotSaved(_)), "{error:?}");
    let runs = store.runs(session.id().unwrap()).unwrap();
    let triage = runs.iter().find(|run| run.agent == "triage").unwrap();
    assert_eq!(triage.status, RunStatus::Failed, "{runs:#?}");
    session.shutdown().await;
    server.assert_no_violations();
}
