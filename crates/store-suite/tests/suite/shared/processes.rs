//! Several processes on one session: 4 processes × 25 turns, every turn kept and in order per
//! process, no turn interleaved with another; and a killed process's run found stale.
//!
//! The processes are this test binary started again to run only a child test, which does
//! nothing in a normal run (its variables are unset).

use super::{new_run, text_of, turn};
use agentctl_core::{ContextMode, Usage};
use agentctl_store::*;
use agentctl_store_suite::{Backend, FreshStore, backends, open_location};
use serde_json::json;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

const LOCATION: &str = "AGENTCTL_SHARED_SUITE_LOCATION";
const SESSION: &str = "AGENTCTL_SHARED_SUITE_SESSION";
const WRITER: &str = "AGENTCTL_SHARED_SUITE_WRITER";
const PROCESSES: usize = 4;
const TURNS: usize = 25;

fn child(test: &str, fresh: &FreshStore, session: &str, writer: usize) -> Command {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .args([
            "--exact",
            test,
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(LOCATION, &fresh.location)
        .env(SESSION, session)
        .env(WRITER, writer.to_string())
        .stdin(Stdio::null());
    command
}

/// A writer process: one run of [`TURNS`] turns, each one transaction of two messages and a
/// step, as `agentctl run --session ID` records them.
#[test]
#[ignore = "a child process: its parent test runs it with --ignored"]
fn child_turn_writer() {
    let (Ok(location), Ok(session), Ok(writer)) = (
        std::env::var(LOCATION),
        std::env::var(SESSION),
        std::env::var(WRITER),
    ) else {
        return;
    };
    let store = open_location(&location);
    let agent = format!("process-{writer}");
    open_session(&*store, &SessionChoice::Resume(session.clone())).unwrap();
    store.interrupt_stale_runs(&session).unwrap();
    let run = store
        .start_run(&session, &new_run(&agent, ContextMode::Shared))
        .unwrap();
    for n in 0..TURNS {
        store
            .record_turn(
                run.id,
                &turn(&ContextScope::Main, &agent, &format!("{agent} turn {n}")),
                &[NewStep::new("model_call", json!({"turn": n}))],
            )
            .unwrap();
    }
    store
        .finish_run(run.id, RunStatus::Completed, Usage::default())
        .unwrap();
}

fn processes_on_one_session(backend: Backend) {
    let fresh = backend.fresh();
    let session = fresh
        .store
        .create_session(Some("shared by four processes"))
        .unwrap()
        .id;
    let mut children: Vec<_> = (0..PROCESSES)
        .map(|writer| {
            child(
                "suite::shared::processes::child_turn_writer",
                &fresh,
                &session,
                writer,
            )
            .stdout(Stdio::null())
            .spawn()
            .unwrap()
        })
        .collect();
    for child in &mut children {
        assert!(
            child.wait().unwrap().success(),
            "{backend:?}: a writer process failed"
        );
    }
    let store = &fresh.store;
    let runs = store.runs(&session).unwrap();
    assert_eq!(runs.len(), PROCESSES, "{backend:?}");
    assert!(
        runs.iter().all(|run| run.status == RunStatus::Completed),
        "{backend:?}: {runs:#?}"
    );
    let messages = store.messages(&session, &MessageQuery::default()).unwrap();
    assert_eq!(messages.len(), PROCESSES * TURNS * 2, "{backend:?}");
    // No turn interleaved: each turn's call and result are neighbours.
    for pair in messages.chunks(2) {
        assert_eq!(pair[0].run_id, pair[1].run_id, "{backend:?}: {pair:#?}");
        assert_eq!(
            format!("{} result", text_of(&pair[0])),
            text_of(&pair[1]),
            "{backend:?}"
        );
    }
    // All 100 turns, in order per process.
    for writer in 0..PROCESSES {
        let agent = format!("process-{writer}");
        let turns: Vec<String> = messages
            .iter()
            .filter(|m| m.agent.as_deref() == Some(agent.as_str()) && m.role == "assistant")
            .map(text_of)
            .collect();
        assert_eq!(
            turns,
            (0..TURNS)
                .map(|n| format!("{agent} turn {n}"))
                .collect::<Vec<_>>(),
            "{backend:?}"
        );
    }
    for run in &runs {
        let steps: Vec<i64> = store
            .steps(run.id)
            .unwrap()
            .iter()
            .map(|s| s.step_index)
            .collect();
        assert_eq!(steps, (0..TURNS as i64).collect::<Vec<_>>(), "{backend:?}");
    }
}

#[test]
fn four_processes_append_25_turns_each_to_one_session() {
    for backend in backends() {
        processes_on_one_session(backend);
    }
}

/// A process that starts a run, says its id, and waits to be killed.
#[test]
#[ignore = "a child process: its parent test runs it with --ignored"]
fn child_run_holder() {
    let (Ok(location), Ok(session)) = (std::env::var(LOCATION), std::env::var(SESSION)) else {
        return;
    };
    if std::env::var(WRITER).as_deref() != Ok("holder") {
        return;
    }
    let store = open_location(&location);
    let run = store
        .start_run(&session, &new_run("holder", ContextMode::Run))
        .unwrap();
    // The harness may have written `test … ... ` on this line already.
    println!("holder-run={}", run.id);
    std::thread::sleep(std::time::Duration::from_secs(120));
}

#[test]
fn the_run_of_a_killed_process_is_stale_and_a_live_ones_is_not() {
    for backend in backends() {
        let fresh = backend.fresh();
        let session = fresh.store.create_session(None).unwrap().id;
        let mut holders: Vec<_> = (0..2)
            .map(|_| {
                let mut command = child(
                    "suite::shared::processes::child_run_holder",
                    &fresh,
                    &session,
                    0,
                );
                command.env(WRITER, "holder").stdout(Stdio::piped());
                let mut holder = command.spawn().unwrap();
                let mut lines = BufReader::new(holder.stdout.take().unwrap()).lines();
                let run: RunId = loop {
                    let line = lines.next().expect("the holder says its run").unwrap();
                    if let Some((_, id)) = line.split_once("holder-run=") {
                        break id.trim().parse().unwrap();
                    }
                };
                (holder, run)
            })
            .collect();
        let store = &fresh.store;
        assert_eq!(
            store.interrupt_stale_runs(&session).unwrap(),
            0,
            "{backend:?}: both holders live"
        );
        let (mut killed, killed_run) = holders.remove(0);
        killed.kill().unwrap();
        killed.wait().unwrap();
        // The server notices the dropped connection a moment after the process is gone.
        let mut marked = 0;
        for _ in 0..200 {
            marked = store.interrupt_stale_runs(&session).unwrap();
            if marked > 0 {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(25));
        }
        assert_eq!(marked, 1, "{backend:?}");
        assert_eq!(
            store.run(killed_run).unwrap().status,
            RunStatus::Interrupted
        );
        let (mut live, live_run) = holders.remove(0);
        assert_eq!(
            store.run(live_run).unwrap().status,
            RunStatus::Running,
            "{backend:?}"
        );
        live.kill().unwrap();
        live.wait().unwrap();
    }
}
