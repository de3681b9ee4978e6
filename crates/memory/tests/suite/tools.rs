//! `remember` and `recall` as a run calls them: across "sessions" (new tool sets on the same
//! file), with embeddings in process and over HTTP, and when embeddings fail.

use super::support::{FakeModel, call, recalled_ids, temp_store};
use agentctl_core::{ModelRef, ProviderConfig, ProviderKind, Redactor, RiskLevel, Settings};
use agentctl_memory::{LongTermTools, MemoryStore};
use agentctl_providers::{Env, ProviderOptions, RetryPolicy, build_embedder};
use agentctl_test_support::FakeEmbeddings;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

#[tokio::test]
async fn remembered_in_one_session_recalled_in_the_next() {
    let (_dir, path) = temp_store();
    {
        let first = LongTermTools::at_path(path.clone(), Redactor::default(), "debugger");
        let answer = call(
            &first,
            "debugger",
            "remember",
            json!({"content": "The flaky checkout test needs STRIPE_MODE=test", "metadata": {"topic": "tests"}}),
        )
        .await
        .unwrap();
        assert_eq!(answer, "Remembered as memory #1.");
        let again = call(
            &first,
            "debugger",
            "remember",
            json!({"content": "The flaky checkout test needs STRIPE_MODE=test"}),
        )
        .await
        .unwrap();
        assert!(
            again.starts_with("Already remembered as memory #1 ("),
            "{again}"
        );
    }
    let second = LongTermTools::at_path(path, Redactor::default(), "debugger");
    let answer = call(
        &second,
        "debugger",
        "recall",
        json!({"query": "checkout flaky"}),
    )
    .await
    .unwrap();
    let answer: Value = serde_json::from_str(&answer).unwrap();
    assert_eq!(answer["search"], "keyword");
    let memory = &answer["memories"][0];
    assert_eq!(memory["id"], 1);
    assert_eq!(
        memory["content"],
        "The flaky checkout test needs STRIPE_MODE=test"
    );
    assert_eq!(memory["metadata"]["topic"], "tests");
    assert!(memory["created_at"].as_str().unwrap().ends_with('Z'));
    let none = call(
        &second,
        "debugger",
        "recall",
        json!({"query": "kubernetes"}),
    )
    .await
    .unwrap();
    assert!(none.contains("nothing matched"), "{none}");
}

#[test]
fn both_tools_are_low_risk_and_only_remember_mutates() {
    let store = Arc::new(MemoryStore::open_in_memory().unwrap());
    let tools = LongTermTools::new(store, "a").tools();
    let remember = tools.iter().find(|t| t.name() == "remember").unwrap();
    let recall = tools.iter().find(|t| t.name() == "recall").unwrap();
    assert_eq!(
        (remember.risk(), recall.risk()),
        (RiskLevel::Low, RiskLevel::Low)
    );
    assert!(remember.is_mutating() && !recall.is_mutating());
    assert_eq!(remember.parameters()["required"], json!(["content"]));
    assert_eq!(recall.parameters()["required"], json!(["query"]));
}

#[test]
fn a_store_that_cannot_open_is_a_tool_error_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    // A file where the folder should be.
    std::fs::write(dir.path().join("blocker"), "x").unwrap();
    let tools = LongTermTools::at_path(
        dir.path().join("blocker").join("memory.db"),
        Redactor::default(),
        "a",
    );
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let error = runtime
        .block_on(call(&tools, "a", "remember", json!({"content": "x"})))
        .unwrap_err()
        .to_string();
    assert!(
        error.starts_with("long-term memory: cannot create the folder of the memory store"),
        "{error}"
    );
}

#[tokio::test]
async fn failing_embeddings_never_lose_an_entry() {
    let store = Arc::new(MemoryStore::open_in_memory().unwrap());
    let broken = LongTermTools::new(Arc::clone(&store), "a").with_embedder(FakeModel::new(true));
    let answer = call(
        &broken,
        "a",
        "remember",
        json!({"content": "the automobile is blue"}),
    )
    .await
    .unwrap();
    assert_eq!(
        answer,
        "Remembered as memory #1. It is searchable by keyword only: embeddings from \
         `fake:bag-of-words` at http://127.0.0.1:9/v1/embeddings failed: fake: cannot reach \
         http://127.0.0.1:9/v1/embeddings for model `bag-of-words`: connection refused. `recall` \
         still finds it by its words."
    );
    assert_eq!(store.list(None).unwrap()[0].embedding_model, None);
    let answer: Value = serde_json::from_str(
        &call(&broken, "a", "recall", json!({"query": "automobile"}))
            .await
            .unwrap(),
    )
    .unwrap();
    assert_eq!(answer["memories"][0]["id"], 1);
    assert_eq!(answer["search"], "keyword");
    assert!(
        answer["note"]
            .as_str()
            .unwrap()
            .starts_with("keyword results only: embeddings from")
    );
    // A model that could not be set up at all says why, the same way.
    let unavailable = LongTermTools::new(Arc::clone(&store), "a").embedder_unavailable(
        "openai: no API key for model `text-embedding-3-small`: set OPENAI_API_KEY",
    );
    let answer = call(
        &unavailable,
        "a",
        "remember",
        json!({"content": "second fact"}),
    )
    .await
    .unwrap();
    assert!(
        answer.contains("keyword only: openai: no API key"),
        "{answer}"
    );
    // Once the model works, meaning finds the entry embedded then.
    let working = LongTermTools::new(Arc::clone(&store), "a").with_embedder(FakeModel::new(false));
    call(
        &working,
        "a",
        "remember",
        json!({"content": "the sedan was serviced in May"}),
    )
    .await
    .unwrap();
    let answer = call(&working, "a", "recall", json!({"query": "car"}))
        .await
        .unwrap();
    assert_eq!(recalled_ids(&answer), [3], "{answer}");
}

#[tokio::test]
async fn vector_store_over_http_against_the_strict_fake() {
    let server = FakeEmbeddings::start().await;
    let mut settings = Settings::default();
    settings.providers.insert(
        "openai".into(),
        ProviderConfig {
            kind: ProviderKind::Openai,
            base_url: Some(server.openai_base_url()),
            ..ProviderConfig::default()
        },
    );
    let options = ProviderOptions {
        env: Env::from_pairs([("OPENAI_API_KEY", "sk-test-embeddings")]),
        retry: RetryPolicy::none(),
        request_timeout: Duration::from_secs(10),
        ..ProviderOptions::default()
    };
    let model = ModelRef {
        provider: "openai".into(),
        model: "text-embedding-3-small".into(),
    };
    let embedder = build_embedder(&model, &settings, &options).unwrap();
    let store = Arc::new(MemoryStore::open_in_memory().unwrap());
    let tools = LongTermTools::new(Arc::clone(&store), "a").with_embedder(embedder);
    for content in ["Postgres vacuum runs nightly", "Lunch is at noon"] {
        call(&tools, "a", "remember", json!({"content": content}))
            .await
            .unwrap();
    }
    assert_eq!(
        store.list(None).unwrap()[0].embedding_model.as_deref(),
        Some("openai:text-embedding-3-small")
    );
    // "database" shares no word with the entry; the fake model knows Postgres is one.
    let answer: Value = serde_json::from_str(
        &call(
            &tools,
            "a",
            "recall",
            json!({"query": "database", "limit": 1}),
        )
        .await
        .unwrap(),
    )
    .unwrap();
    assert_eq!(answer["search"], "keyword+meaning");
    assert_eq!(
        answer["memories"][0]["content"],
        "Postgres vacuum runs nightly"
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    assert_eq!(requests[2].body["input"], json!(["database"]));
    // A failing endpoint: the entry is kept, the failure named.
    server.push_failure(500, "embedding backend down");
    let answer = call(
        &tools,
        "a",
        "remember",
        json!({"content": "Redis evicts with LRU"}),
    )
    .await
    .unwrap();
    assert!(
        answer.contains("embeddings from `openai:text-embedding-3-small` at http://127.0.0.1:")
            && answer.contains("/v1/embeddings failed: openai: model `text-embedding-3-small` request failed with HTTP 500: embedding backend down"),
        "{answer}"
    );
    assert_eq!(store.list(None).unwrap().len(), 3);
}
