//! Store writes off the async workers: a store whose writes take 200 ms (and whose first write
//! waits for another session's turn) delays no other session's turn on the same one-thread
//! runtime; a turn waits for its own writes before it finishes; a turn whose writes fail fails;
//! a handoff's end and its target's start are one commit.

use super::hooked::{Hooked, refused};
use super::wire::{answer, call, options};
use agentctl_core::Settings;
use agentctl_session::{Agent, RuntimeBuilder, Session, SessionError, Target, TurnOptions};
use agentctl_store::{MessageLog as _, MessageQuery, RunStatus, SessionLog as _, SessionStore};
use agentctl_test_support::FakeServer;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
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

fn session(
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
    builder.build().unwrap()
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
    let slow = session(&server, dir.path(), "slow", Some(store.clone()));
    let fast = session(&server, dir.path(), "fast", None);

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
    assert!(
        log.position("fast turn finished") < log.position("slow start_run 0 ends"),
        "{:#?}",
        log.lines()
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
    let session = session(&server, dir.path(), "writer", Some(store));
    let error = session.ask("Hello").await.unwrap_err();
    let SessionError::NotSaved(cause) = &error else {
        panic!("{error:?}")
    };
    assert!(
        cause
            .to_string()
            .contains("record_turn refused by the test"),
        "{cause}"
    );
    assert!(
        error
            .to_string()
            .starts_with("the session could not be saved"),
        "{error}"
    );
    session.shutdown().await;
    server.assert_no_violations();
}

/// A session whose `triage` agent hands off to `billing`, recorded in `store`.
fn handoff_session(server: &FakeServer, root: &Path, store: Arc<dyn SessionStore>) -> Session {
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
    let session = handoff_session(&server, dir.path(), Arc::clone(&store));
    let answer = session
        .ask_agent("triage", "I want a refund")
        .await
        .unwrap();
    assert_eq!(answer.text, "Refunded.");
    let lines = log.lines();
    let batch = log.position("batch");
    let committed = log.position("batch committed");
    // Inside the batch: triage's last turn, status and handoff, then billing's start.
    let inside: Vec<&str> = lines[batch + 1..committed]
        .iter()
        .map(String::as_str)
        .collect();
    assert_eq!(
        inside,
        [
            "record_turn",
            "finish_run",
            "write_handoff",
            "start_run",
            "record_turn"
        ],
        "{lines:#?}"
    );
    assert_eq!(lines.iter().filter(|line| *line == "batch").count(), 1);
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
    let session = handoff_session(&server, dir.path(), store);
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
