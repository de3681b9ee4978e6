//! Seed fidelity, second pass (issue 36), end to end on the strict OpenAI fake: the seed's
//! graph YAML as written, validator programs, LangSmith tracing and an unknown backend that
//! blocks nothing, budgets, selective sharing, plan mode, substring triggers, Gemini CLI's
//! settings and strict validation — each with the seed's own text where the seed has one.

use super::support::{ServedModel, TestProject, text};
use agentctl_test_support::OtlpReceiver;
use serde_json::{Value, json};

fn agent(name: &str, extra: &str) -> String {
    format!(
        "---\nname: {name}\ntitle: {name}\ndescription: the {name}\nmodel: openai:gpt-4o-mini\n{extra}---\nYou are {name}.\n"
    )
}

/// Seed 002 §4.1.5's graph, as written (no `output:` anywhere).
const SEED_GRAPH: &str = "---
name: debug-flow
title: Debug Flow
description: analyze, fix, review
graph:
  entry: analyzer
  nodes:
    - name: analyzer
      agent: debug-analyzer
    - name: fixer
      agent: code-fixer
    - name: reviewer
      agent: code-reviewer
  edges:
    - from: analyzer
      to: fixer
      condition: analysis.can_auto_fix
    - from: fixer
      to: reviewer
      condition: fix.applied
    - from: analyzer
      to: END
      condition: analysis.needs_human
---
";

#[test]
fn the_seed_graph_as_written_takes_its_conditional_edges() {
    let project = TestProject::new();
    project
        .write(".agentctl/agents/debug-flow.md", SEED_GRAPH)
        .write(
            ".agentctl/agents/debug-analyzer.md",
            &agent("debug-analyzer", ""),
        )
        .write(".agentctl/agents/code-fixer.md", &agent("code-fixer", ""))
        .write(
            ".agentctl/agents/code-reviewer.md",
            &agent("code-reviewer", ""),
        );
    let model = ServedModel::openai();
    model.answer_text(r#"{"can_auto_fix": true, "needs_human": false}"#);
    // A LangGraph-style update sets the value under the node's key.
    model.answer_text(r#"{"fix": {"applied": true}}"#);
    model.answer_text("Reviewed: the fix is right.");
    let output = model.run(
        &project,
        &["run", "debug-flow", "-p", "Fix the login crash"],
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(text(&output.stdout).contains("Reviewed: the fix is right."));
    assert_eq!(
        model.server.requests().len(),
        3,
        "analyzer → fixer → reviewer"
    );
    let validate = project.output(&["agents", "validate", "debug-flow"]);
    assert!(validate.status.success(), "{}", text(&validate.stdout));
    assert!(!text(&validate.stdout).contains("which no node stores"));
}

#[test]
fn an_executable_in_the_validators_folder_is_a_validator() {
    let project = TestProject::new();
    project
        .write(
            ".agentctl/agents/writer.md",
            &agent(
                "writer",
                "guardrails:\n  - name: no-todos\n    stage: output\n    validator: no-todos\n    policy: reject\n",
            ),
        )
        .write(
            ".agentctl/validators/no-todos.sh",
            "#!/bin/sh\nif grep -q TODO; then echo 'the answer leaves a TODO' >&2; exit 1; fi\n",
        );
    let script = project.root.join(".agentctl/validators/no-todos.sh");
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let validate = project.output(&["agents", "validate", "writer"]);
    assert!(validate.status.success(), "{}", text(&validate.stdout));

    let model = ServedModel::openai();
    model.answer_text("Done. TODO: tests");
    let output = model.run(&project, &["run", "writer", "-p", "write it"]);
    assert_eq!(output.status.code(), Some(3), "{}", text(&output.stderr));
    assert!(
        text(&output.stderr).contains("the answer leaves a TODO"),
        "{}",
        text(&output.stderr)
    );

    model.answer_text("Done, with tests.");
    let output = model.run(&project, &["run", "writer", "-p", "write it"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
}

#[test]
fn langsmith_tracing_exports_and_an_unknown_backend_blocks_nothing() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let receiver = runtime.block_on(OtlpReceiver::start_at("/otel/v1/traces"));
    let project = TestProject::new();
    project
        .write(
            ".agentctl/agents/helper.md",
            &agent(
                "helper",
                "tracing:\n  enabled: true\n  backend: langsmith\n",
            ),
        )
        .write(
            ".agentctl/settings.json",
            r#"{"agents": {"tracing": {"backend": ["jsonl", "honeycomb"]}}}"#,
        );
    // An unknown backend in settings is a warning, not a load error.
    let shown = project.output(&["config", "show"]);
    assert!(shown.status.success(), "{}", text(&shown.stderr));
    assert!(
        text(&shown.stderr).contains("unknown value `honeycomb` ignored"),
        "{}",
        text(&shown.stderr)
    );

    let model = ServedModel::openai();
    model.answer_text("Hello.");
    let mut command = project.command(&["run", "helper", "-p", "hi"]);
    model.point(&mut command);
    command
        .env("LANGSMITH_ENDPOINT", receiver.endpoint())
        .env("LANGSMITH_API_KEY", "lsv2_pt_test")
        .env("LANGSMITH_PROJECT", "agents");
    let output = command.output().unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    let spans = runtime.block_on(receiver.wait_for_spans(2));
    assert!(
        spans
            .iter()
            .any(|span| span.name.starts_with("invoke_agent")),
        "{spans:?}"
    );
    let request = &receiver.requests()[0];
    assert_eq!(request.header("x-api-key"), Some("lsv2_pt_test"));
    assert_eq!(request.header("langsmith-project"), Some("agents"));
}

#[test]
fn a_budget_stops_the_run_cleanly_and_json_says_what_a_run_cost() {
    let project = TestProject::new();
    project
        .write(
            ".agentctl/agents/reader.md",
            &agent("reader", "tools:\n  allow: [read_file]\n"),
        )
        .write("notes.txt", "hello\n");
    let model = ServedModel::openai();
    model.answer_call("c1", "read_file", r#"{"path":"notes.txt"}"#);
    let output = model.run(
        &project,
        &["run", "reader", "-p", "read", "--max-tokens", "10"],
    );
    assert_eq!(output.status.code(), Some(1));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("stopped at its budget: 15 tokens used of `maxTokens: 10`"),
        "{stderr}"
    );
    assert!(stderr.contains("--max-tokens"), "{stderr}");
    assert_eq!(model.server.requests().len(), 1, "no call after the budget");

    model.answer_text("Hello.");
    let result = {
        let output = model.run(&project, &["run", "reader", "-p", "hi", "--format", "json"]);
        assert!(output.status.success(), "{}", text(&output.stderr));
        serde_json::from_slice::<Value>(&output.stdout).unwrap()
    };
    // gpt-4o-mini: 10 input tokens at $0.15/M and 5 output tokens at $0.60/M.
    let cost = result["costUsd"].as_f64().unwrap();
    assert!((cost - 4.5e-6).abs() < 1e-12, "{result}");
    let bad = project.output(&["run", "reader", "-p", "x", "--max-cost", "0"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(text(&bad.stderr).contains("not a positive number of US dollars"));
}

#[test]
fn a_shared_agent_with_a_context_filter_sees_only_what_it_lets_through() {
    let project = TestProject::new();
    project.write(
        ".agentctl/agents/fixer.md",
        &agent(
            "fixer",
            "contextMode: shared\ncontextFilter:\n  roles: [user]\n",
        ),
    );
    let model = ServedModel::openai();
    model.answer_text("The main answer, with a long digression.");
    let chat = model.run(
        &project,
        &[
            "chat",
            "--model",
            "openai:gpt-4o-mini",
            "-p",
            "What is wrong with login?",
        ],
    );
    assert!(chat.status.success(), "{}", text(&chat.stderr));
    model.answer_text("Fixed.");
    let fixer = model.run(&project, &["run", "fixer", "--continue", "-p", "Fix it"]);
    assert!(fixer.status.success(), "{}", text(&fixer.stderr));
    let requests = model.server.requests();
    let sent = serde_json::to_string(&requests.last().unwrap().body["messages"]).unwrap();
    assert!(sent.contains("What is wrong with login?"), "{sent}");
    assert!(!sent.contains("long digression"), "{sent}");
}

#[test]
fn a_planning_agent_keeps_the_plan_and_shows_it() {
    let project = TestProject::new();
    project.write(
        ".agentctl/agents/planner.md",
        &agent("planner", "planMode: true\n"),
    );
    let model = ServedModel::openai();
    model.answer_call(
        "c1",
        "todo_write",
        &json!({"todos": [
            {"content": "read the code", "status": "in_progress"},
            {"content": "fix the bug", "status": "pending"}
        ]})
        .to_string(),
    );
    model.answer_text("Planned.");
    let output = model.run(&project, &["run", "planner", "-p", "plan the fix"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("📋 Plan:\n  ◐ 1. read the code\n  ☐ 2. fix the bug"),
        "{stderr}"
    );
    let sessions = project.json(&["sessions", "list", "--format", "json"]);
    let session = sessions[0]["sessionId"].as_str().unwrap();
    let shown = project.json(&["sessions", "show", session, "--format", "json"]);
    assert_eq!(
        shown["state"]["plan"]["value"][1]["content"], "fix the bug",
        "{shown}"
    );
    let tools = project.json(&["agents", "tools", "planner", "--format", "json"]);
    assert!(tools.to_string().contains("todo_write"), "{tools}");

    // Resumed, the session keeps its plan: `todo_read` reads it back from the store.
    model.answer_call("c2", "todo_read", "{}");
    model.answer_text("Still the plan.");
    let resumed = [
        "run",
        "planner",
        "--session",
        session,
        "-p",
        "what is next?",
    ];
    let output = model.run(&project, &resumed);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let requests = model.server.requests();
    let messages = &requests.last().unwrap().body["messages"];
    let read = messages
        .as_array()
        .unwrap()
        .iter()
        .find(|message| message["tool_call_id"] == "c2")
        .unwrap_or_else(|| panic!("no todo_read result in {messages}"));
    let read = read["content"].to_string();
    assert!(
        read.contains("read the code") && read.contains("fix the bug"),
        "{read}"
    );
}

#[test]
fn substring_triggers_route_as_the_seed_router_does() {
    let project = TestProject::new();
    project.write(
        ".agentctl/agents/debugger.md",
        &agent(
            "debugger",
            "triggers:\n  - keywords: [bug]\n    match: substring\n",
        ),
    );
    let routed = project.json(&["route", "debugging the login", "--format", "json"]);
    assert_eq!(routed["selected"]["agent"], "debugger", "{routed}");
}

#[test]
fn gemini_cli_settings_are_layers_with_their_origin() {
    let project = TestProject::new();
    // Seed 000 §5, as written, in the project's Gemini CLI settings.
    project.write(
        ".gemini/settings.json",
        "{\n  \"agents\": {\n    \"defaultContextMode\": \"isolated\",\n    \"allowSharedContext\": true\n  },\n  \"theme\": \"GitHub\"\n}\n",
    );
    let shown = project.output(&["config", "show", "--origin"]);
    assert!(shown.status.success(), "{}", text(&shown.stderr));
    let stdout = text(&shown.stdout);
    assert!(stdout.contains("gemini-project"), "{stdout}");
    assert!(text(&shown.stderr).contains("not read (Gemini CLI's own settings): `theme`"));
}

#[test]
fn an_unknown_allowed_tool_fails_validation_with_a_suggestion() {
    let project = TestProject::new();
    project.write(
        ".agentctl/agents/reader.md",
        &agent("reader", "tools:\n  allow: [read_file, web_serch]\n"),
    );
    let output = project.output(&["agents", "validate", "reader"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        text(&output.stdout).contains("unknown tool `web_serch` (did you mean `web_search`?)"),
        "{}",
        text(&output.stdout)
    );
}

#[test]
fn a_trace_exports_as_the_seeds_events_with_costs() {
    let project = TestProject::new();
    project
        .write(
            ".agentctl/agents/reader.md",
            &agent("reader", "tools:\n  allow: [read_file]\n"),
        )
        .write("notes.txt", "hello\n");
    let model = ServedModel::openai();
    model.answer_call("c1", "read_file", r#"{"path":"notes.txt"}"#);
    model.answer_text("The notes say hello.");
    let output = model.run(&project, &["run", "reader", "-p", "read", "--trace"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let sessions = project.json(&["sessions", "list", "--format", "json"]);
    let session = sessions[0]["sessionId"].as_str().unwrap();
    let events = project.json(&["trace", "export", "--session", session, "--format", "seed"]);
    let kinds: Vec<&str> = events
        .as_array()
        .unwrap()
        .iter()
        .map(|event| event["type"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["llm", "tool", "llm"], "{events}");
    let call = &events[0];
    assert_eq!(call["agentName"], "reader");
    assert!(
        call["timestamp"].as_u64().unwrap() > 1_700_000_000_000,
        "{call}"
    );
    assert!(call["data"]["latency_ms"].is_number(), "{call}");
    assert_eq!(call["data"]["tokens"], json!({"input": 10, "output": 5}));
    assert!(call["data"]["costUsd"].as_f64().unwrap() > 0.0, "{call}");
    assert_eq!(events[1]["data"]["toolName"], "read_file");
    // The span export says what runs and calls cost.
    let spans = project.json(&["trace", "export", "--session", session, "--format", "json"]);
    let run_span = spans
        .as_array()
        .unwrap()
        .iter()
        .find(|span| span["type"] == "run")
        .unwrap();
    assert!(
        (run_span["costUsd"].as_f64().unwrap() - 9e-6).abs() < 1e-12,
        "{run_span}"
    );
}

#[test]
fn an_auto_start_server_starts_with_the_session() {
    let project = TestProject::new();
    project.write(".agentctl/agents/helper.md", &agent("helper", ""));
    let marker = project.root.join("started");
    let settings = json!({"mcpServers": {
        "eager": {"command": "sh", "args": ["-c", format!("echo up > '{}'", marker.display())], "autoStart": true},
        "lazy": {"command": "sh", "args": ["-c", "echo up > lazy-started"]}
    }});
    std::fs::create_dir_all(project.home.join(".agentctl")).unwrap();
    std::fs::write(
        project.home.join(".agentctl/settings.json"),
        settings.to_string(),
    )
    .unwrap();
    let model = ServedModel::openai();
    model.answer_text("Hello.");
    let output = model.run(&project, &["run", "helper", "-p", "hi"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    // The eager server ran although no agent names it (it is no MCP server: a warning says so);
    // the lazy one did not.
    assert!(marker.exists(), "{}", text(&output.stderr));
    assert!(!project.root.join("lazy-started").exists());
}

#[test]
fn a_run_on_a_terminal_starts_with_the_seeds_header() {
    let project = TestProject::new();
    project.write(
        ".agentctl/agents/debug-analyzer.md",
        "---\nname: debug-analyzer\ntitle: Debug Analyzer\ndescription: d\nmodel: openai:gpt-4o-mini\n---\nYou debug.\n",
    );
    let model = ServedModel::openai();
    model.answer_text("The test fails because the fixture is stale.");
    // Seed 002 §3.2.4, as written (but for the binary's name).
    let mut command = project.terminal_command(&[
        "agents",
        "run",
        "debug-analyzer",
        "-p",
        "Why is this test failing?",
    ]);
    model.point(&mut command);
    let output = command.output().unwrap();
    assert!(output.status.success(), "{}", text(&output.stdout));
    let screen = text(&output.stdout);
    assert!(screen.contains("🤖 Debug Analyzer"), "{screen}");
    // Not on a pipe: scripts read the answer alone.
    model.answer_text("Again.");
    let piped = model.run(&project, &["run", "debug-analyzer", "-p", "Why?"]);
    assert!(
        !text(&piped.stderr).contains("🤖"),
        "{}",
        text(&piped.stderr)
    );
}

/// Seed 002 §3.1's file without `kind`, `title`, `tools` and `mcp`: nothing marks it as
/// agentctl's, so in `.gemini/agents/` it is read as Gemini CLI's, and `validate` says so.
#[test]
fn validate_says_which_format_a_file_was_read_in_and_why() {
    let project = TestProject::new();
    project.write(
        ".gemini/agents/debug-analyzer.md",
        "---\nname: debug-analyzer\ndescription: Specialized in analyzing and fixing bugs\n\
         model: gemini-2.5-pro\ncolor: \"#FF5733\"\nscope: project\nversion: 1.0.0\n---\n\n# Role\n\n\
         You are a specialized debugging agent.\n",
    );
    let output = project.output(&["agents", "validate", "debug-analyzer"]);
    let report = text(&output.stdout);
    assert!(
        report.contains(
            "  format: gemini (in a Gemini CLI agents folder, with no agentctl-only fields)"
        ),
        "{report}"
    );
    assert!(
        report.contains(
            ".gemini/agents/debug-analyzer.md:7:1: field `version`: unknown Gemini CLI field: kept \
             in `extra`, agentctl does not use it (if it is agentctl's, `kind: agent` or `title:` \
             reads the file in agentctl's format)"
        ),
        "{report}"
    );
    // With the seed's `kind: agent` the same file is agentctl's, and `validate` says why.
    project.write(
        ".gemini/agents/debug-analyzer.md",
        "---\nkind: agent\nname: debug-analyzer\ndescription: Specialized in analyzing and fixing \
         bugs\nmodel: gemini-2.5-pro\nscope: project\nversion: 1.0.0\n---\n\nYou debug.\n",
    );
    let report = project.json(&["agents", "validate", "debug-analyzer", "--format", "json"]);
    assert_eq!(report[0]["format"], "native", "{report}");
    assert_eq!(
        report[0]["formatReason"],
        "agentctl fields in a Gemini CLI agents folder: `kind: agent`"
    );
}
