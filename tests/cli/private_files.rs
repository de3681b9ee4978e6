//! Files agentctl writes hold prompts, file excerpts and tool output: whatever the umask, a run
//! creates `.agentctl/` `0700` and the session database, long-term memory, trace files and a
//! recorded cassette `0600`; a database an older agentctl left readable by others is made
//! private, with one notice.

use super::support::{ServedModel, TestProject, text};
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::Command;

const KEEPER: &str = "---
name: keeper
description: Keeps notes.
model: openai:gpt-4o-mini
memory:
  long_term:
    backend: sqlite
---
Remember what you learn.
";

/// A project with no `.agentctl/` of its own (the agent and the settings are the user's, in
/// the home), so that the run creates it.
fn project() -> TestProject {
    let project = TestProject::new();
    std::fs::remove_dir_all(project.root.join(".agentctl")).unwrap();
    let home = project.home.join(".agentctl");
    std::fs::create_dir_all(home.join("agents")).unwrap();
    std::fs::write(home.join("agents/keeper.md"), KEEPER).unwrap();
    std::fs::write(
        home.join("settings.json"),
        r#"{"agents": {"tracing": true}}"#,
    )
    .unwrap();
    project
}

/// `command` run by `sh` after `umask MASK`: same program, arguments, environment and folder.
fn under_umask(mask: &str, inner: &Command) -> Command {
    let mut outer = Command::new("sh");
    outer
        .arg("-c")
        .arg(format!("umask {mask}; exec \"$0\" \"$@\""))
        .arg(inner.get_program())
        .args(inner.get_args());
    for (name, value) in inner.get_envs() {
        match value {
            Some(value) => outer.env(name, value),
            None => outer.env_remove(name),
        };
    }
    if let Some(dir) = inner.get_current_dir() {
        outer.current_dir(dir);
    }
    outer
}

/// Runs `keeper` on `prompt` under `mask`, the model calling `tool` first; returns stderr.
fn run(project: &TestProject, mask: &str, tool: (&str, &str), extra: &[&str]) -> String {
    let model = ServedModel::openai();
    model.answer_call("c1", tool.0, tool.1);
    model.answer_text("Done.");
    let mut args = vec!["run", "keeper", "-p", "Note it", "--approve", "safe,low"];
    args.extend(extra);
    let mut inner = project.command(&args);
    model.point(&mut inner);
    let output = under_umask(mask, &inner).output().unwrap();
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    model.server.assert_no_violations();
    stderr
}

fn mode(path: &Path) -> u32 {
    std::fs::symlink_metadata(path)
        .unwrap_or_else(|error| panic!("{}: {error}", path.display()))
        .permissions()
        .mode()
        & 0o7777
}

/// Every folder and file under `dir`.
fn tree(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            found.extend(tree(&path));
        }
        found.push(path);
    }
    found
}

const REMEMBER: (&str, &str) = ("remember", r#"{"content":"The build needs make 4.4"}"#);
const RECALL: (&str, &str) = ("recall", r#"{"query":"build"}"#);

#[test]
fn a_run_under_umask_000_creates_only_private_files() {
    let project = project();
    run(&project, "000", REMEMBER, &["--record", "recorded.yaml"]);

    let agentctl = project.root.join(".agentctl");
    assert_eq!(mode(&agentctl), 0o700);
    for file in ["sessions.db", "memory.db", ".gitignore"] {
        assert_eq!(mode(&agentctl.join(file)), 0o600, "{file}");
    }
    assert_eq!(mode(&project.root.join("recorded.yaml")), 0o600);
    let traces = tree(&agentctl.join("traces"));
    assert!(
        traces
            .iter()
            .any(|path| path.extension().is_some_and(|ext| ext == "jsonl")),
        "a trace file was written: {traces:?}"
    );
    // Everything else in `.agentctl/` (WAL and shared-memory files while they exist, trace
    // folders and files) is private too.
    for path in tree(&agentctl) {
        let expected = if path.is_dir() { 0o700 } else { 0o600 };
        assert_eq!(mode(&path), expected, "{}", path.display());
    }
}

#[test]
fn readable_databases_are_made_private_with_one_notice_each() {
    let project = project();
    run(&project, "022", REMEMBER, &[]);
    let agentctl = project.root.join(".agentctl");
    for file in ["sessions.db", "memory.db"] {
        let path = agentctl.join(file);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
    }

    // The next run opens both (memory when `recall` runs) and says so once each.
    let stderr = run(&project, "022", RECALL, &[]);
    let root = project.root.display().to_string();
    let notices: Vec<&str> = stderr
        .lines()
        .filter(|line| line.contains("tightened"))
        .collect();
    assert_eq!(
        notices,
        [
            format!("warning: tightened {root}/.agentctl/sessions.db from 0644 to 0600"),
            format!("warning: tightened {root}/.agentctl/memory.db from 0644 to 0600"),
        ],
        "{stderr}"
    );
    assert_eq!(mode(&agentctl.join("sessions.db")), 0o600);
    assert_eq!(mode(&agentctl.join("memory.db")), 0o600);

    // Once private, nothing more to say.
    let stderr = run(&project, "022", RECALL, &[]);
    assert!(!stderr.contains("tightened"), "{stderr}");
    // The session survived the change: three runs in the project's current session.
    let sessions = project.json(&["sessions", "list", "--format", "json"]);
    assert_eq!(sessions.as_array().map(Vec::len), Some(1), "{sessions}");
    assert_eq!(sessions[0]["runCount"], 3, "{sessions}");
}

#[test]
fn agentctl_home_and_the_project_folder_are_private_when_agentctl_creates_them() {
    let project = TestProject::new();
    std::fs::remove_dir_all(project.root.join(".agentctl")).unwrap();
    assert!(!project.home.join(".agentctl").exists());
    for scope in [["--scope", "global"], ["--scope", "project"]] {
        let mut args = vec![
            "agents",
            "create",
            "doc-writer",
            "--description",
            "Writes docs",
            "--allow",
            "read_file",
        ];
        args.extend(scope);
        let output = under_umask("000", &project.command(&args))
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", text(&output.stderr));
    }
    for folder in [
        project.home.join(".agentctl"),
        project.home.join(".agentctl/agents"),
        project.root.join(".agentctl"),
        project.root.join(".agentctl/agents"),
    ] {
        assert_eq!(mode(&folder), 0o700, "{}", folder.display());
    }
}
