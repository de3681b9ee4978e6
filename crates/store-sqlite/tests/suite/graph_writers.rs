//! Several writers of one graph: two connections (what two processes resuming the same graph
//! have) racing for each step, forks started at once, and a writer killed mid-graph.
//!
//! The kill test re-executes this test binary to run `child_graph_writer` with an
//! environment variable naming the database; the child runs "nodes" (a run, a turn, the
//! checkpoint) as fast as it can until the parent SIGKILLs it.

use super::graph::node;
use super::support::temp_store;
use agentctl_core::{ContextMode, Message, Usage};
use agentctl_store::*;
use agentctl_store_sqlite::*;
use serde_json::json;
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

const CHILD_ENV: &str = "AGENTCTL_CONTEXT_GRAPH_KILL_TEST_DB";

/// Two connections (two processes resuming the same graph) write every step at once: exactly
/// one of them stores each step, the other is told another process advanced the graph.
#[test]
fn of_two_writers_of_a_step_exactly_one_wins() {
    let temp = temp_store();
    let session = temp.store.create_session(None).unwrap().id;
    temp.store
        .start_graph(&session, "race", &json!({}), "worker")
        .unwrap();
    const STEPS: u32 = 40;
    let barrier = Arc::new(Barrier::new(2));
    let handles: Vec<_> = ["left", "right"]
        .into_iter()
        .map(|writer| {
            let barrier = Arc::clone(&barrier);
            let (path, session) = (temp.path.clone(), session.clone());
            std::thread::spawn(move || {
                let store = SqliteStore::open(&path).unwrap();
                let mut outcomes = Vec::new();
                for step in 1..=STEPS {
                    barrier.wait();
                    let state = json!({"by": writer, "step": step});
                    let written = store.write_checkpoint(&NewCheckpoint {
                        node: writer,
                        ..node(&session, 0, step, &state)
                    });
                    outcomes.push(written.map(|row| row.step));
                }
                outcomes
            })
        })
        .collect();
    let outcomes: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    for step in 1..=STEPS {
        let index = (step - 1) as usize;
        let (left, right) = (&outcomes[0][index], &outcomes[1][index]);
        assert!(
            left.is_ok() != right.is_ok(),
            "step {step}: {left:?} / {right:?}"
        );
        let loser = if left.is_ok() { right } else { left };
        let error = loser.as_ref().unwrap_err();
        assert!(
            matches!(error, ContextError::CheckpointConflict { step: s, last, .. } if *s == step && *last == step),
            "{error}"
        );
        assert_eq!(
            error.to_string(),
            format!(
                "session {session}, graph branch 0: step {step} is already written (the branch \
                 is at step {step}): another process advanced the graph; read its latest \
                 checkpoint instead of writing this one"
            )
        );
    }
    // The stored steps are each the winner's whole row.
    let rows = temp.store.graph_checkpoints(&session, 0).unwrap();
    assert_eq!(
        rows.iter().map(|r| r.step).collect::<Vec<_>>(),
        (0..=STEPS).collect::<Vec<_>>()
    );
    for row in &rows[1..] {
        assert_eq!(row.state["by"].as_str(), row.node.as_deref());
        assert_eq!(row.state["step"], row.step);
    }

    // Forks started at once get branch numbers of their own.
    let forks: Vec<_> = (0..4)
        .map(|_| {
            let (path, session) = (temp.path.clone(), session.clone());
            std::thread::spawn(move || {
                let store = SqliteStore::open(&path).unwrap();
                store.fork_graph(&session, 0, 3).unwrap().branch
            })
        })
        .collect();
    let mut numbers: Vec<u32> = forks.into_iter().map(|h| h.join().unwrap()).collect();
    numbers.sort_unstable();
    assert_eq!(numbers, vec![1, 2, 3, 4]);
    assert_eq!(temp.store.integrity_check().unwrap(), "ok");
}

/// Runs only as the child of `a_killed_graph_resumes_from_its_last_whole_checkpoint`.
#[test]
#[ignore = "a child process: its parent test runs it with --ignored"]
fn child_graph_writer() {
    let Some(path) = std::env::var_os(CHILD_ENV) else {
        return;
    };
    let store = SqliteStore::open(std::path::Path::new(&path)).unwrap();
    let session = store.create_session(Some("graph")).unwrap().id;
    store
        .start_graph(&session, "loop", &json!({"count": 0}), "worker")
        .unwrap();
    for step in 1.. {
        // What the graph runner does for a node: its run, then the checkpoint naming it.
        let run = store
            .start_run(
                &session,
                &NewRun {
                    agent: "worker".into(),
                    mode: ContextMode::Run,
                    parent_run_id: None,
                    handoff: false,
                    model: None,
                    source: Source::CLI,
                },
            )
            .unwrap();
        store
            .record_turn(
                run.id,
                &[NewMessage::new(
                    run.context_scope.clone(),
                    Some("worker"),
                    Message::assistant(format!("step {step}")),
                )],
                &[],
            )
            .unwrap();
        store
            .finish_run(run.id, RunStatus::Completed, Usage::default())
            .unwrap();
        let state = json!({"count": step, "run": run.id, "pad": "x".repeat(4_000)});
        store
            .write_checkpoint(&NewCheckpoint {
                run: Some(run.id),
                ..node(&session, 0, step, &state)
            })
            .unwrap();
    }
}

#[test]
fn a_killed_graph_resumes_from_its_last_whole_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sessions.db");
    let mut child = super::support::spawn_child_test(
        "suite::graph_writers::child_graph_writer",
        CHILD_ENV,
        &path,
    );
    let latest_step = || -> u32 {
        SqliteStore::open(&path)
            .ok()
            .and_then(|store| {
                let session = store.latest_session().ok()??;
                store.latest_checkpoint(&session.id, 0).ok()?
            })
            .map_or(0, |checkpoint| checkpoint.step)
    };
    let started = Instant::now();
    while latest_step() < 100 && started.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(50));
        assert!(
            child.try_wait().unwrap().is_none(),
            "the child writer stopped by itself"
        );
    }
    child.kill().unwrap();
    child.wait().unwrap();

    let store = SqliteStore::open(&path).unwrap();
    assert_eq!(store.integrity_check().unwrap(), "ok");
    let session = store.latest_session().unwrap().unwrap().id;
    let rows = store.graph_checkpoints(&session, 0).unwrap();
    let last = rows.last().unwrap().step;
    assert!(last >= 100, "only {last} steps were written");
    // Whole checkpoints only, without gaps, each naming the finished run it came from.
    assert_eq!(
        rows.iter().map(|r| r.step).collect::<Vec<_>>(),
        (0..=last).collect::<Vec<_>>()
    );
    for row in &rows[1..] {
        assert_eq!(row.state["count"], row.step);
        assert_eq!(row.state["pad"].as_str().map(str::len), Some(4_000));
        let run = row.run.unwrap();
        assert_eq!(row.state["run"], run);
        assert_eq!(store.run(run).unwrap().status, RunStatus::Completed);
    }

    // Resume: a node killed mid-run is interrupted, and the graph continues at the next step.
    store.interrupt_stale_runs(&session).unwrap();
    let runs = store.runs(&session).unwrap();
    assert!(runs.len() as u32 >= last && runs.len() as u32 <= last + 1);
    let latest = store.latest_checkpoint(&session, 0).unwrap().unwrap();
    assert_eq!(latest.next.as_deref(), Some("worker"));
    let state = json!({"count": last + 1});
    store
        .write_checkpoint(&node(&session, 0, last + 1, &state))
        .unwrap();
    assert_eq!(
        store.graph_branches(&session).unwrap()[0].last_step,
        last + 1
    );
}
