//! Tracing end to end: the seed's scenario 4 (`--trace` on the handoff chain prints llm, tool,
//! handoff and guardrail lines), `trace show|export` reading the session's spans back with
//! their parent links, JSONL files in the seed's layout, `sampleRate` and `events` from the
//! settings, sub-agents under their `task` call and graphs under their nodes.

use super::support::{ServedModel, TestProject, check_shape, text};
use serde_json::{Value, json};
use std::collections::{HashMap, HashSet};

const REQUEST: &str = "Fix this bug: the dashboard crashes after login";

/// The example's settings with `tracing` as `agents.tracing`.
fn with_tracing(project: &TestProject, tracing: Value) {
    let path = project.root.join(".agentctl/settings.json");
    let mut settings: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    settings["agents"]["tracing"] = tracing;
    std::fs::write(path, settings.to_string()).unwrap();
    // An edited settings file is trusted again.
    project.trust();
}

fn latest_session(project: &TestProject) -> String {
    let sessions = project.json(&["sessions", "list", "--format", "json"]);
    sessions[0]["sessionId"].as_str().unwrap().to_owned()
}

fn exported(project: &TestProject, session: &str) -> Vec<Value> {
    let spans = project.json(&["trace", "export", "--session", session, "--format", "json"]);
    let spans = spans.as_array().unwrap().clone();
    for span in &spans {
        check_shape("trace-span", span);
    }
    spans
}

/// Durations, bars, ids and times differ from run to run.
fn trace_filters() -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    // The duration column is right-aligned: its padding changes with the figure.
    settings.add_filter(r" +\d+(\.\d+)?(ms|s) ▕", " [T] ▕");
    settings.add_filter(r"\b\d+(\.\d+)?(ms|s)\b", "[T]");
    settings.add_filter(r"▕[ █]+▏", "[BAR]");
    settings.add_filter(r"trace [0-9a-f]{32} · \S+", "trace [ID] · [TIME]");
    settings
}

#[test]
fn the_seed_scenario_prints_trace_lines_for_llm_tool_handoff_and_guardrail() {
    let project = TestProject::served_example("handoff-chain");
    let output = project.agentctl(&["run", "debug-analyzer", "-p", REQUEST, "--trace"]);
    let stderr = text(&output.stderr);
    // The `[Trace]` blocks, each up to its blank line (tool lines and notes sit between).
    let mut blocks = String::new();
    let mut inside = false;
    for line in stderr.lines() {
        inside = inside || line.starts_with("[Trace]");
        if inside {
            blocks.push_str(line);
            blocks.push('\n');
            inside = !line.is_empty();
        }
    }
    trace_filters().bind(|| insta::assert_snapshot!(blocks));
    // The answer stays alone on stdout.
    assert!(!text(&output.stdout).contains("[Trace]"));
}

#[test]
fn export_of_a_handoff_session_links_every_span_to_its_parent() {
    let project = TestProject::served_example("handoff-chain");
    project.agentctl(&["run", "debug-analyzer", "-p", REQUEST, "--trace"]);
    let session = latest_session(&project);
    let spans = exported(&project, &session);
    let kinds: HashSet<&str> = spans.iter().map(|s| s["type"].as_str().unwrap()).collect();
    for kind in ["session", "run", "llm", "tool", "handoff", "guardrail"] {
        assert!(kinds.contains(kind), "no {kind} span in {kinds:?}");
    }
    let by_id: HashMap<&str, &Value> = spans
        .iter()
        .map(|span| (span["spanId"].as_str().unwrap(), span))
        .collect();
    let kind_of_parent = |span: &Value| {
        let parent = span["parentId"].as_str().expect("a parent");
        by_id[parent]["type"].as_str().unwrap().to_owned()
    };
    for span in &spans {
        assert_eq!(span["sessionId"], session.as_str());
        assert_eq!(span["traceId"], spans[0]["traceId"], "one trace per turn");
        match span["type"].as_str().unwrap() {
            "session" => assert!(span.get("parentId").is_none()),
            "run" | "handoff" => assert_eq!(kind_of_parent(span), "session"),
            _ => assert_eq!(kind_of_parent(span), "run", "{span}"),
        }
    }
    // The seed's fields.
    let llm = spans.iter().find(|s| s["type"] == "llm").unwrap();
    assert_eq!(llm["data"]["prompt"], REQUEST);
    assert!(
        llm["data"]["model"]
            .as_str()
            .unwrap()
            .starts_with("openai:cassette-")
    );
    assert!(llm["data"]["tokens"]["input"].is_u64() && llm["data"]["latencyMs"].is_f64());
    let tool = spans.iter().find(|s| s["type"] == "tool").unwrap();
    assert_eq!(tool["data"]["name"], "read_file");
    assert_eq!(tool["data"]["input"], json!({"path": "src/auth.ts"}));
    assert!(
        tool["data"]["output"]
            .as_str()
            .unwrap()
            .contains("login flow")
    );
    let handoff = spans.iter().find(|s| s["type"] == "handoff").unwrap();
    assert_eq!(
        (&handoff["data"]["from"], &handoff["data"]["to"]),
        (&json!("debug-analyzer"), &json!("code-fixer"))
    );
    assert_eq!(handoff["data"]["payload"]["line"], 44);
    // The target's run follows from the handoff.
    let fixer = spans
        .iter()
        .find(|s| s["type"] == "run" && s["agent"] == "code-fixer")
        .unwrap();
    assert_eq!(fixer["links"], json!([handoff["spanId"]]));
    let guardrail = spans.iter().find(|s| s["type"] == "guardrail").unwrap();
    assert_eq!(guardrail["data"]["name"], "no-secrets-in-review");
    assert_eq!(guardrail["data"]["passed"], true);
    assert_eq!(guardrail["agent"], "code-reviewer");

    // JSON Lines: the same spans, one per line.
    let jsonl = project.agentctl(&[
        "trace",
        "export",
        "--session",
        &session,
        "--format",
        "jsonl",
    ]);
    let lines: Vec<Value> = text(&jsonl.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines, spans);
    // OTLP JSON: one request, on one line, holding every span under its GenAI name.
    let otlp = project.agentctl(&[
        "trace",
        "export",
        "--session",
        &session,
        "--format",
        "otlp-json",
    ]);
    let otlp_text = text(&otlp.stdout);
    assert_eq!(otlp_text.lines().count(), 1);
    let request: Value = serde_json::from_str(&otlp_text).unwrap();
    let names: Vec<&str> = request["resourceSpans"][0]["scopeSpans"][0]["spans"]
        .as_array()
        .unwrap()
        .iter()
        .map(|span| span["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), spans.len());
    assert!(names.contains(&"invoke_agent code-fixer"), "{names:?}");
    assert!(names.contains(&"execute_tool read_file"), "{names:?}");
    assert!(names.contains(&"handoff code-fixer"), "{names:?}");
    // The seed's spelling.
    let again = project.json(&["agents", "trace", "export", "--session", &session]);
    assert_eq!(again.as_array().unwrap(), &spans);
}

#[test]
fn trace_show_draws_the_timeline_tree() {
    let project = TestProject::served_example("handoff-chain");
    project.agentctl(&["run", "debug-analyzer", "-p", REQUEST, "--trace"]);
    let session = latest_session(&project);
    let shown = project.agentctl(&["trace", "show", "--session", &session]);
    trace_filters().bind(|| insta::assert_snapshot!(text(&shown.stdout)));
    let json = project.json(&["trace", "show", "--session", &session, "--format", "json"]);
    let root = &json[0]["roots"][0];
    assert_eq!(root["type"], "session");
    assert_eq!(root["children"][0]["type"], "run");
    assert_eq!(root["children"][0]["children"][0]["type"], "llm");
}

#[test]
fn sessions_without_a_trace_and_unknown_sessions_are_clear_errors() {
    let project = TestProject::served_example("handoff-chain");
    project.agentctl(&["run", "debug-analyzer", "-p", REQUEST]);
    let session = latest_session(&project);
    for args in [
        vec!["trace", "show", "--session", session.as_str()],
        vec!["trace", "export", "--session", session.as_str()],
    ] {
        let output = project.output(&args);
        assert_eq!(output.status.code(), Some(1));
        let stderr = text(&output.stderr);
        assert!(stderr.contains("has no trace"), "{stderr}");
        assert!(stderr.contains("--trace"), "{stderr}");
        assert!(output.stdout.is_empty());
    }
    let output = project.output(&["trace", "show", "--session", "nope"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        text(&output.stderr).contains("nope"),
        "{}",
        text(&output.stderr)
    );
}

#[test]
fn settings_tracing_writes_jsonl_files_in_the_seed_layout_and_appends_per_session() {
    let project = TestProject::served_example("handoff-chain");
    with_tracing(&project, json!({"enabled": true, "backend": "jsonl"}));
    let output = project.agentctl(&["run", "debug-analyzer", "-p", REQUEST]);
    assert!(
        !text(&output.stderr).contains("[Trace]"),
        "no console backend"
    );
    let session = latest_session(&project);
    let days: Vec<_> = std::fs::read_dir(project.root.join(".agentctl/traces"))
        .unwrap()
        .flatten()
        .collect();
    assert_eq!(days.len(), 1);
    let day = days[0].file_name().into_string().unwrap();
    assert!(
        day.len() == 10 && day.as_bytes()[4] == b'-' && day.as_bytes()[7] == b'-',
        "{day}"
    );
    let file = days[0].path().join(format!("session-{session}.jsonl"));
    let read = || -> Vec<Value> {
        std::fs::read_to_string(&file)
            .unwrap()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect()
    };
    let first = read();
    // The files keep the trace crate's span records (snake_case); `trace export` prints the
    // CLI's shape: the same spans.
    let ids = |spans: &[Value], key: &str| {
        let mut ids: Vec<String> = spans
            .iter()
            .map(|span| span[key].as_str().unwrap().to_owned())
            .collect();
        ids.sort();
        ids
    };
    assert_eq!(
        ids(&first, "span_id"),
        ids(&exported(&project, &session), "spanId"),
        "file and store agree"
    );
    // The next turn of the session appends to the same file.
    project.agentctl(&[
        "run",
        "debug-analyzer",
        "--session",
        &session,
        "-p",
        REQUEST,
    ]);
    let both = read();
    assert!(both.len() > first.len() && both.starts_with(&first));
    let traces: HashSet<&Value> = both.iter().map(|span| &span["trace_id"]).collect();
    assert_eq!(traces.len(), 2, "one trace per turn");
}

#[test]
fn sample_rate_zero_records_nothing_and_events_filter_keeps_only_tool_spans() {
    let project = TestProject::served_example("handoff-chain");
    with_tracing(&project, json!({"sampleRate": 0}));
    project.agentctl(&["run", "debug-analyzer", "-p", REQUEST]);
    let session = latest_session(&project);
    assert!(!project.root.join(".agentctl/traces").exists());
    assert!(
        !project
            .output(&["trace", "show", "--session", &session])
            .status
            .success()
    );

    let project = TestProject::served_example("handoff-chain");
    with_tracing(&project, json!({"events": ["tool"]}));
    project.agentctl(&["run", "debug-analyzer", "-p", REQUEST]);
    let session = latest_session(&project);
    let spans = exported(&project, &session);
    assert!(spans.len() >= 5, "{spans:?}");
    assert!(spans.iter().all(|span| span["type"] == "tool"), "{spans:?}");
}

#[test]
fn a_bad_tracing_setting_is_a_located_error() {
    let project = TestProject::served_example("handoff-chain");
    project.write(
        ".agentctl/settings.json",
        "{\"agents\": {\"tracing\": {\n  \"sampleRate\": 1.5}}}",
    );
    let output = project.output(&["run", "debug-analyzer", "-p", REQUEST]);
    assert!(!output.status.success());
    let stderr = text(&output.stderr);
    assert!(stderr.contains("settings.json:2"), "{stderr}");
    assert!(stderr.contains("agents.tracing.sampleRate"), "{stderr}");
    assert!(stderr.contains("outside 0..=1"), "{stderr}");
}

const DELEGATOR: &str = "---
name: reader
description: Reads notes and answers.
model: openai:gpt-4o-mini
tools:
  allow: [read_file, task]
tracing:
  backend: jsonl
---
You read the project's notes and answer briefly.
";

#[test]
fn a_sub_agents_run_hangs_under_the_task_call_that_started_it() {
    let project = TestProject::new();
    project
        .write(".agentctl/agents/reader.md", DELEGATOR)
        .write("notes.txt", "hello from the notes\n");
    let model = ServedModel::openai();
    model.answer_call(
        "call_task",
        "task",
        r#"{"goal":"Read notes.txt and say what it says"}"#,
    );
    // The sub-agent does not stream: its answer comes whole.
    model
        .server
        .push_json(agentctl_test_support::openai::text_response(
            "It says hello from the notes.",
        ));
    model.answer_text("The sub-agent found: hello.");
    let mut command = project.command(&["run", "reader", "-p", "Delegate the reading"]);
    model.point(&mut command);
    let output = command.output().unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    let session = latest_session(&project);
    let spans = exported(&project, &session);
    let task = spans
        .iter()
        .find(|s| s["type"] == "tool" && s["data"]["name"] == "task")
        .unwrap();
    let child = spans
        .iter()
        .find(|s| s["type"] == "run" && s["data"]["depth"] == 1)
        .expect("the sub-agent's run");
    assert_eq!(child["parentId"], task["spanId"]);
    let child_llm = spans
        .iter()
        .find(|s| s["type"] == "llm" && s["parentId"] == child["spanId"])
        .expect("the sub-agent's model call");
    assert_eq!(
        child_llm["data"]["response"],
        "It says hello from the notes."
    );
    // The child's run ends inside the call's span.
    let end = |span: &Value| {
        let start = span["startTime"].as_str().unwrap();
        let start = chrono::DateTime::parse_from_rfc3339(start).unwrap();
        start.timestamp_nanos_opt().unwrap() as f64 + span["durationMs"].as_f64().unwrap() * 1e6
    };
    assert!(end(child) <= end(task) + 1e6);
    model.server.assert_no_violations();
}

#[test]
fn a_graph_run_is_traced_graph_then_nodes_then_runs() {
    let project = TestProject::served_example("debug-flow");
    let output = project.output(&[
        "graph",
        "run",
        "debug-flow",
        "-p",
        "The dashboard crashes after login",
        "--trace",
    ]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let session = latest_session(&project);
    let spans = exported(&project, &session);
    let by_id: HashMap<&str, &Value> = spans
        .iter()
        .map(|span| (span["spanId"].as_str().unwrap(), span))
        .collect();
    let roots: Vec<&Value> = spans
        .iter()
        .filter(|s| s.get("parentId").is_none())
        .collect();
    assert_eq!(roots.len(), 1);
    assert_eq!(roots[0]["type"], "graph");
    assert_eq!(roots[0]["data"]["graph"], "debug-flow");
    let nodes: Vec<&Value> = spans.iter().filter(|s| s["type"] == "node").collect();
    assert!(nodes.len() >= 2, "{nodes:?}");
    for node in &nodes {
        assert_eq!(node["parentId"], roots[0]["spanId"]);
    }
    for run in spans.iter().filter(|s| s["type"] == "run") {
        let parent = by_id[run["parentId"].as_str().unwrap()];
        assert_eq!(parent["type"], "node", "{run}");
        assert_eq!(parent["data"]["agent"], run["agent"]);
    }
}

const OTEL_AGENT: &str = "---
name: reader
description: Reads notes and answers.
model: openai:gpt-4o-mini
tools:
  allow: [read_file]
tracing:
  backend: otel
---
You read the project's notes and answer briefly.
";

/// A project whose agent traces to OpenTelemetry, and a model that reads a file then answers.
fn otel_project() -> (TestProject, ServedModel) {
    let project = TestProject::new();
    project
        .write(".agentctl/agents/reader.md", OTEL_AGENT)
        .write("notes.txt", "hello from the notes\n");
    let model = ServedModel::openai();
    model.answer_call("call_1", "read_file", r#"{"path":"notes.txt"}"#);
    model.answer_text("The notes say hello.");
    (project, model)
}

#[test]
fn spans_reach_an_otlp_collector_with_the_gen_ai_names_and_nesting() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let receiver = runtime.block_on(agentctl_test_support::OtlpReceiver::start());
    let (project, model) = otel_project();
    let mut command = project.command(&["run", "reader", "-p", "Read the notes"]);
    model.point(&mut command);
    command.env("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint());
    let output = command.output().unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(
        !text(&output.stderr).contains("warning"),
        "{}",
        text(&output.stderr)
    );
    // The process flushed before it exited: everything is there already.
    let spans = runtime.block_on(receiver.wait_for_spans(5));
    let session = latest_session(&project);
    let by_name = |name: &str| {
        spans
            .iter()
            .find(|span| span.name == name)
            .unwrap_or_else(|| {
                panic!(
                    "no `{name}` span in {:?}",
                    spans.iter().map(|s| &s.name).collect::<Vec<_>>()
                )
            })
    };
    let run = by_name("invoke_agent reader");
    let chat = by_name("chat gpt-4o-mini");
    let tool = by_name("execute_tool read_file");
    let root = spans
        .iter()
        .find(|span| span.parent_span_id.is_none())
        .expect("a root span");
    assert_eq!(run.parent_span_id.as_ref(), Some(&root.span_id));
    assert_eq!(chat.parent_span_id.as_ref(), Some(&run.span_id));
    assert_eq!(tool.parent_span_id.as_ref(), Some(&run.span_id));
    assert_eq!(chat.kind, "client");
    assert_eq!(run.str("gen_ai.operation.name"), Some("invoke_agent"));
    assert_eq!(run.str("gen_ai.agent.name"), Some("reader"));
    assert_eq!(chat.str("gen_ai.operation.name"), Some("chat"));
    assert_eq!(chat.str("gen_ai.request.model"), Some("gpt-4o-mini"));
    assert_eq!(chat.str("gen_ai.provider.name"), Some("openai"));
    assert_eq!(chat.int("gen_ai.usage.input_tokens"), Some(10));
    assert_eq!(chat.int("gen_ai.usage.output_tokens"), Some(5));
    assert_eq!(tool.str("gen_ai.tool.name"), Some("read_file"));
    assert_eq!(tool.str("gen_ai.tool.call.id"), Some("call_1"));
    for span in &spans {
        assert_eq!(span.str("gen_ai.conversation.id"), Some(session.as_str()));
        assert_eq!(span.trace_id, root.trace_id);
        // No content without `captureContent`.
        assert!(!span.attributes.contains_key("gen_ai.input.messages"));
        assert!(!span.attributes.contains_key("gen_ai.tool.call.result"));
    }
    // The same ids in the session store: one trace, whichever backend reads it.
    let stored = exported(&project, &session);
    assert_eq!(stored[0]["traceId"].as_str(), Some(root.trace_id.as_str()));
    model.server.assert_no_violations();
}

#[test]
fn a_dead_collector_gives_one_warning_and_the_run_succeeds() {
    // A port nothing listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let (project, model) = otel_project();
    let mut command = project.command(&["run", "reader", "-p", "Read the notes"]);
    model.point(&mut command);
    command.env(
        "OTEL_EXPORTER_OTLP_ENDPOINT",
        format!("http://127.0.0.1:{port}"),
    );
    let output = command.output().unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(text(&output.stdout).trim(), "The notes say hello.");
    let stderr = text(&output.stderr);
    assert_eq!(
        stderr.matches("warning: OpenTelemetry export").count(),
        1,
        "{stderr}"
    );
    assert!(stderr.contains(&format!("127.0.0.1:{port}")), "{stderr}");
    // The session's own trace is whole.
    let spans = exported(&project, &latest_session(&project));
    assert!(spans.iter().any(|span| span["type"] == "llm"));
}

#[test]
fn otel_sdk_disabled_turns_export_off_and_keeps_the_session_trace() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let receiver = runtime.block_on(agentctl_test_support::OtlpReceiver::start());
    let (project, model) = otel_project();
    let mut command = project.command(&["run", "reader", "-p", "Read the notes"]);
    model.point(&mut command);
    command
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint())
        .env("OTEL_SDK_DISABLED", "TRUE");
    let output = command.output().unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(text(&output.stdout).trim(), "The notes say hello.");
    assert!(
        !text(&output.stderr).contains("warning"),
        "{}",
        text(&output.stderr)
    );
    // An exporting process flushes before it exits; this one sent nothing at all.
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(receiver.requests().is_empty(), "{:?}", receiver.spans());
    let spans = exported(&project, &latest_session(&project));
    assert!(spans.iter().any(|span| span["type"] == "llm"));
}
