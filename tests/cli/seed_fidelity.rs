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
    let example = TestProject::example();
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
