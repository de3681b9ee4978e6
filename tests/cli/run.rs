//! End-to-end tests of `agentctl run` against the review-fix example, its cassettes served by
//! the strict OpenAI fake.

use super::support::{TestProject, check_shape, events, text};
use serde_json::Value;

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
    let project = TestProject::served_example("review-fix");
    let output = project.output(REVIEW);
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
    let project = TestProject::served_example("review-fix");
    let output = project.output(&[
        "run",
        "code-reviewer",
        "-p",
        "Review src/stats.py",
        "--format",
        "json",
    ]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let result: Value = serde_json::from_slice(&output.stdout).unwrap();
    check_shape("run-result", &result);
    assert!(
        result["text"]
            .as_str()
            .unwrap()
            .contains("\"verdict\": \"request-changes\"")
    );
    let metadata = &result;
    assert_eq!(metadata["agent"], "code-reviewer");
    assert_eq!(metadata["model"], "openai:cassette-review-fix");
    assert_eq!(metadata["iterations"], 3);
    assert_eq!(metadata["contextMode"], "isolated");
    assert_eq!(metadata["tokensUsed"]["output"], 633);
    // Each of the three model calls went through the strict fake.
    assert_eq!(project.cassette_server().requests().len(), 3);
}

#[test]
fn stream_json_prints_one_event_per_line_in_order() {
    let project = TestProject::served_example("review-fix");
    let mut args = REVIEW.to_vec();
    args.extend(["--format", "stream-json"]);
    let output = project.output(&args);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let events = events(&output);
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
                event["isError"].as_bool().unwrap(),
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
    let project = TestProject::served_example("review-fix");
    let unknown = project.output(&["run", "code-reviwer", "-p", "x"]);
    assert_eq!(unknown.status.code(), Some(1));
    assert_eq!(
        text(&unknown.stderr),
        "error: no agent named `code-reviwer`; did you mean `code-reviewer`?\n"
    );

    let no_prompt = project.output(&["run", "code-reviewer"]);
    assert_eq!(no_prompt.status.code(), Some(1));
    assert!(
        text(&no_prompt.stderr).contains("pass -p PROMPT"),
        "{}",
        text(&no_prompt.stderr)
    );

    let mut args = REVIEW.to_vec();
    args.extend(["--max-turns", "1"]);
    let limited = project.output(&args);
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
    let project = TestProject::served_example("review-fix");
    let cassette = project.home.join("recorded.yaml");
    let mut args = REVIEW.to_vec();
    args.extend(["--record", cassette.to_str().unwrap(), "--format", "json"]);
    let recorded = project.output(&args);
    assert!(recorded.status.success(), "{}", text(&recorded.stderr));
    assert!(cassette.is_file());
    let model = format!("scripted:{}", cassette.display());
    let replayed = project.output(&[
        "run",
        "code-reviewer",
        "-p",
        "Review src/stats.py",
        "--model",
        &model,
        "--format",
        "json",
    ]);
    assert!(replayed.status.success(), "{}", text(&replayed.stderr));
    let first: Value = serde_json::from_slice(&recorded.stdout).unwrap();
    let second: Value = serde_json::from_slice(&replayed.stdout).unwrap();
    assert_eq!(first["text"], second["text"]);
}

#[test]
fn an_agent_whose_definition_has_errors_does_not_run() {
    let project = TestProject::served_example("review-fix");
    let broken = project.root.join(".agentctl/agents/broken.md");
    std::fs::write(
        &broken,
        "---\nname: broken\ndescription: Too creative\ntemperature: 7\n---\nAnswer.\n",
    )
    .unwrap();
    let output = project.output(&[
        "run",
        "broken",
        "-p",
        "hi",
        "--model",
        "scripted:.agentctl/cassettes/code-reviewer.yaml",
    ]);
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
    let output = project.output(&["run", "broken", "-p", "hi"]);
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
    let typo = project.output(&["run", "brokn", "-p", "hi"]);
    assert_eq!(
        text(&typo.stderr),
        "error: no agent named `brokn`; did you mean `broken`?\n"
    );
    std::fs::write(&broken, "---\nname: broken\nmaxTurns: [\n---\nAnswer.\n").unwrap();
    let unloadable = project.output(&["run", "broken", "-p", "hi"]);
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
fn output_or_hang(project: &TestProject, args: &[&str]) -> std::process::Output {
    use std::process::Stdio;
    let mut child = project
        .command(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let finished = super::support::wait_for(std::time::Duration::from_secs(60), || {
        child.try_wait().unwrap()
    });
    if finished.is_none() {
        let _ = child.kill();
        let _ = child.wait();
        panic!("agentctl {args:?} hung");
    }
    child.wait_with_output().unwrap()
}

#[cfg(unix)]
#[test]
fn settings_that_link_to_dev_zero_or_a_fifo_fail_fast_with_the_file_named() {
    let project = TestProject::example();
    let settings = project.root.join(".agentctl/settings.json");
    let _ = std::fs::remove_file(&settings);
    std::os::unix::fs::symlink("/dev/zero", &settings).unwrap();
    let output = output_or_hang(&project, &["agents", "list"]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        text(&output.stderr),
        format!(
            "error: {}: is a character device (/dev/zero), not a regular file\n",
            settings.display()
        )
    );

    std::fs::remove_file(&settings).unwrap();
    let status = std::process::Command::new("mkfifo")
        .arg(&settings)
        .status()
        .unwrap();
    assert!(status.success());
    let output = output_or_hang(&project, &["run", "code-reviewer", "-p", "hi"]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        text(&output.stderr),
        format!(
            "error: {}: is a FIFO, not a regular file\n",
            settings.display()
        )
    );
}
