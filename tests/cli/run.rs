//! End-to-end tests of `agentctl run` against the offline review-fix example.

use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// Runs `agentctl --project-dir COPY ARGS` on a copy of examples/review-fix inside `home`
/// (runs record sessions in their project), with `home` as the home folder and empty stdin.
fn agentctl(args: &[&str], home: &Path) -> Output {
    let project = home.join("review-fix");
    if !project.exists() {
        super::support::copy_example(&project);
    }
    Command::new(env!("CARGO_BIN_EXE_agentctl"))
        .arg("--project-dir")
        .arg(&project)
        .args(args)
        .env("AGENTCTL_HOME", home)
        .env("HOME", home)
        .stdin(Stdio::null())
        .output()
        .expect("agentctl runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

const REVIEW: &[&str] = &[
    "run",
    "code-reviewer",
    "-p",
    "Review src/stats.py",
    "--model",
    "scripted:.agentctl/cassettes/code-reviewer.yaml",
];

#[test]
fn readme_command_runs_the_reviewer_offline() {
    let home = tempfile::tempdir().unwrap();
    let output = agentctl(REVIEW, home.path());
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert!(
        output.status.success(),
        "stdout:\n{stdout}\nstderr:\n{stderr}"
    );
    // The tool calls ran against the real files and are shown on stderr.
    assert!(
        stderr.contains("read_file {\"path\":\"src/stats.py\"}"),
        "{stderr}"
    );
    assert!(stderr.contains("↳ read_file: 33 lines"), "{stderr}");
    assert!(stderr.contains("↳ grep: "), "{stderr}");
    // The findings are the final answer on stdout.
    let findings = stdout
        .split_once("{\n")
        .map(|(_, rest)| format!("{{\n{rest}"))
        .unwrap();
    let report: Value = serde_json::from_str(&findings).unwrap();
    assert_eq!(report["verdict"], "request-changes");
    assert_eq!(report["findings"].as_array().unwrap().len(), 6);
    assert_eq!(report["findings"][0]["line"], 13);
}

#[test]
fn default_model_of_the_example_is_the_reviewer_cassette() {
    let home = tempfile::tempdir().unwrap();
    let output = agentctl(
        &[
            "run",
            "code-reviewer",
            "-p",
            "Review src/stats.py",
            "--format",
            "json",
        ],
        home.path(),
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
    let result: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert!(
        result["text"]
            .as_str()
            .unwrap()
            .contains("\"verdict\": \"request-changes\"")
    );
    let metadata = &result["metadata"];
    assert_eq!(metadata["agent"], "code-reviewer");
    assert_eq!(
        metadata["model"],
        "scripted:.agentctl/cassettes/review-fix.yaml"
    );
    assert_eq!(metadata["iterations"], 3);
    assert_eq!(metadata["contextMode"], "isolated");
    assert_eq!(metadata["tokensUsed"]["output"], 633);
}

#[test]
fn stream_json_prints_one_event_per_line_in_order() {
    let home = tempfile::tempdir().unwrap();
    let mut args = REVIEW.to_vec();
    args.extend(["--format", "stream-json"]);
    let output = agentctl(&args, home.path());
    assert!(output.status.success(), "{}", text(&output.stderr));
    let events: Vec<Value> = text(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let kinds: Vec<&str> = events
        .iter()
        .map(|event| event["type"].as_str().unwrap())
        .collect();
    assert_eq!(kinds.first(), Some(&"run_started"));
    assert_eq!(kinds.last(), Some(&"run_finished"));
    assert_eq!(
        kinds
            .iter()
            .filter(|kind| **kind == "model_request")
            .count(),
        3
    );
    let results: Vec<(&str, bool)> = events
        .iter()
        .filter(|event| event["type"] == "tool_result")
        .map(|event| {
            (
                event["name"].as_str().unwrap(),
                event["is_error"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        results,
        [("read_file", false), ("grep", false), ("read_file", false)]
    );
    assert!(text(&output.stderr).is_empty(), "{}", text(&output.stderr));
}

#[test]
fn failures_are_one_line_errors_with_non_zero_exit() {
    let home = tempfile::tempdir().unwrap();
    let unknown = agentctl(&["run", "code-reviwer", "-p", "x"], home.path());
    assert_eq!(unknown.status.code(), Some(1));
    assert_eq!(
        text(&unknown.stderr),
        "error: no agent named `code-reviwer`; did you mean `code-reviewer`?\n"
    );

    let no_prompt = agentctl(&["run", "code-reviewer"], home.path());
    assert_eq!(no_prompt.status.code(), Some(1));
    assert!(
        text(&no_prompt.stderr).contains("pass -p PROMPT"),
        "{}",
        text(&no_prompt.stderr)
    );

    let mut args = REVIEW.to_vec();
    args.extend(["--max-turns", "1"]);
    let limited = agentctl(&args, home.path());
    assert_eq!(limited.status.code(), Some(1));
    let stderr = text(&limited.stderr);
    assert_eq!(
        stderr
            .lines()
            .filter(|line| line.starts_with("error:"))
            .count(),
        1,
        "{stderr}"
    );
    assert!(stderr.contains("reached the limit of 1 turns"), "{stderr}");
}

#[test]
fn record_saves_a_replayable_cassette() {
    let home = tempfile::tempdir().unwrap();
    let cassette = home.path().join("recorded.yaml");
    let mut args = REVIEW.to_vec();
    args.extend(["--record", cassette.to_str().unwrap(), "--format", "json"]);
    let recorded = agentctl(&args, home.path());
    assert!(recorded.status.success(), "{}", text(&recorded.stderr));
    assert!(cassette.is_file());
    let model = format!("scripted:{}", cassette.display());
    let replayed = agentctl(
        &[
            "run",
            "code-reviewer",
            "-p",
            "Review src/stats.py",
            "--model",
            &model,
            "--format",
            "json",
        ],
        home.path(),
    );
    assert!(replayed.status.success(), "{}", text(&replayed.stderr));
    let first: Value = serde_json::from_slice(&recorded.stdout).unwrap();
    let second: Value = serde_json::from_slice(&replayed.stdout).unwrap();
    assert_eq!(first["text"], second["text"]);
}

/// The copy of the example project `agentctl` runs in, made now so a test can change it first.
fn example_project(home: &Path) -> std::path::PathBuf {
    let project = home.join("review-fix");
    super::support::copy_example(&project);
    project
}

#[test]
fn an_agent_whose_definition_has_errors_does_not_run() {
    let home = tempfile::tempdir().unwrap();
    let project = example_project(home.path());
    let broken = project.join(".agentctl/agents/broken.md");
    std::fs::write(
        &broken,
        "---\nname: broken\ndescription: Too creative\ntemperature: 7\n---\nAnswer.\n",
    )
    .unwrap();
    let output = agentctl(
        &[
            "run",
            "broken",
            "-p",
            "hi",
            "--model",
            "scripted:.agentctl/cassettes/code-reviewer.yaml",
        ],
        home.path(),
    );
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        text(&output.stderr),
        format!(
            "error: {}:4:1: field `temperature`: temperature 7 is outside 0..=2\n",
            broken.display()
        )
    );
    assert!(output.stdout.is_empty());

    // Several errors: one `error:` line each.
    std::fs::write(
        &broken,
        "---\nname: broken\ndescription: Too creative\ntemperature: .nan\nmaxTurns: 0\n---\nAnswer.\n",
    )
    .unwrap();
    let output = agentctl(&["run", "broken", "-p", "hi"], home.path());
    assert_eq!(output.status.code(), Some(1));
    let b = broken.display();
    assert_eq!(
        text(&output.stderr),
        format!(
            "error: {b}:4:1: field `temperature`: temperature NaN is not a number from 0 to 2\n\
             error: {b}:5:1: field `maxTurns`: maxTurns is 0: the agent could never answer\n"
        )
    );

    // A typo of its name suggests it, and an agent file that does not load is the answer
    // for its name.
    let typo = agentctl(&["run", "brokn", "-p", "hi"], home.path());
    assert_eq!(
        text(&typo.stderr),
        "error: no agent named `brokn`; did you mean `broken`?\n"
    );
    std::fs::write(&broken, "---\nname: broken\nmaxTurns: [\n---\nAnswer.\n").unwrap();
    let unloadable = agentctl(&["run", "broken", "-p", "hi"], home.path());
    assert_eq!(unloadable.status.code(), Some(1));
    assert!(
        text(&unloadable.stderr).starts_with(&format!("error: {}:", broken.display())),
        "{}",
        text(&unloadable.stderr)
    );
}

/// Runs agentctl in the example copy; kills it and fails if it has not finished within a
/// minute (a hang is the bug these tests guard against; no speed is asserted).
#[cfg(unix)]
fn agentctl_or_hang(args: &[&str], home: &Path) -> Output {
    let project = home.join("review-fix");
    let mut child = Command::new(env!("CARGO_BIN_EXE_agentctl"))
        .arg("--project-dir")
        .arg(&project)
        .args(args)
        .env("AGENTCTL_HOME", home)
        .env("HOME", home)
        .stdin(Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("agentctl {args:?} hung");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

#[cfg(unix)]
#[test]
fn settings_that_link_to_dev_zero_or_a_fifo_fail_fast_with_the_file_named() {
    let home = tempfile::tempdir().unwrap();
    let project = example_project(home.path());
    let settings = project.join(".agentctl/settings.json");
    let _ = std::fs::remove_file(&settings);
    std::os::unix::fs::symlink("/dev/zero", &settings).unwrap();
    let output = agentctl_or_hang(&["agents", "list"], home.path());
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        text(&output.stderr),
        format!(
            "error: {}: is a character device (/dev/zero), not a regular file\n",
            settings.display()
        )
    );

    std::fs::remove_file(&settings).unwrap();
    let status = Command::new("mkfifo").arg(&settings).status().unwrap();
    assert!(status.success());
    let output = agentctl_or_hang(&["run", "code-reviewer", "-p", "hi"], home.path());
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        text(&output.stderr),
        format!(
            "error: {}: is a FIFO, not a regular file\n",
            settings.display()
        )
    );
}
