//! `agentctl run` stopped by SIGTERM, SIGINT or SIGHUP while its bash tool runs `sleep 30 |
//! cat`: it exits with 128 + the signal's number within seconds, the run is recorded as
//! `cancelled`, and nothing of the tool's process group is left running.

use super::support::{TestProject, wait_for};
use agentctl_store::{RunLog as _, RunStatus, SessionLog as _};
use std::io::Read as _;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::Duration;

const AGENT: &str = "---
name: sleeper
description: Runs a long pipeline.
model: scripted:.agentctl/cassettes/sleeper.yaml
contextMode: shared
tools:
  allow: [bash]
---

Sleep.
";

const CASSETTE: &str = "version: 1
turns:
  - response:
      toolCalls:
        - { id: s1, name: bash, arguments: { command: 'sleep 30 | cat' } }
  - response: { text: never }
";

/// A process as `/proc/<pid>/stat` shows it.
#[derive(Debug, Clone)]
struct Proc {
    pid: u32,
    ppid: u32,
    pgid: u32,
    comm: String,
    zombie: bool,
}

fn processes() -> Vec<Proc> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        // The process may be gone by now.
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else {
            continue;
        };
        let fields: Vec<&str> = stat[close + 1..].split_whitespace().collect();
        if fields.len() < 3 {
            continue;
        }
        found.push(Proc {
            pid,
            ppid: fields[1].parse().unwrap_or(0),
            pgid: fields[2].parse().unwrap_or(0),
            comm: stat[open + 1..close].to_owned(),
            zombie: matches!(fields[0], "Z" | "X"),
        });
    }
    found
}

/// Live descendants of `root`.
fn descendants(root: u32) -> Vec<Proc> {
    let all = processes();
    let mut family = vec![root];
    let mut found = Vec::new();
    while let Some(parent) = family.pop() {
        for process in all.iter().filter(|p| p.ppid == parent && !p.zombie) {
            family.push(process.pid);
            found.push(process.clone());
        }
    }
    found
}

fn exit_within(child: &mut Child, limit: Duration) -> Option<ExitStatus> {
    wait_for(limit, || child.try_wait().unwrap())
}

/// Stops a run with `signal` while its tool runs; checks the exit code and the stored status and
/// returns the tool's process group.
fn stopped_by(signal: &str, expected_code: i32) -> u32 {
    let project = TestProject::served_example("review-fix");
    project.write(".agentctl/agents/sleeper.md", AGENT);
    project.write(".agentctl/cassettes/sleeper.yaml", CASSETTE);
    let mut child = project
        .command(&[
            "run",
            "sleeper",
            "-p",
            "take a nap",
            "--approve",
            "safe,low,medium",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let agentctl = child.id();
    let sleep = wait_for(Duration::from_secs(30), || {
        descendants(agentctl)
            .into_iter()
            .find(|process| process.comm == "sleep")
    });
    let Some(sleep) = sleep else {
        let _ = child.kill();
        let output = child.wait_with_output().unwrap();
        panic!(
            "the tool never started: {}\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
    };
    // The tool's `sh` leads its own process group; `sleep` and `cat` are in it.
    assert_ne!(sleep.pgid, agentctl, "the tool runs in a group of its own");
    // The signal handlers are installed before the tool starts; a moment more costs nothing.
    std::thread::sleep(Duration::from_millis(100));
    let sent = Command::new("kill")
        .args(["-s", signal, &agentctl.to_string()])
        .status()
        .unwrap();
    assert!(sent.success());

    let status = exit_within(&mut child, Duration::from_secs(10));
    let Some(status) = status else {
        let _ = child.kill();
        panic!("agentctl did not exit within 10 s of SIG{signal}");
    };
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert_eq!(status.code(), Some(expected_code), "{status}\n{stderr}");
    assert!(stderr.contains("run cancelled"), "{stderr}");

    let store = project.store();
    let session = store.latest_session().unwrap().unwrap();
    let runs = store.runs(&session.id).unwrap();
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].status, RunStatus::Cancelled, "{runs:#?}");

    sleep.pgid
}

/// The live processes of a process group.
fn group(pgid: u32) -> Vec<Proc> {
    processes()
        .into_iter()
        .filter(|p| p.pgid == pgid && !p.zombie)
        .collect()
}

/// Kills what a test left of a tool's process group.
fn clean_up(pgid: u32) {
    if !group(pgid).is_empty() {
        let _ = Command::new("kill")
            .args(["-s", "KILL", "--", &format!("-{pgid}")])
            .status();
    }
}

#[test]
fn sigterm_cancels_the_run_and_exits_143() {
    clean_up(stopped_by("TERM", 143));
}

#[test]
fn sigint_cancels_the_run_and_exits_130() {
    clean_up(stopped_by("INT", 130));
}

#[test]
fn sighup_cancels_the_run_and_exits_129() {
    clean_up(stopped_by("HUP", 129));
}

#[test]
fn a_stopping_signal_leaves_nothing_of_the_tools_process_group() {
    for (signal, code) in [("TERM", 143), ("INT", 130), ("HUP", 129)] {
        let pgid = stopped_by(signal, code);
        let gone = wait_for(Duration::from_secs(5), || {
            group(pgid).is_empty().then_some(())
        });
        let left = group(pgid);
        clean_up(pgid);
        assert!(
            gone.is_some(),
            "SIG{signal}: processes of the tool's group survived: {left:?}"
        );
    }
}
