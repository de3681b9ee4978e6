//! Long-term memory end to end: an agent remembers in one session and recalls in a new one
//! (keyword search, and meaning through a strict fake embeddings server), what the default
//! approval policy does with the `low` tools, and `agentctl memory list|search|forget` over
//! the same `memory.db`.

use super::support::request::tool_results;
use super::support::{ServedModel, TestProject, text};
use agentctl_memory::{MemoryStore, NewMemory};
use serde_json::{Value, json};

const DEBUGGER: &str = "---
name: debugger
description: Finds the causes of bugs.
model: openai:gpt-4o-mini
memory:
  session: [current_task]
  long_term:
    backend: sqlite
    config:
      index_name: debug_knowledge
---
Remember what you learn; recall it before you start.
";

fn project() -> TestProject {
    let project = TestProject::new();
    project.write(".agentctl/agents/debugger.md", DEBUGGER);
    project
}

macro_rules! snapshot {
    ($value:expr) => {
        insta::with_settings!({filters => vec![
            (r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", "[TIME]"),
            (r#""\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z""#, "[TIME]"),
        ]}, {
            insta::assert_snapshot!($value);
        });
    };
}

/// Runs `agent` on `prompt` against `model` (a new session each time), approving `low`.
fn run(project: &TestProject, model: &ServedModel, agent: &str, prompt: &str) -> Value {
    let mut command = project.command(&[
        "run",
        agent,
        "--new",
        "-p",
        prompt,
        "--approve",
        "safe,low",
        "--format",
        "json",
    ]);
    model.point(&mut command);
    let output = command.output().unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
fn remembered_in_one_session_recalled_by_keyword_in_a_new_one() {
    let project = project();
    let model = ServedModel::openai();
    model.answer_call(
        "call_1",
        "remember",
        r#"{"content":"The checkout test is flaky unless STRIPE_MODE=test is set","metadata":{"topic":"tests"}}"#,
    );
    model.answer_text("Noted.");
    let first = run(
        &project,
        &model,
        "debugger",
        "The checkout test failed again",
    );
    model.answer_call("call_2", "recall", r#"{"query":"flaky checkout"}"#);
    model.answer_text("Set STRIPE_MODE=test.");
    let second = run(&project, &model, "debugger", "Why does checkout fail?");
    assert_ne!(first["sessionId"], second["sessionId"]);

    let requests = model.server.requests();
    assert_eq!(requests.len(), 4);
    let offered: Vec<&str> = requests[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["function"]["name"].as_str().unwrap())
        .collect();
    assert!(
        offered.contains(&"remember") && offered.contains(&"recall"),
        "{offered:?}"
    );
    assert_eq!(
        tool_results(&requests[1].body),
        ["Remembered as memory #1."]
    );
    let recalled: Value = serde_json::from_str(&tool_results(&requests[3].body)[0]).unwrap();
    assert_eq!(recalled["search"], "keyword");
    assert_eq!(
        recalled["memories"][0]["content"],
        "The checkout test is flaky unless STRIPE_MODE=test is set"
    );
    assert_eq!(
        recalled["memories"][0]["metadata"],
        json!({"topic": "tests"})
    );
    model.server.assert_no_violations();
    // The store is beside the session database, and tools may never write it.
    assert!(project.root.join(".agentctl/memory.db").exists());

    // `agents tools` lists both, rated low.
    let tools = text(&project.agentctl(&["agents", "tools", "debugger"]).stdout);
    let line = |name: &str| {
        tools
            .lines()
            .find(|line| line.trim_start().starts_with(name))
            .unwrap_or_else(|| panic!("no {name} in {tools}"))
            .to_owned()
    };
    assert!(line("remember").contains("low"), "{tools}");
    assert!(line("recall").contains("low"), "{tools}");
}

#[test]
fn the_default_policy_asks_before_the_low_risk_tools_and_says_how_to_allow_them() {
    let project = project();
    let model = ServedModel::openai();
    model.answer_call(
        "call_1",
        "remember",
        r#"{"content":"deploys need a green CI"}"#,
    );
    model.answer_text("I could not store that.");
    let mut command = project.command(&["run", "debugger", "-p", "Remember: green CI first"]);
    model.point(&mut command);
    let output = command.output().unwrap();
    // The run completes; the call is refused at once and the model is told why.
    assert!(output.status.success(), "{}", text(&output.stderr));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("remember refused: denied: remember needs approval (risk low")
            && stderr.contains("pass --approve safe,low"),
        "{stderr}"
    );
    let results = tool_results(&model.server.requests()[1].body);
    assert!(results[0].contains("needs approval"), "{results:?}");
    assert!(!project.root.join(".agentctl/memory.db").exists());
    // Settings that approve `low` let it run without a flag, once the project is trusted.
    project.write(
        ".agentctl/settings.json",
        r#"{"approvals": {"autoApprove": ["safe", "low"]}}"#,
    );
    project.trust();
    model.answer_call(
        "call_2",
        "remember",
        r#"{"content":"deploys need a green CI"}"#,
    );
    model.answer_text("Stored.");
    let mut command =
        project.command(&["run", "debugger", "--new", "-p", "Remember: green CI first"]);
    model.point(&mut command);
    assert!(command.output().unwrap().status.success());
    let results = tool_results(&model.server.requests()[3].body);
    assert_eq!(results, ["Remembered as memory #1."]);
}

#[test]
fn vector_store_recalls_by_meaning_through_the_embeddings_endpoint() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let embeddings = runtime.block_on(agentctl_test_support::FakeEmbeddings::start());
    let project = TestProject::new();
    project
        .write(
            ".agentctl/agents/dba.md",
            "---\nname: dba\ndescription: Looks after databases.\nmodel: openai:gpt-4o-mini\nmemory:\n  longTerm:\n    backend: vector_store\n    config:\n      embedding_model: embed:text-embedding-3-small\n---\nRemember and recall.\n",
        )
        .write(
            ".agentctl/settings.json",
            &json!({"providers": {"embed": {"kind": "openai", "baseUrl": embeddings.openai_base_url()}}})
                .to_string(),
        );
    let model = ServedModel::openai();
    model.answer_call(
        "call_1",
        "remember",
        r#"{"content":"Postgres vacuum runs nightly at 02:00"}"#,
    );
    model.answer_text("Noted.");
    run(&project, &model, "dba", "Note the vacuum schedule");
    // No word in common with the entry: only its meaning matches.
    model.answer_call(
        "call_2",
        "recall",
        r#"{"query":"database maintenance window"}"#,
    );
    model.answer_text("02:00.");
    run(&project, &model, "dba", "When is maintenance?");
    let recalled: Value =
        serde_json::from_str(&tool_results(&model.server.requests()[3].body)[0]).unwrap();
    assert_eq!(recalled["search"], "keyword+meaning");
    assert_eq!(
        recalled["memories"][0]["content"],
        "Postgres vacuum runs nightly at 02:00"
    );
    let requests = embeddings.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(
        requests[1].body["input"],
        json!(["database maintenance window"])
    );
    assert_eq!(requests[0].body["model"], "text-embedding-3-small");
    model.server.assert_no_violations();
    // `memory list --format json` shows the model that embedded it.
    let listed = project.json(&["memory", "list", "--format", "json"]);
    assert_eq!(listed[0]["embeddingModel"], "embed:text-embedding-3-small");
}

/// A project whose memory store holds entries of two agents (one with a secret masked).
fn seeded() -> TestProject {
    let project = project();
    let store = MemoryStore::open(&project.root.join(".agentctl/memory.db"))
        .unwrap()
        .with_redactor(agentctl_core::Redactor::new(["sk-live-memory-123456"]));
    for (agent, content) in [
        (
            "debugger",
            "The checkout test is flaky unless STRIPE_MODE=test is set",
        ),
        (
            "debugger",
            "Login errors after deploys come from a stale \u{1b}[31mcache\nflush it",
        ),
        (
            "reviewer",
            "Reviews of checkout code need a second approver",
        ),
        ("debugger", "The staging key was sk-live-memory-123456"),
    ] {
        store.remember(NewMemory::new(agent, content)).unwrap();
    }
    project
}

#[test]
fn memory_list_search_and_forget() {
    let project = seeded();
    snapshot!(project.transcript(&["memory", "list"]));
    snapshot!(project.transcript(&["memory", "list", "--agent", "reviewer", "--format", "json"]));
    snapshot!(project.transcript(&["memory", "search", "checkout"]));
    let hits = project.json(&[
        "memory", "search", "checkout", "--agent", "debugger", "--format", "json",
    ]);
    assert_eq!(hits.as_array().unwrap().len(), 1);
    assert_eq!(hits[0]["id"], 1);
    assert_eq!(hits[0]["matched"], "keyword");
    snapshot!(project.transcript(&["memory", "forget", "#1"]));
    let hits = project.json(&["memory", "search", "checkout", "--format", "json"]);
    assert_eq!(hits.as_array().unwrap().len(), 1, "{hits}");
    assert_eq!(hits[0]["agent"], "reviewer");
    // Errors: an id that is gone, one of another agent, one that is no number.
    snapshot!(project.transcript(&["memory", "forget", "1"]));
    snapshot!(project.transcript(&["memory", "forget", "3", "--agent", "debugger"]));
    snapshot!(project.transcript(&["memory", "forget", "three"]));
    let forgotten = project.json(&["memory", "forget", "3", "--format", "json"]);
    assert_eq!(forgotten["forgotten"]["agent"], "reviewer");
}

#[test]
fn memory_commands_without_a_store_and_with_hostile_queries() {
    let project = project();
    snapshot!(project.transcript(&["memory", "list"]));
    assert_eq!(
        project.json(&["memory", "search", "x", "--format", "json"]),
        json!([])
    );
    let missing = project.transcript(&["memory", "forget", "4"]);
    assert!(
        missing.starts_with("exit: 1\n")
            && missing.contains("error: no memory #4: no memory has been stored here yet"),
        "{missing}"
    );
    // Reading commands create nothing.
    assert!(!project.root.join(".agentctl/memory.db").exists());
    let project = seeded();
    for query in [
        "\"",
        "NEAR(",
        "OR",
        "*",
        "checkout\" OR \"x",
        "'; DROP TABLE memories; --",
    ] {
        let output = project.output(&["memory", "search", query]);
        assert!(output.status.success(), "{query}: {}", text(&output.stderr));
    }
    let limit = project.output(&["memory", "search", "x", "--limit", "0"]);
    assert!(text(&limit.stderr).contains("--limit 0 is out of range: give 1 to 50"));
    assert_eq!(
        project
            .json(&["memory", "list", "--format", "json"])
            .as_array()
            .unwrap()
            .len(),
        4
    );
}

#[test]
fn agents_validate_locates_an_unknown_backend() {
    let project = TestProject::new();
    project.write(
        ".agentctl/agents/cache.md",
        "---\nname: cache\ndescription: Caches.\nmemory:\n  long_term:\n    backend: redis\n    config:\n      index_name: k\n---\nP.\n",
    );
    snapshot!(project.transcript(&["agents", "validate", "cache"]));
    let run = project.output(&["run", "cache", "-p", "hi"]);
    assert!(!run.status.success());
    assert!(
        text(&run.stderr)
            .contains("field `memory.long_term.backend`: unknown long-term memory backend `redis`"),
        "{}",
        text(&run.stderr)
    );
}
