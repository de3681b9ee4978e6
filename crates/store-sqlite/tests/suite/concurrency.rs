//! Several writers on one session file at once: every turn of every writer is stored, a fresh
//! file opened by many at once is migrated once, and resuming a session leaves the runs of
//! live processes alone while marking those of dead ones `interrupted`.
//!
//! Each writer has its own [`SqliteStore`] (its own connection), which is what separate
//! processes have; the owner tests use real child processes (this test binary re-executed).

use agentctl_core::{ContextMode, Message, ToolCall, Usage};
use agentctl_store::*;
use agentctl_store_sqlite::*;
use serde_json::json;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Barrier};

const CHILD_DB: &str = "AGENTCTL_CONTEXT_OWNER_TEST_DB";
const CHILD_SESSION: &str = "AGENTCTL_CONTEXT_OWNER_TEST_SESSION";

fn new_run(agent: &str) -> NewRun {
    NewRun {
        agent: agent.into(),
        mode: ContextMode::Shared,
        parent_run_id: None,
        handoff: false,
        model: None,
        source: Source::CLI,
    }
}

/// One turn with a tool call and its result, as the recorder writes it.
fn turn(scope: &ContextScope, agent: &str, n: usize) -> Vec<NewMessage> {
    let call_id = format!("{agent}-call-{n}");
    vec![
        NewMessage::new(
            scope.clone(),
            Some(agent),
            Message::Assistant {
                content: Some(format!("{agent} turn {n}")),
                tool_calls: vec![ToolCall {
                    id: call_id.clone(),
                    name: "read_file".into(),
                    arguments: json!({"path": "x"}),
                    signature: None,
                }],
            },
        ),
        NewMessage::new(
            scope.clone(),
            Some(agent),
            Message::Tool {
                call_id,
                name: "read_file".into(),
                content: "contents".into(),
                is_error: false,
            },
        ),
    ]
}

/// Writers that each run `runs` runs of `turns` turns, all at once, in one session.
fn write_at_once(path: &Path, session: &str, writers: usize, runs: usize, turns: usize) {
    let barrier = Arc::new(Barrier::new(writers));
    let handles: Vec<_> = (0..writers)
        .map(|writer| {
            let barrier = Arc::clone(&barrier);
            let path = path.to_owned();
            let session = session.to_owned();
            std::thread::spawn(move || {
                let store = SqliteStore::open(&path).unwrap();
                let agent = format!("writer-{writer}");
                barrier.wait();
                for _ in 0..runs {
                    // What `agentctl run --session ID` does: resume, start, record, finish.
                    open_session(&store, &SessionChoice::Resume(session.clone())).unwrap();
                    let run = store.start_run(&session, &new_run(&agent)).unwrap();
                    let prompt = NewMessage::new(
                        run.context_scope.clone(),
                        None,
                        Message::user(format!("{agent} go")),
                    );
                    store.record_turn(run.id, &[prompt], &[]).unwrap();
                    for n in 0..turns {
                        let step = NewStep {
                            kind: "model_call".into(),
                            content: json!({"turn": n}),
                            budget: None,
                        };
                        store
                            .record_turn(run.id, &turn(&run.context_scope, &agent, n), &[step])
                            .unwrap();
                    }
                    store
                        .finish_run(run.id, RunStatus::Completed, Usage::default())
                        .unwrap();
                }
            })
        })
        .collect();
    for handle in handles {
        handle.join().unwrap();
    }
}

#[test]
fn concurrent_writers_lose_no_turn() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sessions.db");
    let session = SqliteStore::open(&path)
        .unwrap()
        .create_session(None)
        .unwrap()
        .id;
    let (writers, runs, turns) = (5, 5, 20);
    write_at_once(&path, &session, writers, runs, turns);

    let store = SqliteStore::open(&path).unwrap();
    assert_eq!(store.integrity_check().unwrap(), "ok");
    let all = store.runs(&session).unwrap();
    assert_eq!(all.len(), writers * runs);
    // No writer marked another's live run interrupted: every run completed.
    assert!(
        all.iter().all(|run| run.status == RunStatus::Completed),
        "{all:#?}"
    );
    let messages = store.messages(&session, &MessageQuery::default()).unwrap();
    for writer in 0..writers {
        let agent = format!("writer-{writer}");
        let own = messages
            .iter()
            .filter(|m| m.agent.as_deref() == Some(agent.as_str()))
            .count();
        assert_eq!(own, runs * turns * 2, "{agent}");
    }
    for run in &all {
        let steps = store.steps(run.id).unwrap();
        let indexes: Vec<i64> = steps.iter().map(|step| step.step_index).collect();
        assert_eq!(indexes, (0..turns as i64).collect::<Vec<_>>());
    }
}

#[test]
fn a_fresh_file_opened_by_many_at_once_is_migrated_once() {
    for _ in 0..3 {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("new").join("sessions.db");
        let barrier = Arc::new(Barrier::new(6));
        let handles: Vec<_> = (0..6)
            .map(|_| {
                let barrier = Arc::clone(&barrier);
                let path = path.clone();
                std::thread::spawn(move || {
                    barrier.wait();
                    let store = SqliteStore::open(&path).unwrap();
                    store.create_session(None).unwrap();
                })
            })
            .collect();
        for handle in handles {
            handle.join().unwrap();
        }
        let store = SqliteStore::open(&path).unwrap();
        assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
        assert_eq!(store.list_sessions().unwrap().len(), 6);
        assert_eq!(store.integrity_check().unwrap(), "ok");
    }
}

/// Runs only as a child of the owner tests: starts a run in the session, prints its id (`OWNED-RUN=ID`), then
/// either exits at once (`exit`, leaving the run `running`) or waits for its stdin to close
/// and finishes the run (`live`).
#[test]
#[ignore = "a child process: its parent test runs it with --ignored"]
fn owner_child() {
    let (Some(path), Some(session)) = (
        std::env::var_os(CHILD_DB),
        std::env::var(CHILD_SESSION).ok(),
    ) else {
        return;
    };
    let mode = std::env::var("AGENTCTL_CONTEXT_OWNER_TEST_MODE").unwrap();
    let store = SqliteStore::open(Path::new(&path)).unwrap();
    let run = store.start_run(&session, &new_run(&mode)).unwrap();
    let mut out = std::io::stdout().lock();
    writeln!(out, "\nOWNED-RUN={}", run.id).unwrap();
    out.flush().unwrap();
    if mode == "live" {
        let mut line = String::new();
        let _ = std::io::stdin().read_line(&mut line);
        store
            .finish_run(run.id, RunStatus::Completed, Usage::default())
            .unwrap();
    }
}

fn owner_child_command(path: &Path, session: &str, mode: &str) -> Command {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .args([
            "--exact",
            "suite::concurrency::owner_child",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_DB, path)
        .env(CHILD_SESSION, session)
        .env("AGENTCTL_CONTEXT_OWNER_TEST_MODE", mode)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    command
}

/// Reads the child's `OWNED-RUN=ID` line.
fn child_run_id(stdout: impl std::io::Read) -> (RunId, impl BufRead) {
    let mut reader = BufReader::new(stdout);
    loop {
        let mut line = String::new();
        assert_ne!(
            reader.read_line(&mut line).unwrap(),
            0,
            "the child said nothing"
        );
        // libtest may print the test's name on the same line first.
        if let Some((_, id)) = line.trim().split_once("OWNED-RUN=") {
            return (id.parse().unwrap(), reader);
        }
    }
}

#[test]
fn resuming_marks_only_the_runs_of_dead_processes() {
    let dir = tempfile::tempdir().unwrap();
    let path: PathBuf = dir.path().join("sessions.db");
    let store = SqliteStore::open(&path).unwrap();
    let session = store.create_session(None).unwrap().id;

    let mut dead = owner_child_command(&path, &session, "exit")
        .spawn()
        .unwrap();
    let (dead_run, _dead_out) = child_run_id(dead.stdout.take().unwrap());
    assert!(dead.wait().unwrap().success());
    let mut live = owner_child_command(&path, &session, "live")
        .spawn()
        .unwrap();
    let (live_run, _reader) = child_run_id(live.stdout.take().unwrap());
    let own_run = store.start_run(&session, &new_run("self")).unwrap().id;

    open_session(&store, &SessionChoice::Resume(session.clone())).unwrap();
    assert_eq!(store.run(dead_run).unwrap().status, RunStatus::Interrupted);
    assert_eq!(store.run(live_run).unwrap().status, RunStatus::Running);
    assert_eq!(store.run(own_run).unwrap().status, RunStatus::Running);
    assert_eq!(store.interrupt_stale_runs(&session).unwrap(), 0);

    // The live process finishes its run normally.
    drop(live.stdin.take());
    assert!(live.wait().unwrap().success());
    assert_eq!(store.run(live_run).unwrap().status, RunStatus::Completed);
}

#[test]
fn runs_from_before_owners_were_recorded_are_stale() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sessions.db");
    let session = {
        let store = SqliteStore::open(&path).unwrap();
        let session = store.create_session(None).unwrap().id;
        store.start_run(&session, &new_run("old")).unwrap();
        session
    };
    // What a run written by an older agentctl looks like: no owner.
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute(
        "UPDATE agent_runs SET owner_pid = NULL, owner_start = NULL, owner_boot = NULL",
        [],
    )
    .unwrap();
    drop(conn);
    let store = SqliteStore::open(&path).unwrap();
    assert_eq!(store.interrupt_stale_runs(&session).unwrap(), 1);
}

#[test]
fn a_version_1_file_is_migrated_and_keeps_its_runs() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sessions.db");
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(
        "CREATE TABLE sessions (id TEXT PRIMARY KEY, title TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);
         CREATE TABLE agent_runs (
             id INTEGER PRIMARY KEY AUTOINCREMENT,
             session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
             agent_id TEXT NOT NULL,
             parent_run_id INTEGER REFERENCES agent_runs(id) ON DELETE CASCADE,
             context_scope TEXT NOT NULL, status TEXT NOT NULL, model TEXT, usage TEXT,
             started_at INTEGER NOT NULL, finished_at INTEGER);
         CREATE TABLE chat_messages (
             id INTEGER PRIMARY KEY AUTOINCREMENT,
             session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
             run_id INTEGER REFERENCES agent_runs(id) ON DELETE SET NULL,
             timeline_scope TEXT NOT NULL, context_scope TEXT NOT NULL, agent_id TEXT,
             role TEXT NOT NULL, content TEXT NOT NULL, visible INTEGER NOT NULL,
             token_estimate INTEGER NOT NULL, created_at INTEGER NOT NULL);
         CREATE TABLE chat_context_summaries (
             id INTEGER PRIMARY KEY AUTOINCREMENT,
             session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
             scope TEXT NOT NULL, until_message_id INTEGER NOT NULL,
             summary_text TEXT NOT NULL, created_at INTEGER NOT NULL);
         CREATE INDEX idx_summaries_scope
             ON chat_context_summaries(session_id, scope, until_message_id);
         CREATE TABLE agent_run_steps (
             id INTEGER PRIMARY KEY AUTOINCREMENT,
             run_id INTEGER NOT NULL REFERENCES agent_runs(id) ON DELETE CASCADE,
             step_index INTEGER NOT NULL, kind TEXT NOT NULL, content TEXT NOT NULL,
             created_at INTEGER NOT NULL, UNIQUE (run_id, step_index));
         INSERT INTO sessions VALUES ('s1', NULL, 1, 1);
         INSERT INTO agent_runs (session_id, agent_id, context_scope, status, started_at)
             VALUES ('s1', 'old', 'main', 'running', 1);
         PRAGMA user_version = 1;",
    )
    .unwrap();
    drop(conn);
    // Version 1 as released (these tables and session_mode_overrides, which no migration
    // touches); the later migrations add columns and tables to them.
    let store = SqliteStore::open(&path).unwrap();
    assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
    assert_eq!(store.interrupt_stale_runs("s1").unwrap(), 1);
}
