//! `memory_get` / `memory_set` through the registry, as the agent loop calls them, against a
//! real SQLite store: declared keys only, `task` an object, `null` deletes, a forgotten value
//! is refused, oversized values are refused, and what they write is what conditions read.

use agentctl_core::{RiskLevel, ToolContext, ToolError, ToolRegistry};
use agentctl_routing::state::{ChainFacts, condition_variables};
use agentctl_routing::{Condition, MAX_STATE_VALUE_BYTES, MemoryTools};
use agentctl_store::{SessionLog, StateLog};
use agentctl_store_sqlite::SqliteStore;
use agentctl_test_support::{RecordedRequest, WireFormat, check_request};
use serde_json::{Value, json};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

struct Fixture {
    store: Arc<SqliteStore>,
    session: String,
    registry: ToolRegistry,
    dir: tempfile::TempDir,
}

fn fixture(keys: &[&str]) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(SqliteStore::open(&dir.path().join("sessions.db")).unwrap());
    let session = store.create_session(None).unwrap().id;
    let mut registry = ToolRegistry::new();
    MemoryTools::new(
        store.clone(),
        session.clone(),
        "fixer".into(),
        keys.iter().map(|k| (*k).to_owned()).collect(),
    )
    .register(&mut registry);
    Fixture {
        store,
        session,
        registry,
        dir,
    }
}

fn context(dir: &tempfile::TempDir) -> ToolContext {
    ToolContext::new(
        "run-1",
        "fixer",
        "call-1",
        dir.path().to_path_buf(),
        CancellationToken::new(),
    )
}

impl Fixture {
    async fn call(&self, tool: &str, args: Value) -> Result<String, ToolError> {
        let tool = self.registry.get(tool).unwrap();
        tool.call(args, &context(&self.dir))
            .await
            .map(|output| output.content)
    }

    async fn set(&self, key: &str, value: Value) -> Result<String, ToolError> {
        self.call("memory_set", json!({"key": key, "value": value}))
            .await
    }

    async fn get(&self, key: &str) -> Result<String, ToolError> {
        self.call("memory_get", json!({ "key": key })).await
    }
}

#[tokio::test]
async fn set_then_get_round_trips_and_records_the_writer() {
    let f = fixture(&["fix", "analysis"]);
    assert_eq!(
        f.get("fix").await.unwrap(),
        "`fix` is not set in this session (set it with `memory_set`)"
    );
    assert_eq!(
        f.set("fix", json!({"applied": true, "files": ["a.rs"]}))
            .await
            .unwrap(),
        "`fix` set"
    );
    assert_eq!(
        f.get("fix").await.unwrap(),
        r#"{"applied":true,"files":["a.rs"]}"#
    );
    let entries = f.store.state_entries(&f.session).unwrap();
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0].updated_by, "fixer");

    // Values of every JSON kind.
    for value in [
        json!("text"),
        json!(3),
        json!(1.5),
        json!(false),
        json!([1, {"a": null}]),
    ] {
        f.set("analysis", value.clone()).await.unwrap();
        let read: Value = serde_json::from_str(&f.get("analysis").await.unwrap()).unwrap();
        assert_eq!(read, value);
    }

    // null deletes.
    assert_eq!(f.set("fix", Value::Null).await.unwrap(), "`fix` deleted");
    assert!(f.get("fix").await.unwrap().contains("is not set"));
    assert!(
        !f.store
            .session_state(&f.session)
            .unwrap()
            .contains_key("fix")
    );
}

#[tokio::test]
async fn only_declared_keys_and_task() {
    let f = fixture(&["fix"]);
    for key in [
        "analysis",
        "TASK",
        "fix'; DROP TABLE session_state; --",
        "",
        "memory",
    ] {
        let error = f.set(key, json!(1)).await.unwrap_err();
        assert_eq!(
            error.to_string(),
            format!(
                "`{key}` is not one of your session memory keys; you may use: task, fix. Other \
                 keys are declared in the agent's `memory.session` list"
            )
        );
        assert!(f.get(key).await.is_err());
    }
    assert!(f.store.session_state(&f.session).unwrap().is_empty());
}

#[tokio::test]
async fn task_takes_an_object() {
    let f = fixture(&[]);
    for bad in [json!("need-review"), json!(["a"]), json!(1), json!(true)] {
        let error = f.set("task", bad).await.unwrap_err();
        assert!(
            error.to_string().starts_with("`task` takes an object"),
            "{error}"
        );
    }
    f.set("task", json!({"status": "need-review"}))
        .await
        .unwrap();
    // Setting replaces the whole object.
    f.set("task", json!({"owner": "fixer"})).await.unwrap();
    assert_eq!(f.get("task").await.unwrap(), r#"{"owner":"fixer"}"#);
    f.set("task", Value::Null).await.unwrap();
    assert!(f.get("task").await.unwrap().contains("is not set"));
}

#[tokio::test]
async fn a_forgotten_value_is_refused_not_a_delete() {
    let f = fixture(&["fix"]);
    f.set("fix", json!({"applied": true})).await.unwrap();
    let error = f
        .call("memory_set", json!({"key": "fix"}))
        .await
        .unwrap_err();
    assert!(
        matches!(&error, ToolError::InvalidArguments { message, .. } if message.contains("missing field `value`")),
        "{error}"
    );
    let error = f.call("memory_get", json!({})).await.unwrap_err();
    assert!(matches!(error, ToolError::InvalidArguments { .. }));
    assert_eq!(
        f.store.session_state(&f.session).unwrap()["fix"],
        json!({"applied": true})
    );
}

#[tokio::test]
async fn oversized_values_are_refused() {
    let f = fixture(&["notes"]);
    let big = "x".repeat(MAX_STATE_VALUE_BYTES);
    let error = f.set("notes", json!(big)).await.unwrap_err();
    assert!(
        error.to_string().contains("more than the 64 KiB"),
        "{error}"
    );
    let fits = "x".repeat(MAX_STATE_VALUE_BYTES - 2);
    f.set("notes", json!(fits)).await.unwrap();
}

#[tokio::test]
async fn a_missing_session_is_a_tool_error() {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(SqliteStore::open(&dir.path().join("s.db")).unwrap());
    let mut registry = ToolRegistry::new();
    MemoryTools::new(store, "gone".into(), "a".into(), vec!["k".into()]).register(&mut registry);
    let error = registry
        .get("memory_get")
        .unwrap()
        .call(json!({"key": "k"}), &context(&dir))
        .await
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "session state: no session `gone` in the session store"
    );
}

#[test]
fn specs_risk_and_descriptions() {
    let f = fixture(&["fix", "analysis", "fix"]);
    let get = f.registry.get("memory_get").unwrap();
    let set = f.registry.get("memory_set").unwrap();
    assert_eq!((get.risk(), get.is_mutating()), (RiskLevel::Safe, false));
    assert_eq!((set.risk(), set.is_mutating()), (RiskLevel::Safe, true));
    for tool in [get, set] {
        let description = tool.description();
        assert!(
            description.contains("`task` (shared by every agent of the session")
                && description.contains("`fix`, `analysis`"),
            "{description}"
        );
    }
    assert_eq!(set.parameters()["required"], json!(["key", "value"]));
    assert_eq!(get.parameters()["required"], json!(["key"]));
}

/// The real APIs accept the two tools' specs as they are sent.
#[test]
fn specs_pass_the_model_apis_rules() {
    let f = fixture(&["fix"]);
    let specs = f.registry.specs();
    let openai_tools: Vec<Value> = specs
        .iter()
        .map(|spec| {
            json!({"type": "function", "function": {
                "name": spec.name, "description": spec.description, "parameters": spec.parameters,
            }})
        })
        .collect();
    let openai = RecordedRequest::post(
        "/v1/chat/completions",
        json!({"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}], "tools": openai_tools}),
    );
    assert_eq!(check_request(WireFormat::OpenAi, &openai), []);
    let anthropic_tools: Vec<Value> = specs
        .iter()
        .map(|spec| {
            json!({"name": spec.name, "description": spec.description, "input_schema": spec.parameters})
        })
        .collect();
    let anthropic = RecordedRequest::post(
        "/v1/messages",
        json!({"model": "claude-sonnet-4-5", "max_tokens": 100, "messages": [{"role": "user", "content": "hi"}], "tools": anthropic_tools}),
    );
    assert_eq!(check_request(WireFormat::Anthropic, &anthropic), []);
}

/// What `memory_set` writes is what a `when` condition reads, seed examples included.
#[tokio::test]
async fn conditions_read_what_the_tools_wrote() {
    let f = fixture(&["fix", "analysis"]);
    f.set("task", json!({"status": "need-review"}))
        .await
        .unwrap();
    f.set("analysis", json!({"can_auto_fix": true}))
        .await
        .unwrap();
    let facts = ChainFacts {
        agent: "fixer".into(),
        last: Value::Null,
        turn: 1,
    };
    let variables = || {
        let state = f.store.session_state(&f.session).unwrap();
        condition_variables(&state, &facts, &Value::Null)
    };
    let fix_applied = Condition::parse("fix.applied").unwrap();
    let error = fix_applied.evaluate(&variables()).unwrap_err();
    assert!(error.to_string().contains("no state key `fix`"), "{error}");
    f.set("fix", json!({"applied": true})).await.unwrap();
    for expression in [
        "task.status == 'need-review'",
        "analysis.can_auto_fix",
        "fix.applied",
    ] {
        let condition = Condition::parse(expression).unwrap();
        assert!(condition.evaluate(&variables()).unwrap(), "{expression}");
    }
}
