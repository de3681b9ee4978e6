//! `agentctl agents …` on the `mixed` fixture (project and home agents in the three formats,
//! some broken) or on an empty project.

use super::support::{TestProject, text};

#[test]
fn list_table() {
    insta::assert_snapshot!(TestProject::fixture("mixed").transcript(&["agents", "list", "--all"]));
}

#[test]
fn list_json_lists_each_agent_once_with_its_format() {
    let project = TestProject::fixture("mixed");
    let output = project.output(&["agents", "list", "--format", "json"]);
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
            ("bad-yaml", "broken", "project"),
            ("broken", "native", "project"),
            ("code-reviewer", "claude", "project"),
            ("debugger", "claude", "global"),
            ("empty-body", "broken", "project"),
            ("fixer", "native", "project"),
            ("helper-remote", "gemini", "project"),
            ("latin1", "broken", "project"),
            ("no-name", "broken", "project"),
            ("security-auditor", "gemini", "project"),
            ("test-runner", "claude", "project"),
            ("unterminated", "broken", "project"),
            ("wrong-type", "broken", "project"),
        ]
    );
    for agent in &agents {
        for key in ["title", "description", "model", "path", "contextMode"] {
            assert!(agent.get(key).is_some(), "{key} missing in {agent}");
        }
    }
    // Every broken file is listed, marked with its located error; runnable ones have none.
    let errors: Vec<&str> = agents
        .iter()
        .filter_map(|agent| agent["error"].as_str())
        .collect();
    for expected in [
        ".agentctl/agents/bad-yaml.md:3:14: field `description`",
        ".agentctl/agents/broken.md:4:1: field `temperature`",
        ".agentctl/agents/empty-body.md:4:1: the system prompt is empty",
        ".agentctl/agents/latin1.md:3:17: the file is not valid UTF-8",
        ".agentctl/agents/no-name.md:2:1: field `name`: missing field `name`",
        ".agentctl/agents/unterminated.md:1:1: the front matter opened here is never closed",
        ".agentctl/agents/wrong-type.md:4:11: field `maxTurns`: invalid type: string \"ten\", expected u32",
    ] {
        assert!(
            errors.iter().any(|error| error.starts_with(expected)),
            "{expected}\nnot in\n{errors:#?}"
        );
    }
    assert_eq!(errors.len(), 7);
    let shadowed = project.output(&[
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
    insta::assert_snapshot!(TestProject::fixture("mixed").transcript(&[
        "agents",
        "show",
        "backend-architect"
    ]));
}

#[test]
fn show_unknown_name_suggests() {
    insta::assert_snapshot!(TestProject::fixture("mixed").transcript(&[
        "agents",
        "show",
        "code-reviwer"
    ]));
}

#[test]
fn show_refuses_broken_agents_with_located_errors() {
    let project = TestProject::fixture("mixed");
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
            project.transcript(&["agents", "show", name])
        )
    })
    .collect();
    insta::assert_snapshot!(transcripts.join("\n"));
}

#[test]
fn mcp_serve_refuses_to_serve_a_broken_agent() {
    let project = TestProject::fixture("mixed");
    let transcript = project.transcript(&["mcp", "serve", "--agents", "fixer,broken"]);
    assert_eq!(
        transcript,
        "exit: 1\n--- stdout\n--- stderr\nerror: --agents: [PROJECT]/.agentctl/agents/broken.md:4:1: \
         field `temperature`: temperature 7 is outside 0..=2\n"
    );
}

#[test]
fn validate_names_a_broken_agent_and_lists_its_errors() {
    let project = TestProject::fixture("mixed");
    let output = project.output(&["agents", "validate", "broken"]);
    assert_eq!(output.status.code(), Some(1));
    let stdout = text(&output.stdout);
    assert!(
        stdout.contains(
            "  ✗ field values\n      error: .agentctl/agents/broken.md:4:1: field `temperature`: temperature 7 is outside 0..=2\n"
        ),
        "{stdout}"
    );
}

#[test]
fn validate_all() {
    insta::assert_snapshot!(
        TestProject::fixture("mixed").transcript(&["agents", "validate", "--all"])
    );
}

#[test]
fn validate_one_json() {
    let project = TestProject::fixture("mixed");
    let output = project.output(&["agents", "validate", "fixer", "--format", "json"]);
    assert!(output.status.success());
    let reports: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(reports[0]["valid"], true);
    assert_eq!(reports[0]["checks"].as_array().unwrap().len(), 7);
    let broken = project.output(&["agents", "validate", "wrong-type"]);
    assert_eq!(broken.status.code(), Some(1));
}

#[test]
fn create_validate_delete_round_trip() {
    let project = TestProject::new();
    insta::assert_snapshot!(
        "create",
        project.transcript(&[
            "agents",
            "create",
            "x",
            "--description",
            "d",
            "--tools",
            "read_file,grep"
        ])
    );
    let file = project.root.join(".agentctl/agents/x.md");
    let written = std::fs::read_to_string(&file).unwrap();
    assert!(
        written.starts_with("---\n# yaml-language-server: $schema="),
        "{written}"
    );
    let again = project.output(&["agents", "create", "x", "--description", "d"]);
    assert!(text(&again.stderr).contains("already exists: pass --force"));
    assert!(
        project
            .output(&["agents", "create", "x", "--description", "d2", "--force"])
            .status
            .success()
    );
    let validate = project.output(&["agents", "validate", "x"]);
    assert!(validate.status.success(), "{}", text(&validate.stdout));
    assert!(text(&validate.stdout).contains("Validation: 7/7 passed"));
    let refused = project.output(&["agents", "delete", "x"]);
    assert!(!refused.status.success());
    assert!(text(&refused.stderr).contains("without confirmation: pass --yes"));
    let deleted = project.output(&["agents", "delete", "x", "--yes"]);
    assert!(deleted.status.success());
    assert!(!file.exists());
}

#[test]
fn create_from_template_globally() {
    let project = TestProject::new();
    let output = project.output(&[
        "agents",
        "create",
        "sec",
        "--template",
        "security",
        "--global",
        "--model",
        "sonnet",
    ]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let written = std::fs::read_to_string(project.home.join(".agentctl/agents/sec.md")).unwrap();
    assert!(
        written.contains("title: Security Auditor") && written.contains("model: sonnet"),
        "{written}"
    );
}

#[test]
fn non_interactive_create_names_the_missing_flag() {
    let project = TestProject::new();
    let output = project.output(&["agents", "create"]);
    assert!(text(&output.stderr).contains("missing agent name: pass NAME"));
    // A missing description is derived (issue 36): the output says so.
    let output = project.output(&["agents", "create", "y"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(text(&output.stdout).contains("note: no --description: derived \"Y\""));
    let output = project.output(&["agents", "create", "Bad_Name", "--description", "d"]);
    assert!(text(&output.stderr).contains("not a valid agent name"));
}

#[test]
fn edit_needs_an_editor_and_revalidates() {
    let project = TestProject::fixture("mixed");
    let output = project.output(&["agents", "edit", "fixer"]);
    assert!(text(&output.stderr).contains("no editor configured: set $VISUAL or $EDITOR"));
    let output = project
        .command(&["agents", "edit", "fixer"])
        .env("EDITOR", "true --ignored-flag")
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(text(&output.stdout).contains("Validation: 7/7 passed"));
}

#[test]
fn delete_foreign_file_says_which() {
    let project = TestProject::fixture("mixed");
    let output = project.output(&["agents", "delete", "test-runner", "--yes"]);
    assert!(output.status.success());
    assert_eq!(
        text(&output.stdout),
        "Deleted Claude Code agent `test-runner` (.claude/agents/engineering/test-runner.md)\n"
    );
}
