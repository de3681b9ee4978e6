//! Embedding models over real HTTP against the strict fake embeddings server: the three wire
//! formats, keys and headers, answers checked, errors naming provider, model and URL.

#![expect(
    clippy::unwrap_used,
    reason = "test helpers: a panic is a test failure"
)]

use super::common::{KEY, options};
use agentctl_core::{Embedder, ModelRef, ProviderConfig, ProviderKind, Settings};
use agentctl_providers::{EMBEDDING_BATCH, build_embedder};
use agentctl_test_support::{FakeEmbeddings, fake_embedding};
use std::sync::Arc;

/// The embedder of `provider:model`, with `provider` configured at `base_url`.
fn embedder(provider: &str, kind: ProviderKind, base_url: &str, model: &str) -> Arc<dyn Embedder> {
    let mut settings = Settings::default();
    settings.providers.insert(
        provider.to_owned(),
        ProviderConfig {
            kind,
            base_url: Some(base_url.to_owned()),
            headers: [("X-Team".to_owned(), "memory".to_owned())].into(),
            ..ProviderConfig::default()
        },
    );
    let model = ModelRef {
        provider: provider.to_owned(),
        model: model.to_owned(),
    };
    build_embedder(&model, &settings, &options()).unwrap()
}

fn texts(items: &[&str]) -> Vec<String> {
    items.iter().map(|text| (*text).to_owned()).collect()
}

#[tokio::test]
async fn openai_compatible_embeddings() {
    let server = FakeEmbeddings::start().await;
    let embedder = embedder(
        "openai",
        ProviderKind::Openai,
        &server.openai_base_url(),
        "text-embedding-3-small",
    );
    assert_eq!(
        embedder.endpoint(),
        format!("{}/embeddings", server.openai_base_url())
    );
    let vectors = embedder
        .embed(&texts(&["flaky login test", "deploy on friday"]))
        .await
        .unwrap();
    assert_eq!(
        vectors,
        [
            fake_embedding("flaky login test"),
            fake_embedding("deploy on friday")
        ]
    );
    let request = &server.requests()[0];
    assert_eq!(request.path, "/v1/embeddings");
    assert_eq!(request.body["model"], "text-embedding-3-small");
    assert_eq!(request.body["input"][1], "deploy on friday");
    assert_eq!(
        request.header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    assert_eq!(request.header("x-team"), Some("memory"));
    // Nothing to embed: no request.
    assert!(embedder.embed(&[]).await.unwrap().is_empty());
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn gemini_batch_embed_contents_in_batches() {
    let server = FakeEmbeddings::start().await;
    let embedder = embedder(
        "gemini",
        ProviderKind::Gemini,
        &server.gemini_base_url(),
        "models/gemini-embedding-001",
    );
    let many: Vec<String> = (0..EMBEDDING_BATCH + 3)
        .map(|i| format!("fact {i}"))
        .collect();
    let vectors = embedder.embed(&many).await.unwrap();
    assert_eq!(vectors.len(), many.len());
    assert_eq!(vectors[EMBEDDING_BATCH + 2], fake_embedding("fact 102"));
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(
        requests[0].path,
        "/v1beta/models/gemini-embedding-001:batchEmbedContents"
    );
    assert_eq!(
        requests[0].body["requests"][0]["model"],
        "models/gemini-embedding-001"
    );
    assert_eq!(requests[1].body["requests"].as_array().unwrap().len(), 3);
    assert_eq!(requests[0].header("x-goog-api-key"), Some(KEY));
}

#[tokio::test]
async fn ollama_uses_its_native_api_at_the_root() {
    let server = FakeEmbeddings::start().await;
    // The `ollama` provider's base URL is its OpenAI-compatible `/v1`.
    let embedder = embedder(
        "ollama",
        ProviderKind::Openai,
        &server.openai_base_url(),
        "nomic-embed-text",
    );
    assert!(
        embedder.endpoint().ends_with("/api/embed"),
        "{}",
        embedder.endpoint()
    );
    let vectors = embedder.embed(&texts(&["sqlite wal mode"])).await.unwrap();
    assert_eq!(vectors, [fake_embedding("sqlite wal mode")]);
    let request = server.requests().remove(0);
    assert_eq!(request.path, "/api/embed");
    assert_eq!(request.body["input"][0], "sqlite wal mode");
    assert_eq!(request.header("authorization"), None);
}

#[tokio::test]
async fn errors_name_provider_model_url_and_cause() {
    let server = FakeEmbeddings::start().await;
    let embedder = embedder(
        "openai",
        ProviderKind::Openai,
        &server.openai_base_url(),
        "text-embedding-3-small",
    );
    server.push_failure(401, &format!("Incorrect API key provided: {KEY}"));
    let error = embedder
        .embed(&texts(&["x"]))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        error.starts_with("openai: model `text-embedding-3-small` request failed with HTTP 401: Incorrect API key provided: [REDACTED] — check OPENAI_API_KEY"),
        "{error}"
    );
    // Retried on 5xx, then reported.
    for _ in 0..3 {
        server.push_failure(503, "overloaded");
    }
    let error = embedder
        .embed(&texts(&["x"]))
        .await
        .unwrap_err()
        .to_string();
    assert!(error.contains("HTTP 503: overloaded"), "{error}");
    // Nobody listening: the URL is named.
    let dead = embedder_at_dead_port().await;
    let error = dead.embed(&texts(&["x"])).await.unwrap_err().to_string();
    assert!(
        error.starts_with("openai: cannot reach http://127.0.0.1:")
            && error.contains("/v1/embeddings"),
        "{error}"
    );
}

async fn embedder_at_dead_port() -> Arc<dyn Embedder> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    drop(listener);
    embedder(
        "openai",
        ProviderKind::Openai,
        &format!("http://{address}/v1"),
        "text-embedding-3-small",
    )
}

#[tokio::test]
async fn the_strict_fake_refuses_what_openai_refuses() {
    let server = FakeEmbeddings::start().await;
    // reqwest is built without a default TLS provider (agentctl-core installs ring).
    agentctl_core::install_crypto_provider();
    let client = reqwest::Client::new();
    let url = format!("{}/embeddings", server.openai_base_url());
    for (body, param) in [
        (serde_json::json!({"model": "m", "input": ""}), "input"),
        (serde_json::json!({"model": "m", "input": []}), "input"),
        (
            serde_json::json!({"model": "m", "input": ["ok", ""]}),
            "input",
        ),
        (serde_json::json!({"model": 3, "input": "x"}), "model"),
        (serde_json::json!({"input": "x"}), "model"),
        (
            serde_json::json!({"model": "m", "input": "x", "encoding_format": "int8"}),
            "encoding_format",
        ),
        (
            serde_json::json!({"model": "m", "input": "x", "top_k": 3}),
            "top_k",
        ),
    ] {
        let response = client.post(&url).json(&body).send().await.unwrap();
        assert_eq!(response.status(), 400, "{body}");
        let answer: serde_json::Value = response.json().await.unwrap();
        assert_eq!(answer["error"]["param"], param, "{body}: {answer}");
    }
    assert_eq!(server.take_violations().len(), 7);
}

#[tokio::test]
async fn providers_without_embeddings_are_refused_before_any_request() {
    let model = ModelRef {
        provider: "scripted".into(),
        model: "cassette.yaml".into(),
    };
    let error = build_embedder(&model, &Settings::default(), &options())
        .err()
        .unwrap();
    assert!(
        error.to_string().contains("has no embeddings API"),
        "{error}"
    );
    let model = ModelRef {
        provider: "openai".into(),
        model: "text-embedding-3-small".into(),
    };
    let mut no_key = options();
    no_key.env = agentctl_providers::Env::from_pairs::<&str, &str>([]);
    let error = build_embedder(&model, &Settings::default(), &no_key)
        .err()
        .unwrap();
    assert_eq!(
        error.to_string(),
        "openai: no API key for model `text-embedding-3-small`: set OPENAI_API_KEY"
    );
}
