//! `web_search` against fake SearXNG, Brave and Tavily services on `127.0.0.1`: what each is
//! sent, how its answer is listed, and clear errors for missing settings and bad answers.

use super::support::ctx;
use super::web::{config_with, web_tool};
use agentctl_core::{SandboxMode, SearchBackend, ToolError, WebSearchSettings, WebSettings};
use agentctl_sandbox::SandboxPolicy;
use agentctl_test_support::{FakeWeb, Reply};
use agentctl_tools::BuiltinToolsConfig;
use serde_json::{Value, json};

fn searching(backend: SearchBackend, url: Option<String>, key_env: Option<&str>) -> WebSettings {
    WebSettings {
        search: WebSearchSettings {
            backend: Some(backend),
            url,
            api_key_env: key_env.map(str::to_owned),
        },
        ..WebSettings::default()
    }
}

async fn search(config: &BuiltinToolsConfig, args: Value) -> Result<String, ToolError> {
    let dir = tempfile::tempdir().unwrap();
    web_tool(config, "web_search")
        .call(args, &ctx(dir.path()))
        .await
        .map(|output| output.content)
}

fn failure(result: Result<String, ToolError>) -> String {
    match result {
        Ok(text) => panic!("expected an error, got: {text}"),
        Err(error) => error.to_string(),
    }
}

fn three_results(snippet_key: &str) -> Value {
    let result = |n: u32| {
        json!({"title": format!("Result <strong>{n}</strong>"), "url": format!("https://example.com/{n}"),
               snippet_key: format!("Snippet {n} &amp; more")})
    };
    json!([result(1), result(2), result(3)])
}

#[tokio::test]
async fn searxng_is_asked_for_json_and_its_results_listed() {
    let service = FakeWeb::start().await;
    service.page(
        "/search",
        Reply::json(
            200,
            &json!({"query": "rust", "results": three_results("content")}),
        ),
    );
    // A configured URL is trusted: this private one needs no allow list.
    let config = config_with(searching(
        SearchBackend::Searxng,
        Some(service.url("/")),
        None,
    ));
    let text = search(&config, json!({"query": "rust lang", "limit": 2}))
        .await
        .unwrap();
    insta::assert_snapshot!(text);
    let request = &service.requests()[0];
    assert_eq!(request.method, "GET");
    assert_eq!(request.path, "/search?q=rust+lang&format=json");
}

#[tokio::test]
async fn brave_gets_its_key_in_the_subscription_header() {
    let service = FakeWeb::start().await;
    service.page(
        "/res/v1/web/search",
        Reply::json(
            200,
            &json!({"web": {"results": three_results("description")}}),
        ),
    );
    let config = config_with(searching(
        SearchBackend::Brave,
        Some(service.url("/res/v1/web/search")),
        Some("TEST_BRAVE_KEY"),
    ))
    .with_base_env([("TEST_BRAVE_KEY", "brave-key-1")]);
    let text = search(&config, json!({"query": "tokio select", "limit": 3}))
        .await
        .unwrap();
    assert!(
        text.contains("\n3. Result 3\n   https://example.com/3\n   Snippet 3 & more"),
        "{text}"
    );
    let request = &service.requests()[0];
    assert_eq!(request.path, "/res/v1/web/search?q=tokio+select&count=3");
    assert_eq!(request.header("x-subscription-token"), Some("brave-key-1"));
    assert_eq!(request.header("accept"), Some("application/json"));
}

#[tokio::test]
async fn tavily_gets_a_post_with_a_bearer_key() {
    let service = FakeWeb::start().await;
    service.page(
        "/search",
        Reply::json(
            200,
            &json!({"query": "q", "results": three_results("content")}),
        ),
    );
    let config = config_with(searching(
        SearchBackend::Tavily,
        Some(service.url("/search")),
        None,
    ))
    .with_base_env([("TAVILY_API_KEY", "tvly-key-2")]);
    let text = search(&config, json!({"query": "axum routing"}))
        .await
        .unwrap();
    assert!(text.contains("1. Result 1"), "{text}");
    let request = &service.requests()[0];
    assert_eq!(request.method, "POST");
    assert_eq!(request.header("authorization"), Some("Bearer tvly-key-2"));
    assert_eq!(
        request.body,
        json!({"query": "axum routing", "max_results": 5})
    );
}

#[tokio::test]
async fn limits_default_to_five_and_stop_at_twenty() {
    let service = FakeWeb::start().await;
    let many: Vec<Value> = (1..=30)
        .map(|n| json!({"title": format!("R{n}"), "url": format!("https://e.com/{n}")}))
        .collect();
    service.page("/search", Reply::json(200, &json!({"results": many})));
    let config = config_with(searching(
        SearchBackend::Searxng,
        Some(service.url("")),
        None,
    ));
    let text = search(&config, json!({"query": "x"})).await.unwrap();
    assert!(
        text.contains("\n5. R5\n") && !text.contains("6. R6"),
        "{text}"
    );
    let text = search(&config, json!({"query": "x", "limit": 500}))
        .await
        .unwrap();
    assert!(
        text.contains("\n20. R20\n") && !text.contains("21. R21"),
        "{text}"
    );
}

#[tokio::test]
async fn missing_settings_are_named_in_the_error() {
    let error = failure(search(&BuiltinToolsConfig::default(), json!({"query": "x"})).await);
    assert!(error.contains("set `web.search.backend`"), "{error}");
    let tool = web_tool(&BuiltinToolsConfig::default(), "web_search");
    assert!(
        tool.description()
            .contains("No search service is configured")
    );

    let config = config_with(searching(SearchBackend::Searxng, None, None));
    let error = failure(search(&config, json!({"query": "x"})).await);
    assert!(error.contains("`web.search.url` is not set"), "{error}");

    let config = config_with(searching(
        SearchBackend::Brave,
        None,
        Some("NO_SUCH_KEY_VAR"),
    ))
    .with_base_env(Vec::<(String, String)>::new());
    let error = failure(search(&config, json!({"query": "x"})).await);
    assert!(
        error.contains("API key in the environment variable NO_SUCH_KEY_VAR"),
        "{error}"
    );
}

#[tokio::test]
async fn bad_answers_are_clear_errors() {
    let service = FakeWeb::start().await;
    let config = config_with(searching(
        SearchBackend::Searxng,
        Some(service.url("")),
        None,
    ));
    let cases = [
        (
            Reply::raw(200, "application/json", r#"{"results": [{"url": "#),
            "cannot read (application/json): EOF while parsing",
        ),
        (
            Reply::json(200, &json!({"answers": []})),
            "missing field `results`",
        ),
        (
            Reply::json(200, &json!({"results": {"url": "x"}})),
            "invalid type: map, expected a sequence",
        ),
        (
            Reply::raw(200, "text/html", "<html>login</html>"),
            "cannot read (text/html)",
        ),
        (
            Reply::raw(403, "text/html", "Forbidden"),
            "`json` is listed under `search.formats`",
        ),
        (
            Reply::raw(302, "text/plain", "").header("location", "/elsewhere"),
            "which is not followed for a search service",
        ),
    ];
    for (reply, expected) in cases {
        service.page("/search", reply);
        let error = failure(search(&config, json!({"query": "x"})).await);
        assert!(error.contains(expected), "{expected}: {error}");
        assert!(
            !error.contains("q=x"),
            "the query stays out of errors: {error}"
        );
    }
    let error = failure(search(&config, json!({"query": "  "})).await);
    assert!(error.contains("`query` is empty"), "{error}");
}

#[tokio::test]
async fn keyed_services_read_their_usual_variable_by_default() {
    let config =
        config_with(searching(SearchBackend::Tavily, None, None)).with_base_env([("OTHER", "x")]);
    let error = failure(search(&config, json!({"query": "x"})).await);
    assert!(
        error.contains("environment variable TAVILY_API_KEY"),
        "{error}"
    );
}

#[tokio::test]
async fn no_network_in_the_sandbox_means_no_search() {
    let service = FakeWeb::start().await;
    let config = config_with(searching(
        SearchBackend::Searxng,
        Some(service.url("")),
        None,
    ))
    .with_sandbox(SandboxPolicy::new(SandboxMode::ReadOnly).with_network(false));
    let error = failure(search(&config, json!({"query": "x"})).await);
    assert!(error.starts_with("web_search is off"), "{error}");
    assert!(error.contains("`sandbox.network`"), "{error}");
    assert!(service.requests().is_empty());
}
