//! `agentctl agents …` against a temporary project and home.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// A temporary project and home with the `mixed` fixture copied in.
struct Env {
    _tmp: tempfile::TempDir,
    project: PathBuf,
    home: PathBuf,
}

impl Env {
    fn empty() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let project = tmp.path().join("project");
        let home = tmp.path().join("home");
        std::fs::create_dir_all(project.join(".git")).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        Self {
            project: project.canonicalize().unwrap(),
            home: home.canonicalize().unwrap(),
            _tmp: tmp,
        }
    }

    fn mixed() -> Self {
        let env = Self::empty();
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cli/fixtures/mixed");
        for dir in [".agentctl", ".claude", ".gemini"] {
            super::support::copy_dir(&fixture.join(dir), &env.project.join(dir));
            super::support::copy_dir(&fixture.join("home").join(dir), &env.home.join(dir));
        }
        env
    }

    fn run(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_agentctl"))
            .arg("--project-dir")
            .arg(&self.project)
            .args(args)
            .env("HOME", &self.home)
            .env("AGENTCTL_HOME", self.home.join(".agentctl"))
            .env_remove("VISUAL")
            .env_remove("EDITOR")
            .current_dir(&self.project)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    }

    /// stdout, stderr and exit code, with temporary paths replaced.
    fn transcript(&self, args: &[&str]) -> String {
        let output = self.run(args);
        let text = format!(
            "exit: {}\n--- stdout\n{}--- stderr\n{}",
            output.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        text.replace(&self.project.display().to_string(), "[PROJECT]")
            .replace(&self.home.display().to_string(), "[HOME]")
    }
}

#[test]
fn list_table() {
    insta::assert_snapshot!(Env::mixed().transcript(&["agents", "list", "--all"]));
}

#[test]
fn list_json_lists_each_agent_once_with_its_format() {
    let env = Env::mixed();
    let output = env.run(&["agents", "list", "--format", "json"]);
    assert!(output.status.success());
    let agents: Vec<serde_json::Value> = serde_json::from_slice(&output.stdout).unwrap();
    let names: Vec<(&str, &str, &str)> = agents
        .iter()
        .map(|a| {
            (
                a["name"].as_str().unwrap(),
                a["format"].as_str().unwrap(),
                a["scope"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        names,
        [
            ("backend-architect", "claude", "project"),
            ("code-reviewer", "claude", "project"),
            ("debugger", "claude", "global"),
            ("fixer", "native", "project"),
            ("helper-remote", "gemini", "project"),
            ("security-auditor", "gemini", "project"),
            ("test-runner", "claude", "project"),
        ]
    );
    for agent in &agents {
        for key in ["title", "description", "model", "path", "contextMode"] {
            assert!(agent.get(key).is_some(), "{key} missing in {agent}");
        }
    }
    // Every broken file is reported with path:line:col on stderr.
    let stderr = String::from_utf8_lossy(&output.stderr);
    for expected in [
        ".agentctl/agents/bad-yaml.md:3:14: field `description`",
        ".agentctl/agents/empty-body.md:4:1: the system prompt is empty",
        ".agentctl/agents/latin1.md:3:17: the file is not valid UTF-8",
        ".agentctl/agents/no-name.md:2:1: field `name`: missing field `name`",
        ".agentctl/agents/unterminated.md:1:1: the front matter opened here is never closed",
        ".agentctl/agents/wrong-type.md:4:11: field `maxTurns`: invalid type: string \"ten\", expected u32",
    ] {
        assert!(stderr.contains(expected), "{expected}\nnot in\n{stderr}");
    }
    let shadowed = env.run(&[
        "agents", "list", "--all", "--scope", "global", "--format", "json",
    ]);
    let shadowed: Vec<serde_json::Value> = serde_json::from_slice(&shadowed.stdout).unwrap();
    let fixer = shadowed.iter().find(|a| a["name"] == "fixer").unwrap();
    assert!(
        fixer["shadowedBy"]
            .as_str()
            .unwrap()
            .ends_with(".agentctl/agents/fixer.md")
    );
}

#[test]
fn show_text() {
    insta::assert_snapshot!(Env::mixed().transcript(&["agents", "show", "backend-architect"]));
}

#[test]
fn show_unknown_name_suggests() {
    insta::assert_snapshot!(Env::mixed().transcript(&["agents", "show", "code-reviwer"]));
}

#[test]
fn show_refuses_broken_agents_with_located_errors() {
    let env = Env::mixed();
    let transcripts: Vec<String> = [
        // Loads, but `temperature: 7` is out of range: the agent never runs or shows.
        "broken",   // Does not load: the YAML error of the file named after it.
        "bad-yaml", // A typo of a broken agent's name still suggests it.
        "brokn",
    ]
    .iter()
    .map(|name| {
        format!(
            "$ agents show {name}\n{}",
            env.transcript(&["agents", "show", name])
        )
    })
    .collect();
    insta::assert_snapshot!(transcripts.join("\n"));
}

#[test]
fn mcp_serve_refuses_to_serve_a_broken_agent() {
    let env = Env::mixed();
    let transcript = env.transcript(&["mcp", "serve", "--agents", "fixer,broken"]);
    assert_eq!(
        transcript,
        "exit: 1\n--- stdout\n--- stderr\nerror: --agents: [PROJECT]/.agentctl/agents/broken.md:4:1: \
         field `temperature`: temperature 7 is outside 0..=2\n"
    );
}

#[test]
fn validate_names_a_broken_agent_and_lists_its_errors() {
    let env = Env::mixed();
    let output = env.run(&["agents", "validate", "broken"]);
    assert_eq!(output.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains(
            "  ✗ field values\n      error: .agentctl/agents/broken.md:4:1: field `temperature`: temperature 7 is outside 0..=2\n"
        ),
        "{stdout}"
    );
}

#[test]
fn validate_all() {
    insta::assert_snapshot!(Env::mixed().transcript(&["agents", "validate", "--all"]));
}

#[test]
fn validate_one_json() {
    let env = Env::mixed();
    let output = env.run(&["agents", "validate", "fixer", "--format", "json"]);
    assert!(output.status.success());
    let reports: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(reports[0]["valid"], true);
    assert_eq!(reports[0]["checks"].as_array().unwrap().len(), 7);
    let broken = env.run(&["agents", "validate", "wrong-type"]);
    assert_eq!(broken.status.code(), Some(1));
}

#[test]
fn create_validate_delete_round_trip() {
    let env = Env::empty();
    insta::assert_snapshot!(
        "create",
        env.transcript(&[
            "agents",
            "create",
            "x",
            "--description",
            "d",
            "--tools",
            "read_file,grep"
        ])
    );
    let file = env.project.join(".agentctl/agents/x.md");
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(
        text.starts_with("---\n# yaml-language-server: $schema="),
        "{text}"
    );
    let again = env.run(&["agents", "create", "x", "--description", "d"]);
    assert!(String::from_utf8_lossy(&again.stderr).contains("already exists: pass --force"));
    assert!(
        env.run(&["agents", "create", "x", "--description", "d2", "--force"])
            .status
            .success()
    );
    let validate = env.run(&["agents", "validate", "x"]);
    assert!(
        validate.status.success(),
        "{}",
        String::from_utf8_lossy(&validate.stdout)
    );
    assert!(String::from_utf8_lossy(&validate.stdout).contains("Validation: 7/7 passed"));
    let refused = env.run(&["agents", "delete", "x"]);
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("without confirmation: pass --yes"));
    let deleted = env.run(&["agents", "delete", "x", "--yes"]);
    assert!(deleted.status.success());
    assert!(!file.exists());
}

#[test]
fn create_from_template_globally() {
    let env = Env::empty();
    let output = env.run(&[
        "agents",
        "create",
        "sec",
        "--template",
        "security",
        "--global",
        "--model",
        "sonnet",
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = std::fs::read_to_string(env.home.join(".agentctl/agents/sec.md")).unwrap();
    assert!(
        text.contains("title: Security Auditor") && text.contains("model: sonnet"),
        "{text}"
    );
}

#[test]
fn non_interactive_create_names_the_missing_flag() {
    let env = Env::empty();
    let output = env.run(&["agents", "create"]);
    assert!(String::from_utf8_lossy(&output.stderr).contains("missing agent name: pass NAME"));
    let output = env.run(&["agents", "create", "y"]);
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("missing description: pass --description")
    );
    let output = env.run(&["agents", "create", "Bad_Name", "--description", "d"]);
    assert!(String::from_utf8_lossy(&output.stderr).contains("not a valid agent name"));
}

#[test]
fn edit_needs_an_editor_and_revalidates() {
    let env = Env::mixed();
    let output = env.run(&["agents", "edit", "fixer"]);
    assert!(
        String::from_utf8_lossy(&output.stderr)
            .contains("no editor configured: set $VISUAL or $EDITOR")
    );
    let output = Command::new(env!("CARGO_BIN_EXE_agentctl"))
        .args(["--project-dir"])
        .arg(&env.project)
        .args(["agents", "edit", "fixer"])
        .env("HOME", &env.home)
        .env("AGENTCTL_HOME", env.home.join(".agentctl"))
        .env_remove("VISUAL")
        .env("EDITOR", "true --ignored-flag")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(String::from_utf8_lossy(&output.stdout).contains("Validation: 7/7 passed"));
}

#[test]
fn delete_foreign_file_says_which() {
    let env = Env::mixed();
    let output = env.run(&["agents", "delete", "test-runner", "--yes"]);
    assert!(output.status.success());
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "Deleted Claude Code agent `test-runner` (.claude/agents/engineering/test-runner.md)\n"
    );
}
