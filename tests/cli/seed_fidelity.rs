//! The seeds' spellings on the command line: `agents run`, seed-format files in `.gemini/agents/`,
//! the context mode in text output, clearing an agent's stored context.

use super::support::{TestProject, text};

/// Seed 000 example 1, as written, in the folder the seed puts it.
const CODE_REVIEWER: &str = "---
kind: agent
name: code-reviewer
title: Code Reviewer
contextMode: isolated  # 独立审查，不需要历史
tools:
  allow: [read_file, grep]
---
Analyze code quality and identify issues.
";

#[test]
fn agents_run_is_run() {
    let example = TestProject::served_example("review-fix");
    let args = ["code-reviewer", "-p", "Review src/stats.py"];
    let via_agents = example.agentctl(&[&["agents", "run"][..], &args].concat());
    let via_run = example.agentctl(&[&["run"][..], &args].concat());
    assert_eq!(text(&via_agents.stdout), text(&via_run.stdout));
    assert!(text(&via_agents.stdout).contains("request-changes"));
    assert!(text(&via_agents.stderr).contains("context: isolated (agent file)"));
}

#[test]
fn a_seed_file_in_gemini_agents_loads_as_native_and_says_why() {
    let project = TestProject::new();
    project.write(".gemini/agents/code-reviewer.md", CODE_REVIEWER);
    insta::assert_snapshot!(project.transcript(&["agents", "show", "code-reviewer"]));
    let json = project.json(&["agents", "show", "code-reviewer", "--format", "json"]);
    assert_eq!(json["source"]["format"], "native");
    assert_eq!(json["contextMode"], "isolated");
    assert_eq!(
        json["tools"]["allow"],
        serde_json::json!(["read_file", "grep"])
    );
    let validate = project.output(&["agents", "validate", "code-reviewer"]);
    assert!(validate.status.success(), "{}", text(&validate.stdout));
}

/// Messages of `scope` in every session of the project.
fn messages_in(project: &TestProject, scope: &str) -> usize {
    use agentctl_store::{MessageLog as _, MessageQuery, SessionLog as _};
    let store = project.store();
    store
        .list_sessions()
        .unwrap()
        .iter()
        .map(|session| {
            store
                .messages(&session.id, &MessageQuery::scope(scope.parse().unwrap()))
                .unwrap()
                .len()
        })
        .sum()
}

const REVIEW: &[&str] = &["run", "code-reviewer", "-p", "Review src/stats.py"];

#[test]
fn clear_history_forgets_the_agents_workspace_and_keeps_the_file_and_the_timeline() {
    let example = TestProject::served_example("review-fix");
    example.agentctl(REVIEW);
    example.agentctl(&[REVIEW, &["--new"]].concat());
    let workspace = messages_in(&example, "agent:code-reviewer");
    assert!(workspace > 0);
    let main = messages_in(&example, "main");
    assert!(main > 0);

    // Without a terminal nothing is asked, and nothing is cleared without --yes.
    let refused = example.output(&["context", "code-reviewer", "--clear-history"]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        text(&refused.stderr).contains("pass --yes"),
        "{}",
        text(&refused.stderr)
    );
    assert_eq!(messages_in(&example, "agent:code-reviewer"), workspace);

    let cleared = example.agentctl(&["context", "code-reviewer", "--clear-history", "--yes"]);
    assert_eq!(
        text(&cleared.stdout),
        format!(
            "Cleared the stored context of `code-reviewer`: {workspace} messages and 0 summaries in 2 sessions\n"
        )
    );
    assert_eq!(messages_in(&example, "agent:code-reviewer"), 0);
    // The handoffs it left in the main timeline stay; so does the file.
    assert_eq!(messages_in(&example, "main"), main);
    assert!(
        example
            .root
            .join(".agentctl/agents/code-reviewer.md")
            .exists()
    );
    // The agent runs again from an empty workspace.
    example.agentctl(REVIEW);
}

#[test]
fn deleting_an_agent_clears_its_stored_context_unless_kept_or_still_defined() {
    let example = TestProject::served_example("review-fix");
    example.agentctl(REVIEW);
    let workspace = messages_in(&example, "agent:code-reviewer");
    assert!(workspace > 0);
    let refused = example.output(&["agents", "delete", "code-reviewer"]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(text(&refused.stderr).contains("pass --yes"));
    assert_eq!(messages_in(&example, "agent:code-reviewer"), workspace);

    // A global file of the same name still defines the agent: its context stays.
    let file =
        std::fs::read_to_string(example.root.join(".agentctl/agents/code-reviewer.md")).unwrap();
    std::fs::create_dir_all(example.home.join(".agentctl/agents")).unwrap();
    std::fs::write(
        example.home.join(".agentctl/agents/code-reviewer.md"),
        &file,
    )
    .unwrap();
    let kept = example.agentctl(&[
        "agents",
        "delete",
        "code-reviewer",
        "--scope",
        "project",
        "--yes",
    ]);
    assert!(
        text(&kept.stdout).contains("Kept its stored context: `code-reviewer` is still defined by ~/.agentctl/agents/code-reviewer.md"),
        "{}",
        text(&kept.stdout)
    );
    assert_eq!(messages_in(&example, "agent:code-reviewer"), workspace);

    let deleted = example.agentctl(&["agents", "delete", "code-reviewer", "--yes"]);
    assert!(
        text(&deleted.stdout).contains(&format!(
            "Cleared its stored context: {workspace} messages and 0 summaries in 1 session\n"
        )),
        "{}",
        text(&deleted.stdout)
    );
    assert_eq!(messages_in(&example, "agent:code-reviewer"), 0);
    assert!(messages_in(&example, "main") > 0);

    // --keep-context keeps it.
    example.write(".agentctl/agents/code-reviewer.md", &file);
    example.agentctl(REVIEW);
    let workspace = messages_in(&example, "agent:code-reviewer");
    let kept = example.agentctl(&[
        "agents",
        "delete",
        "code-reviewer",
        "--yes",
        "--keep-context",
    ]);
    assert!(
        !text(&kept.stdout).contains("Cleared"),
        "{}",
        text(&kept.stdout)
    );
    assert_eq!(messages_in(&example, "agent:code-reviewer"), workspace);
}
