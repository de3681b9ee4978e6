//! Several `agentctl run --session ID` processes on one session at once: every process exits
//! 0 and every turn of every process is in the store, trial after trial, and the file stays
//! sound (`PRAGMA integrity_check`).

use super::support::{TestProject, wait_for};
use agentctl_core::Message;
use agentctl_store::{MessageLog as _, MessageQuery, RunLog as _, RunStatus, SessionLog as _};
use serde_json::Value;
use std::process::Stdio;

/// Processes started at once in each trial.
const PROCESSES: usize = 5;
/// Trials, run back to back.
const TRIALS: usize = 10;

/// A shared-context agent whose turn reads a file and then answers: two model turns, each
/// committed in its own store transaction, so the processes' writes interleave.
const AGENT: &str = "---
name: parallel
description: Reads a file and answers.
model: scripted:.agentctl/cassettes/parallel.yaml
contextMode: shared
tools:
  allow: [read_file]
---

Read, then answer.
";

const CASSETTE: &str = "version: 1
turns:
  - response:
      text: Reading first.
      toolCalls:
        - { id: r1, name: read_file, arguments: { path: src/stats.py } }
  - expect: { lastToolResultContains: 'def mean' }
    response: { text: Done reading. }
";

fn prompt(trial: usize, process: usize) -> String {
    format!("trial {trial} process {process}")
}

#[test]
fn concurrent_runs_on_one_session_keep_every_turn() {
    let project = TestProject::served_example("review-fix");
    project.write(".agentctl/agents/parallel.md", AGENT);
    project.write(".agentctl/cassettes/parallel.yaml", CASSETTE);
    let first = project.agentctl(&["run", "parallel", "-p", "start", "--format", "json"]);
    let first: Value = serde_json::from_slice(&first.stdout).unwrap();
    let session = first["sessionId"].as_str().unwrap().to_owned();

    for trial in 0..TRIALS {
        let children: Vec<_> = (0..PROCESSES)
            .map(|process| {
                let prompt = prompt(trial, process);
                project
                    .command(&["run", "parallel", "--session", &session, "-p", &prompt])
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for (process, child) in children.into_iter().enumerate() {
            let output = child.wait_with_output().unwrap();
            assert!(
                output.status.success(),
                "trial {trial}, process {process}: {}\nstderr:\n{}",
                output.status,
                String::from_utf8_lossy(&output.stderr)
            );
        }
        check_trial(&project, &session, trial);
    }
}

/// Every run so far completed (none was marked interrupted by a neighbour), and each of this
/// trial's prompts is stored once, with its whole run: prompt, tool call, result, answer.
fn check_trial(project: &TestProject, session: &str, trial: usize) {
    let store = project.store();
    assert_eq!(store.integrity_check().unwrap(), "ok", "trial {trial}");
    let runs = store.runs(session).unwrap();
    assert_eq!(runs.len(), 1 + PROCESSES * (trial + 1), "trial {trial}");
    let unfinished: Vec<_> = runs
        .iter()
        .filter(|run| run.status != RunStatus::Completed)
        .collect();
    assert!(unfinished.is_empty(), "trial {trial}: {unfinished:#?}");
    let messages = store.messages(session, &MessageQuery::default()).unwrap();
    for process in 0..PROCESSES {
        let prompt = prompt(trial, process);
        let prompts: Vec<_> = messages
            .iter()
            .filter(|m| matches!(&m.message, Message::User { content } if *content == prompt))
            .collect();
        assert_eq!(
            prompts.len(),
            1,
            "`{prompt}` stored {} times",
            prompts.len()
        );
        let run = prompts[0].run_id.unwrap();
        let roles: Vec<&str> = messages
            .iter()
            .filter(|m| m.run_id == Some(run))
            .map(|m| match &m.message {
                Message::User { .. } => "user",
                Message::Assistant { tool_calls, .. } if tool_calls.is_empty() => "answer",
                Message::Assistant { .. } => "call",
                Message::Tool { .. } => "result",
            })
            .collect();
        assert_eq!(roles, ["user", "call", "result", "answer"], "`{prompt}`");
    }
}

const WAITER: &str = "---
name: waiter
description: Waits for a file.
model: scripted:.agentctl/cassettes/waiter.yaml
contextMode: shared
tools:
  allow: [bash]
---

Wait.
";

const WAITER_CASSETTE: &str = "version: 1
turns:
  - response:
      toolCalls:
        - { id: w1, name: bash, arguments: { command: 'touch started; while [ ! -e go ]; do sleep 0.1; done' } }
  - response: { text: Done waiting. }
";

/// Another process deletes the session while a run is in its tool call: the run's next turns
/// cannot be saved, and `agentctl run` says so and exits non-zero instead of reporting success.
#[test]
fn a_run_whose_turns_cannot_be_saved_exits_non_zero() {
    let project = TestProject::served_example("review-fix");
    project.write(".agentctl/agents/waiter.md", WAITER);
    project.write(".agentctl/cassettes/waiter.yaml", WAITER_CASSETTE);
    let mut child = project
        .command(&["run", "waiter", "-p", "wait for it", "--yes"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = wait_for(std::time::Duration::from_secs(30), || {
        if project.root.join("started").exists() {
            return Some(());
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "agentctl stopped early"
        );
        None
    });
    assert!(started.is_some(), "the tool never started");
    let session = project.store().latest_session().unwrap().unwrap().id;
    project.agentctl(&["sessions", "delete", &session, "--yes"]);
    std::fs::write(project.root.join("go"), "").unwrap();

    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{}\n{stderr}", output.status);
    assert!(
        stderr.contains("the session could not be saved: "),
        "{stderr}"
    );
}
