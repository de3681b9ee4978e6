//! Tools, filters and approvals end to end: `agentctl run` on cassettes with real files, and
//! `agentctl agents tools`.

use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

/// A temporary project with one agent, one cassette and one source file.
struct Project {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    home: PathBuf,
}

const NOTES: &str = "alpha\nbeta: the answer is 42\ngamma\n";

impl Project {
    fn new(agent: &str, cassette: &str) -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("project").canonicalize_or_create();
        let home = tmp.path().join("home").canonicalize_or_create();
        std::fs::create_dir_all(root.join(".agentctl/agents")).unwrap();
        std::fs::write(root.join(".agentctl/agents/reader.md"), agent).unwrap();
        std::fs::write(root.join("cassette.yaml"), cassette).unwrap();
        std::fs::write(root.join("notes.txt"), NOTES).unwrap();
        Self {
            _tmp: tmp,
            root,
            home,
        }
    }

    fn agentctl(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_agentctl"))
            .arg("--project-dir")
            .arg(&self.root)
            .args(args)
            .env("HOME", &self.home)
            .env("AGENTCTL_HOME", self.home.join(".agentctl"))
            .current_dir(&self.root)
            // Closed stdin: approvals must be refused at once, never wait.
            .stdin(Stdio::null())
            .output()
            .unwrap()
    }
}

trait CreateDir {
    fn canonicalize_or_create(self) -> PathBuf;
}

impl CreateDir for PathBuf {
    fn canonicalize_or_create(self) -> PathBuf {
        std::fs::create_dir_all(&self).unwrap();
        self.canonicalize().unwrap()
    }
}

fn agent(allow: &str) -> String {
    format!(
        "---\nname: reader\ndescription: Reads notes.\nmodel: scripted:cassette.yaml\ntools:\n  allow: {allow}\n---\n\nYou read notes.\n"
    )
}

/// Reads and greps `notes.txt`, tries to write `out.txt`, then answers with what it was told.
const READ_GREP_WRITE: &str = r#"
version: 1
turns:
  - expect: { lastUserContains: notes }
    response:
      toolCalls:
        - { id: c1, name: read_file, arguments: { path: notes.txt } }
        - { id: c2, name: grep, arguments: { pattern: "answer is \\d+", path: . } }
  - expect: { lastToolResultContains: "notes.txt:2" }
    response:
      toolCalls:
        - { id: c3, name: write_file, arguments: { path: out.txt, content: "42\n" } }
  - response:
      text: "The answer is 42; I could not save it."
"#;

fn events(output: &Output) -> Vec<Value> {
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

fn result_of<'a>(events: &'a [Value], id: &str) -> &'a Value {
    events
        .iter()
        .find(|event| event["type"] == "tool_result" && event["id"] == id)
        .unwrap_or_else(|| panic!("no tool_result for {id}: {events:#?}"))
}

#[test]
fn agent_limited_to_read_and_grep_is_refused_write_and_goes_on() {
    let project = Project::new(&agent("[read_file, grep]"), READ_GREP_WRITE);
    let output = project.agentctl(&[
        "run",
        "reader",
        "-p",
        "Read notes",
        "--format",
        "stream-json",
        "--yes",
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "stderr: {stderr}");
    let events = events(&output);
    assert_eq!(result_of(&events, "c1")["is_error"], false);
    assert!(
        result_of(&events, "c1")["content"]
            .as_str()
            .unwrap()
            .contains("answer is 42")
    );
    assert!(
        result_of(&events, "c2")["content"]
            .as_str()
            .unwrap()
            .contains("notes.txt:2")
    );
    let refused = result_of(&events, "c3");
    assert_eq!(refused["is_error"], true);
    assert!(
        refused["content"]
            .as_str()
            .unwrap()
            .contains("not allowed for this agent"),
        "{refused}"
    );
    let decision = events
        .iter()
        .find(|event| event["type"] == "tool_decision" && event["id"] == "c3")
        .unwrap();
    assert_eq!(decision["decision"], "deny");
    assert_eq!(decision["by"], "policy");
    // Nothing was written, and the run finished with the model's answer.
    assert!(!project.root.join("out.txt").exists());
    let last = events.last().unwrap();
    assert_eq!(last["type"], "run_finished");
    assert_eq!(
        last["result"]["text"],
        "The answer is 42; I could not save it."
    );
}

#[test]
fn without_a_terminal_a_call_needing_approval_is_refused_at_once() {
    let project = Project::new(&agent("[read_file, grep, write_file]"), READ_GREP_WRITE);
    let output = project.agentctl(&["run", "reader", "-p", "Read notes"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "stderr: {stderr}");
    assert!(
        stderr.contains(
            "warning: write_file refused: denied: write_file needs approval (risk low: write_file makes changes; it is rated low) and nobody can approve it here; pass --approve safe,low (or --yes)"
        ),
        "{stderr}"
    );
    assert!(!project.root.join("out.txt").exists());
    assert!(String::from_utf8_lossy(&output.stdout).contains("The answer is 42"));
}

#[test]
fn approved_levels_let_the_write_through() {
    let project = Project::new(&agent("[read_file, grep, write_file]"), READ_GREP_WRITE);
    let output = project.agentctl(&["run", "reader", "-p", "Read notes", "--approve", "safe,low"]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(project.root.join("out.txt")).unwrap(),
        "42\n"
    );
    let bad = project.agentctl(&[
        "run",
        "reader",
        "-p",
        "Read notes",
        "--approve",
        "sometimes",
    ]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("sometimes"));
}

#[test]
fn agents_tools_shows_the_effective_set() {
    let project = Project::new(&agent("[read_file, grep, write_file]"), READ_GREP_WRITE);
    let output = project.agentctl(&["agents", "tools", "reader", "--format", "json"]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let rows: Vec<(String, String, String)> = report["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| {
            (
                tool["name"].as_str().unwrap().to_owned(),
                tool["risk"].as_str().unwrap().to_owned(),
                tool["decision"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let expected = [
        ("grep", "safe", "allow"),
        ("read_file", "safe", "allow"),
        ("write_file", "low", "ask"),
    ];
    let expected: Vec<(String, String, String)> = expected
        .iter()
        .map(|(a, b, c)| ((*a).to_owned(), (*b).to_owned(), (*c).to_owned()))
        .collect();
    assert_eq!(rows, expected);
    assert_eq!(report["autoApprove"], serde_json::json!(["safe"]));
    let yes = project.agentctl(&["agents", "tools", "reader", "--yes"]);
    let table = String::from_utf8_lossy(&yes.stdout);
    insta::assert_snapshot!(table);
    let all = project.agentctl(&["agents", "tools", "reader", "--all", "--format", "json"]);
    let all: Value = serde_json::from_slice(&all.stdout).unwrap();
    assert_eq!(
        all["tools"].as_array().unwrap().len(),
        9,
        "eight built-ins and task"
    );
}

#[test]
fn agents_tools_names_an_unknown_agent() {
    let project = Project::new(&agent("[read_file]"), READ_GREP_WRITE);
    let output = project.agentctl(&["agents", "tools", "redaer"]);
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("did you mean `reader`"));
}

#[test]
fn escape_attempts_reach_the_model_as_tool_errors() {
    let cassette = r#"
version: 1
turns:
  - response:
      toolCalls:
        - { id: up, name: read_file, arguments: { path: ../outside.txt } }
        - { id: abs, name: read_file, arguments: { path: /etc/passwd } }
  - response: { text: done }
"#;
    let project = Project::new(&agent("[read_file]"), cassette);
    std::fs::write(project.root.parent().unwrap().join("outside.txt"), "secret").unwrap();
    let output = project.agentctl(&["run", "reader", "-p", "x", "--format", "stream-json"]);
    assert!(output.status.success());
    let events = events(&output);
    for id in ["up", "abs"] {
        let result = result_of(&events, id);
        assert_eq!(result["is_error"], true, "{result}");
        assert!(!result["content"].as_str().unwrap().contains("secret"));
    }
}

/// Writes a note, then tries `rm -rf build`.
const WRITE_THEN_RM: &str = r#"
version: 1
turns:
  - response:
      text: Writing the note.
      toolCalls:
        - { id: w1, name: write_file, arguments: { path: out.txt, content: "hello\n" } }
  - response:
      toolCalls:
        - { id: b1, name: bash, arguments: { command: "rm -rf build" } }
  - expect: { lastToolResultContains: "the user refused bash" }
    response: { text: Done. }
"#;

#[test]
fn on_a_terminal_the_user_is_asked_and_answers() {
    use std::io::Write as _;
    if !std::path::Path::new("/usr/bin/script").exists() {
        assert!(
            std::env::var_os("CI").is_none(),
            "`script` (util-linux) is needed for the terminal test"
        );
        eprintln!("skipped: no `script` to give agentctl a terminal");
        return;
    }
    let project = Project::new(&agent("[write_file, bash]"), WRITE_THEN_RM);
    std::fs::create_dir_all(project.root.join("build")).unwrap();
    let command = format!(
        "{} --project-dir {} run reader -p 'write a note'",
        env!("CARGO_BIN_EXE_agentctl"),
        project.root.display()
    );
    // `script` runs agentctl on a pseudo-terminal: stdin and stderr are a terminal.
    let mut child = Command::new("/usr/bin/script")
        .args(["-qec", &command, "/dev/null"])
        .env("HOME", &project.home)
        .env("AGENTCTL_HOME", project.home.join(".agentctl"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // Yes to the write, no to `rm -rf` (typed ahead: the terminal keeps the lines).
    stdin.write_all(b"y\nn\n").unwrap();
    let output = child.wait_with_output().unwrap();
    drop(stdin);
    let screen = String::from_utf8_lossy(&output.stdout).replace('\r', "");
    assert!(output.status.success(), "{screen}");
    assert!(
        screen.contains("Agent `reader` wants to run `write_file`"),
        "{screen}"
    );
    assert!(
        screen.contains("risk:      low (write_file makes changes; it is rated low)"),
        "{screen}"
    );
    assert!(
        screen.contains("risk:      high (rm -rf removes files recursively)"),
        "{screen}"
    );
    assert!(
        screen.contains("warning: bash refused: denied: the user refused bash"),
        "{screen}"
    );
    assert!(screen.contains("Done."), "{screen}");
    assert_eq!(
        std::fs::read_to_string(project.root.join("out.txt")).unwrap(),
        "hello\n"
    );
    assert!(project.root.join("build").exists());
}
