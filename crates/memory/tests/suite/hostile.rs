//! What a model can send: FTS5 syntax, odd text, huge inputs — never a panic, an SQL error or
//! another agent's memory.

use super::support::{FakeModel, call, recalled_ids};
use agentctl_core::Redactor;
use agentctl_memory::{LongTermTools, MemoryQuery, MemoryStore, NewMemory};
use serde_json::json;
use std::sync::Arc;

#[test]
fn any_query_text_is_a_valid_search() {
    let store = MemoryStore::open_in_memory().unwrap();
    store
        .remember(NewMemory::new(
            "a",
            "NEAR the OR gate, \"quoted\" text and a * star",
        ))
        .unwrap();
    let hostile = [
        "\"",
        "\"unterminated",
        "*",
        "a*",
        "NEAR(",
        "NEAR(a b, 2)",
        "OR",
        "AND NOT",
        "x OR",
        ")",
        "content:star",
        "^star",
        "{content}: star",
        "'; DROP TABLE memories; --",
        "",
        "   ",
        "\0\u{1b}[31m",
        "🙂 emoji",
        "ﬁ ligature Ǆ",
    ];
    for query in hostile {
        let result = store.search(&MemoryQuery::new(query).agent("a"));
        assert!(result.is_ok(), "{query:?}: {result:?}");
    }
    // Operators are words: `OR` finds the entry that says "OR", `NEAR(` the one that says NEAR.
    assert_eq!(store.search(&MemoryQuery::new("OR")).unwrap().len(), 1);
    assert_eq!(store.search(&MemoryQuery::new("NEAR(")).unwrap().len(), 1);
    assert!(store.search(&MemoryQuery::new("*")).unwrap().is_empty());
    let long = "word ".repeat(100_000);
    assert!(store.search(&MemoryQuery::new(&long)).is_ok());
    // The table is still there.
    assert_eq!(store.list(None).unwrap().len(), 1);
}

#[test]
fn odd_content_is_stored_as_written() {
    let store = MemoryStore::open_in_memory().unwrap();
    for content in [
        "NEAR(\"x\" OR y*)",
        "nul \0 inside",
        "'); DELETE FROM memories; --",
        "ünïcödé 数据库",
    ] {
        let entry = store
            .remember(NewMemory::new("a", content))
            .unwrap()
            .entry()
            .clone();
        assert_eq!(store.get(entry.id).unwrap().unwrap().content, content);
    }
    assert_eq!(store.list(Some("a")).unwrap().len(), 4);
    assert_eq!(store.search(&MemoryQuery::new("数据库")).unwrap().len(), 1);
}

#[tokio::test]
async fn recall_never_reaches_another_agents_memory() {
    let store = Arc::new(MemoryStore::open_in_memory().unwrap());
    store
        .remember(NewMemory::new(
            "admin",
            "the root password rotation is on the 1st",
        ))
        .unwrap();
    let tools = LongTermTools::new(Arc::clone(&store), "helper");
    // Whatever the query says, only the caller's entries are searched.
    for query in [
        "root password",
        "admin root password",
        "agent:admin password",
        "* OR password",
    ] {
        let answer = call(
            &tools,
            "helper",
            "recall",
            json!({"query": query, "limit": 20}),
        )
        .await
        .unwrap();
        assert!(recalled_ids(&answer).is_empty(), "{query}: {answer}");
    }
    // An argument naming an agent is not one of the tool's.
    let error = call(
        &tools,
        "helper",
        "recall",
        json!({"query": "password", "agent": "admin"}),
    )
    .await;
    assert!(error.is_ok(), "unknown keys are ignored, the filter stays");
    assert!(recalled_ids(&error.unwrap()).is_empty());
    // A run of another agent that reaches these tools is refused.
    let error = call(&tools, "admin", "recall", json!({"query": "password"}))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        error.starts_with(
            "`recall` reaches the long-term memory of agent `helper`; `admin` cannot use it"
        ),
        "{error}"
    );
    let error = call(&tools, "admin", "remember", json!({"content": "x"}))
        .await
        .unwrap_err();
    assert!(
        error.to_string().contains("`admin` cannot use it"),
        "{error}"
    );
}

#[tokio::test]
async fn a_model_cannot_store_a_key_or_a_novel() {
    let store = Arc::new(
        MemoryStore::open_in_memory()
            .unwrap()
            .with_redactor(Redactor::new(["ghp_0123456789abcdef"])),
    );
    let model = FakeModel::new(false);
    let tools = LongTermTools::new(Arc::clone(&store), "a").with_embedder(model.clone());
    call(
        &tools,
        "a",
        "remember",
        json!({"content": "use token ghp_0123456789abcdef for the API", "metadata": {"token": "ghp_0123456789abcdef"}}),
    )
    .await
    .unwrap();
    let stored = &store.list(None).unwrap()[0];
    assert_eq!(stored.content, "use token [REDACTED] for the API");
    assert_eq!(stored.metadata["token"], "[REDACTED]");
    let error = call(
        &tools,
        "a",
        "remember",
        json!({"content": "z".repeat(20_000)}),
    )
    .await
    .unwrap_err()
    .to_string();
    assert!(
        error.starts_with("the memory is 20000 bytes, more than the 16 KiB"),
        "{error}"
    );
    let error = call(
        &tools,
        "a",
        "remember",
        json!({"content": "x", "metadata": "not an object"}),
    )
    .await
    .unwrap_err()
    .to_string();
    assert!(
        error.starts_with("invalid arguments for `remember`"),
        "{error}"
    );
    let error = call(&tools, "a", "recall", json!({"query": "*** ()"}))
        .await
        .unwrap_err()
        .to_string();
    assert!(error.starts_with("give `query` some words"), "{error}");
    // The refused ones never reached the embedding model.
    assert_eq!(model.calls.load(std::sync::atomic::Ordering::SeqCst), 1);
    assert_eq!(store.list(None).unwrap().len(), 1);
}
