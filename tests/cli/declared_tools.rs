//! Declared tools are offered tools: a `handoffs:` entry brings its `handoff_to_<agent>` (and
//! `memory:` its memory tools) whatever `tools.allow` says; `tools.deny` alone removes one,
//! and `agents validate` says so at the handoff; `agents tools` lists exactly what `run`
//! offers; `agents create --allow … --handoff …` writes an agent that hands off. Runs go over
//! HTTP to the strict fake OpenAI server, which records what each request offered.

use super::support::request::{offered_tools, tool_results};
use super::support::{ServedModel, TestProject, everything_server, text};
use serde_json::Value;

/// An agent file on the strict fake's model.
fn agent(name: &str, extra: &str) -> String {
    format!(
        "---\nname: {name}\ndescription: The {name} agent.\nmodel: openai:gpt-4o-mini\n{extra}---\nYou are {name}.\n"
    )
}

/// A project with `triage` (its `extra` front matter) and `billing`, limited to `read_file`.
fn project(triage: &str) -> TestProject {
    let project = TestProject::new();
    project
        .write(".agentctl/agents/triage.md", &agent("triage", triage))
        .write(
            ".agentctl/agents/billing.md",
            &agent("billing", "tools:\n  allow: [read_file]\n"),
        );
    project
}

/// The names `agents tools NAME --format json` (and `extra` flags) lists, as the OpenAI wire
/// spells them (`mcp.srv.tool` is `mcp__srv__tool`), sorted; with the `allowed` flag of each.
fn listed(project: &TestProject, name: &str, extra: &[&str]) -> Vec<(String, bool)> {
    let mut args = vec!["agents", "tools", name, "--format", "json"];
    args.extend(extra);
    let report = project.json(&args);
    let mut names: Vec<(String, bool)> = report["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| {
            (
                tool["name"].as_str().unwrap().replace('.', "__"),
                tool["allowed"].as_bool().unwrap(),
            )
        })
        .collect();
    names.sort();
    names
}

fn names(listed: &[(String, bool)]) -> Vec<String> {
    listed.iter().map(|(name, _)| name.clone()).collect()
}

/// `agentctl run NAME -p PROMPT --format json` against `model`; must succeed.
fn run(project: &TestProject, model: &ServedModel, name: &str, prompt: &str) -> Value {
    let mut command = project.command(&["run", name, "-p", prompt, "--format", "json"]);
    model.point(&mut command);
    let output = command.output().unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
fn an_allow_list_of_built_ins_still_offers_the_declared_handoff_and_hands_off() {
    let project = project("tools:\n  allow: [read_file]\nhandoffs:\n  - to: billing\n");
    let model = ServedModel::openai();
    model.answer_call(
        "call_1",
        "handoff_to_billing",
        r#"{"reason":"a refund question"}"#,
    );
    model.answer_text("Refund issued.");
    let result = run(&project, &model, "triage", "I want a refund");
    assert_eq!(result["agents"], serde_json::json!(["triage", "billing"]));
    assert_eq!(result["text"], "Refund issued.");

    let requests = model.server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(
        offered_tools(&requests[0].body),
        ["handoff_to_billing", "read_file"]
    );
    // The second request is billing's, with billing's own tools.
    assert_eq!(offered_tools(&requests[1].body), ["read_file"]);
    let system = requests[1].body["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("You are billing."), "{system}");
    model.server.assert_no_violations();

    // `agents tools` lists what the run offered, table and JSON.
    assert_eq!(
        names(&listed(&project, "triage", &[])),
        offered_tools(&requests[0].body)
    );
    let table = text(&project.agentctl(&["agents", "tools", "triage"]).stdout);
    assert!(table.contains("handoff_to_billing"), "{table}");
    let all = listed(&project, "triage", &["--all"]);
    assert!(
        all.contains(&("handoff_to_billing".to_owned(), true)),
        "{all:?}"
    );
    assert!(all.contains(&("bash".to_owned(), false)), "{all:?}");

    // And validation has nothing to say about the tools.
    let report = project.json(&["agents", "validate", "triage", "--format", "json"]);
    let tools = report[0]["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|check| check["name"] == "tools exist")
        .unwrap();
    assert_eq!(tools["diagnostics"], serde_json::json!([]), "{tools:#}");
}

#[test]
fn a_denied_handoff_is_not_offered_and_validate_says_where() {
    let project = project(
        "tools:\n  allow: [read_file]\n  deny: ['handoff_to_*']\nhandoffs:\n  - to: billing\n",
    );
    let model = ServedModel::openai();
    // A model that calls it anyway is refused, as for any tool the agent may not use.
    model.answer_call(
        "call_1",
        "handoff_to_billing",
        r#"{"reason":"a refund question"}"#,
    );
    model.answer_text("I cannot hand this off.");
    let result = run(&project, &model, "triage", "I want a refund");
    assert_eq!(result["agents"], serde_json::json!(["triage"]));

    let requests = model.server.requests();
    assert_eq!(offered_tools(&requests[0].body), ["read_file"]);
    assert_eq!(
        tool_results(&requests[1].body),
        ["Tool not allowed for this agent: handoff_to_billing"]
    );
    model.server.assert_no_violations();

    assert_eq!(names(&listed(&project, "triage", &[])), ["read_file"]);
    let all = listed(&project, "triage", &["--all"]);
    assert!(
        all.contains(&("handoff_to_billing".to_owned(), false)),
        "{all:?}"
    );

    let validate = project.output(&["agents", "validate", "triage"]);
    assert!(validate.status.success(), "a warning, not an error");
    let shown = text(&validate.stdout);
    assert!(
        shown.contains(
            "warning: .agentctl/agents/triage.md:9:5: field `handoffs[0].to`: the handoff to \
             `billing` is never offered: tools.deny (tools.deny[0] `handoff_to_*`) removes \
             `handoff_to_billing`; drop the entry, or the declaration"
        ),
        "{shown}"
    );
}

/// Every kind of tool a run offers — built-in, MCP, `task`, handoff, session and long-term
/// memory — listed by `agents tools` exactly as the run's first request offered it.
#[test]
fn agents_tools_lists_exactly_what_run_offers() {
    let Some(server) = everything_server() else {
        return;
    };
    let settings = serde_json::json!({
        "mcpServers": { "everything": { "command": server, "args": ["stdio"] } }
    });
    let project = project(
        "mcp:\n  servers: [everything]\ntools:\n  allow: [read_file, task, mcp.everything.echo]\nhandoffs:\n  - to: billing\nmemory:\n  session: [ticket]\n  longTerm: true\n",
    );
    project
        .write(".agentctl/settings.json", &settings.to_string())
        .write(
            ".agentctl/agents/open.md",
            &agent("open", "handoffs:\n  - to: billing\n"),
        );
    let model = ServedModel::openai();
    model.answer_text("Noted.");
    model.answer_text("Noted.");
    run(&project, &model, "triage", "Hello");
    run(&project, &model, "open", "Hello");
    let requests = model.server.requests();
    model.server.assert_no_violations();

    let triage = offered_tools(&requests[0].body);
    assert_eq!(
        triage,
        [
            "handoff_to_billing",
            "mcp__everything__echo",
            "memory_get",
            "memory_set",
            "read_file",
            "recall",
            "remember",
            "task",
        ]
    );
    assert_eq!(names(&listed(&project, "triage", &[])), triage);
    // Without an allow list: every built-in tool, `task` and the handoff.
    let open = offered_tools(&requests[1].body);
    assert!(open.contains(&"bash".to_owned()) && open.contains(&"task".to_owned()));
    assert!(open.contains(&"handoff_to_billing".to_owned()), "{open:?}");
    assert_eq!(names(&listed(&project, "open", &[])), open);
}

/// The file `agents create --allow read_file,grep --handoff billing` writes works as written:
/// the allow list stays as given and the handoff is offered and made.
#[test]
fn agents_create_with_an_allow_list_and_a_handoff_writes_an_agent_that_hands_off() {
    let project = TestProject::new();
    project.write(
        ".agentctl/agents/billing.md",
        &agent("billing", "tools:\n  allow: [read_file]\n"),
    );
    let created = project.agentctl(&[
        "agents",
        "create",
        "triage",
        "--description",
        "Routes questions",
        "--model",
        "openai:gpt-4o-mini",
        "--allow",
        "read_file,grep",
        "--handoff",
        "billing",
        "--no-input",
    ]);
    assert!(
        !text(&created.stdout).contains("to tools.allow"),
        "{}",
        text(&created.stdout)
    );
    let file = std::fs::read_to_string(project.root.join(".agentctl/agents/triage.md")).unwrap();
    assert!(
        file.contains("tools:\n  allow:\n  - read_file\n  - grep\nhandoffs:\n- to: billing\n"),
        "{file}"
    );

    let model = ServedModel::openai();
    model.answer_call("call_1", "handoff_to_billing", r#"{"reason":"billing"}"#);
    model.answer_text("Billing here.");
    let result = run(&project, &model, "triage", "A billing question");
    assert_eq!(result["agents"], serde_json::json!(["triage", "billing"]));
    let requests = model.server.requests();
    assert_eq!(
        offered_tools(&requests[0].body),
        ["grep", "handoff_to_billing", "read_file"]
    );
    model.server.assert_no_violations();
}
