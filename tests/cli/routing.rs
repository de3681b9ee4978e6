//! End-to-end tests of routing by triggers: `agentctl route`, `agentctl run --auto` (and
//! `agents.autoRoute`), the `agents.defaultAgent` fallback, `--agent`, and the top-level
//! `agentctl "PROMPT"` form — the seed's scenario 1, offline with scripted models.

use super::support::{TestProject, text};
use serde_json::Value;

const BUG: &str = "There's a bug in the login flow";

/// The seed's three agents, each with a cassette that proves which one answered.
fn seed_project() -> TestProject {
    let project = TestProject::new();
    project.serve_cassettes();
    project.write(
        ".agentctl/agents/debug-analyzer.md",
        "---\nname: debug-analyzer\ndescription: Finds the cause of bugs.\nmodel: scripted:debug.yaml\n\
         triggers:\n  - intent: debug\n    keywords: [bug, error, crash, exception, stack trace]\n    priority: 10\n\
         ---\n\nFind the bug.\n",
    );
    project.write(
        ".agentctl/agents/code-reviewer.md",
        "---\nname: code-reviewer\ndescription: Reviews code.\nmodel: scripted:review.yaml\n\
         triggers:\n  - intent: review\n    keywords: [review, PR, pull request, code quality]\n    priority: 5\n\
         ---\n\nReview the code.\n",
    );
    project.write(
        ".agentctl/agents/test-fixer.md",
        "---\nname: test-fixer\ndescription: Fixes failing tests.\nmodel: scripted:fix.yaml\n\
         triggers:\n  - regex: \"fix.*test\"\n    priority: 8\n---\n\nFix the tests.\n",
    );
    for (file, answer) in [
        ("debug.yaml", "debug-analyzer here"),
        ("review.yaml", "code-reviewer here"),
        ("fix.yaml", "test-fixer here"),
    ] {
        // The expectation proves the prompt reached the agent unchanged.
        project.write(
            file,
            &format!(
                "version: 1\nturns:\n  - expect: {{ lastUserContains: 'login flow' }}\n    response: {{ text: {answer} }}\n"
            ),
        );
    }
    project
}

fn settings(project: &TestProject, agents: &str) {
    project.write(
        ".agentctl/settings.json",
        &format!("{{\"agents\": {agents}}}"),
    );
}

#[test]
fn route_explains_the_seed_scenario() {
    let project = seed_project();
    insta::assert_snapshot!(project.transcript(&["route", BUG]));
}

#[test]
fn route_ranks_every_match_with_what_matched_where() {
    let project = seed_project();
    insta::assert_snapshot!(project.transcript(&[
        "route",
        "Review the PR, fix the flaky TEST and the STACK\ntrace"
    ]));
}

#[test]
fn route_json_has_the_prompt_matches_and_selection() {
    let project = seed_project();
    let json = project.json(&["route", BUG, "--format", "json"]);
    assert_eq!(json["prompt"], BUG);
    assert_eq!(
        json["matches"],
        serde_json::json!([{
            "agent": "debug-analyzer",
            "scope": "project",
            "priority": 10,
            "trigger": 0,
            "intent": "debug",
            "matches": [{"kind": "keyword", "keyword": "bug", "span": {"start": 10, "end": 13}}]
        }])
    );
    assert_eq!(
        json["selected"],
        serde_json::json!({"agent": "debug-analyzer", "fallback": false})
    );

    let none = project.json(&["route", "hello there", "--format", "json"]);
    assert_eq!(none["matches"], serde_json::json!([]));
    assert_eq!(none["selected"], Value::Null);

    settings(&project, r#"{"defaultAgent": "code-reviewer"}"#);
    let fallback = project.json(&["route", "hello there", "--format", "json"]);
    assert_eq!(
        fallback["selected"],
        serde_json::json!({"agent": "code-reviewer", "fallback": true})
    );
}

#[test]
fn route_without_a_match_lists_the_agents_with_triggers() {
    let project = seed_project();
    // Words inside other words do not count: `debug` is not `bug`, `prompt` is not `PR`.
    insta::assert_snapshot!(project.transcript(&["route", "debug the prompt"]));
}

#[test]
fn run_auto_picks_the_debug_analyzer_and_says_why() {
    let project = seed_project();
    let output = project.agentctl(&["run", "-p", BUG, "--auto"]);
    assert_eq!(text(&output.stdout), "debug-analyzer here\n");
    assert_eq!(
        text(&output.stderr),
        "Auto-routing to: debug-analyzer (matched: bug)\ncontext: isolated (default)\n"
    );
}

#[test]
fn a_bare_prompt_at_the_top_level_runs_auto_routed() {
    let project = seed_project();
    let output = project.agentctl(&[BUG]);
    assert_eq!(text(&output.stdout), "debug-analyzer here\n");
    assert!(
        text(&output.stderr).starts_with("Auto-routing to: debug-analyzer (matched: bug)"),
        "{}",
        text(&output.stderr)
    );
    // `run` flags may follow the prompt.
    let json = project.json(&[
        "Please fix the login flow test",
        "--format",
        "json",
        "--no-stream",
    ]);
    assert_eq!(json["text"], "test-fixer here");
    assert_eq!(json["agent"], "test-fixer");
}

#[test]
fn a_mistyped_command_is_not_taken_for_a_prompt() {
    let project = seed_project();
    let output = project.output(&["agnets", "list"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = text(&output.stderr);
    assert!(
        stderr.starts_with("error: unrecognized subcommand 'agnets'"),
        "{stderr}"
    );
    assert!(
        stderr.contains("a similar subcommand exists: 'agents'"),
        "{stderr}"
    );
    // One word is a command name, never a prompt.
    let output = project.output(&["routee"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        text(&output.stderr).contains("'route'"),
        "{}",
        text(&output.stderr)
    );
    // Words after a prompt must be flags of `run`.
    let output = project.output(&[BUG, "debug-analyzer"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        text(&output.stderr).contains("quote the whole prompt as one argument"),
        "{}",
        text(&output.stderr)
    );
}

#[test]
fn without_a_name_or_auto_routing_run_says_how_to_pick_one() {
    let project = seed_project();
    insta::assert_snapshot!(project.transcript(&["run", "-p", BUG]));
}

#[test]
fn the_auto_route_setting_routes_runs_without_a_name() {
    let project = seed_project();
    settings(&project, r#"{"autoRoute": true}"#);
    let output = project.agentctl(&["run", "-p", "Review the login flow code, please"]);
    assert_eq!(text(&output.stdout), "code-reviewer here\n");
    assert_eq!(
        text(&output.stderr),
        "Auto-routing to: code-reviewer (matched: review)\ncontext: isolated (default)\n"
    );
}

#[test]
fn a_name_wins_over_auto_routing() {
    let project = seed_project();
    settings(&project, r#"{"autoRoute": true}"#);
    for args in [
        &["run", "--auto", "--agent", "code-reviewer", "-p", BUG][..],
        &["run", "code-reviewer", "--auto", "-p", BUG][..],
        &[BUG, "--agent", "code-reviewer"][..],
    ] {
        let output = project.agentctl(args);
        assert_eq!(text(&output.stdout), "code-reviewer here\n", "{args:?}");
        assert_eq!(
            text(&output.stderr),
            "context: isolated (default)\n",
            "{args:?}"
        );
    }
    let both = project.output(&["run", "code-reviewer", "--agent", "test-fixer", "-p", BUG]);
    assert_eq!(both.status.code(), Some(2));
}

#[test]
fn no_match_falls_back_to_the_default_agent() {
    let project = seed_project();
    settings(&project, r#"{"defaultAgent": "code-reviewer"}"#);
    let output = project.agentctl(&["run", "--auto", "-p", "Tidy up the login flow"]);
    assert_eq!(text(&output.stdout), "code-reviewer here\n");
    assert_eq!(
        text(&output.stderr),
        "No agent's triggers match the prompt; running the default agent code-reviewer (agents.defaultAgent)\ncontext: isolated (default)\n"
    );
}

#[test]
fn no_match_without_a_default_agent_is_an_error_listing_the_triggers() {
    let project = seed_project();
    insta::assert_snapshot!(project.transcript(&["run", "--auto", "-p", "Tidy up the login flow"]));
}

#[test]
fn a_default_agent_that_does_not_exist_is_named_in_the_error() {
    let project = seed_project();
    settings(&project, r#"{"defaultAgent": "code-reviwer"}"#);
    insta::assert_snapshot!(project.transcript(&["run", "--auto", "-p", "Tidy up the login flow"]));
    let route = project.output(&["route", "Tidy up"]);
    assert!(
        text(&route.stdout).contains(
            "selected: code-reviwer (agents.defaultAgent: no trigger matched; it cannot run"
        ),
        "{}",
        text(&route.stdout)
    );
}

#[test]
fn ties_go_to_the_project_then_the_name() {
    let project = seed_project();
    // A global agent with the same priority and as many matches as the project's.
    let global = project.home.join(".agentctl/agents");
    std::fs::create_dir_all(&global).unwrap();
    for name in ["bug-hunter", "a-global-debugger"] {
        std::fs::write(
            global.join(format!("{name}.md")),
            format!(
                "---\nname: {name}\ndescription: Hunts bugs.\ntriggers:\n  - keywords: [bug]\n    priority: 10\n---\n\nHunt.\n"
            ),
        )
        .unwrap();
    }
    project.write(
        ".agentctl/agents/zz-bugs.md",
        "---\nname: zz-bugs\ndescription: Also bugs.\ntriggers:\n  - keywords: [bug]\n    priority: 10\n---\n\nBugs.\n",
    );
    let json = project.json(&["route", BUG, "--format", "json"]);
    let order: Vec<&str> = json["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["agent"].as_str().unwrap())
        .collect();
    assert_eq!(
        order,
        [
            "debug-analyzer",
            "zz-bugs",
            "a-global-debugger",
            "bug-hunter"
        ]
    );
}

#[test]
fn an_agent_whose_file_has_errors_is_not_routed_to_and_route_says_so() {
    let project = seed_project();
    project.write(
        ".agentctl/agents/broken.md",
        "---\nname: broken\ndescription: Broken.\ntriggers:\n  - regex: '(unclosed'\n    keywords: [login]\n    priority: 99\n---\n\nx\n",
    );
    let output = project.output(&["route", BUG]);
    assert!(output.status.success());
    assert!(
        text(&output.stdout).contains("selected: debug-analyzer"),
        "{}",
        text(&output.stdout)
    );
    assert_eq!(
        text(&output.stderr),
        "warning: agent `broken` is not routed to: its file has errors (see `agentctl agents validate broken`)\n"
    );
}

#[test]
fn route_help_has_examples_and_the_ranking_rule() {
    let project = TestProject::new();
    let help = text(&project.agentctl(&["route", "--help"]).stdout);
    assert!(
        help.contains("agentctl route \"There's a bug in the login flow\""),
        "{help}"
    );
    assert!(
        help.contains("then project before\nglobal, then by name"),
        "{help}"
    );
    let top = text(&project.agentctl(&["--help"]).stdout);
    assert!(
        top.contains("agentctl \"There's a bug in the login flow\""),
        "{top}"
    );
    assert!(top.contains("A single word is read as a\ncommand"), "{top}");
}

#[test]
fn on_a_terminal_the_line_has_the_seed_robot() {
    if !super::support::has_script() {
        return;
    }
    let project = seed_project();
    let output = project
        .terminal_command(&["run", "--auto", "-p", BUG])
        .output()
        .unwrap();
    let screen = text(&output.stdout);
    assert!(output.status.success(), "{screen}");
    assert!(
        screen.contains("🤖 Auto-routing to: debug-analyzer (matched: bug)"),
        "{screen}"
    );
}
