//! `web_fetch` against a local fake site: conversion, caps, and the address rules under
//! attack (redirects to other local addresses, names that resolve to loopback, schemes).

use super::support::ctx;
use agentctl_core::{SandboxMode, Settings, Tool, ToolError, ToolRegistry, WebSettings};
use agentctl_sandbox::SandboxPolicy;
use agentctl_test_support::{BodyPart, FakeWeb, Reply};
use agentctl_tools::{BuiltinToolsConfig, MAX_REDIRECTS, register_builtin_tools};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// The `web_*` tool `name` under `config`.
pub fn web_tool(config: &BuiltinToolsConfig, name: &str) -> Arc<dyn Tool> {
    let mut registry = ToolRegistry::new();
    register_builtin_tools(&mut registry, config);
    registry.get(name).cloned().unwrap()
}

/// A configuration whose `web.*` settings are `web`.
pub fn config_with(web: WebSettings) -> BuiltinToolsConfig {
    BuiltinToolsConfig::from_settings(&Settings {
        web,
        ..Settings::default()
    })
}

/// Settings that allow exactly `site` among the private addresses.
fn allowing(site: &FakeWeb) -> WebSettings {
    WebSettings {
        allowed_hosts: vec![site.host().parse().unwrap()],
        ..WebSettings::default()
    }
}

async fn fetch(config: &BuiltinToolsConfig, args: Value) -> Result<String, ToolError> {
    let dir = tempfile::tempdir().unwrap();
    web_tool(config, "web_fetch")
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

fn redirect(to: &str) -> Reply {
    Reply::raw(302, "text/plain", "").header("location", to)
}

const ARTICLE: &str = "<!doctype html><html><head><title>Release notes</title>\
    <script>steal()</script><style>body{}</style></head><body>\
    <nav><a href=\"/\">Home</a></nav><h1>Version 2.0</h1>\
    <p>The <b>fast</b> path is now the default. See <a href=\"/docs\">the docs</a>.</p>\
    <ul><li>Faster builds</li><li>Smaller binaries</li></ul>\
    <pre><code>cargo install tool</code></pre></body></html>";

#[tokio::test]
async fn html_pages_come_back_as_markdown_with_the_question_noted() {
    let site = FakeWeb::start().await;
    site.page(
        "/notes",
        Reply::raw(200, "text/html; charset=utf-8", ARTICLE),
    );
    let config = config_with(allowing(&site));
    let text = fetch(
        &config,
        json!({"url": site.url("/notes"), "prompt": "What changed in 2.0?"}),
    )
    .await
    .unwrap();
    insta::assert_snapshot!(text.replace(&site.host(), "SITE"));
    let request = &site.requests()[0];
    assert_eq!(request.method, "GET");
    assert!(request.header("accept").unwrap().starts_with("text/html"));
    assert!(
        request
            .header("user-agent")
            .unwrap()
            .starts_with("agentctl/")
    );
}

#[tokio::test]
async fn text_and_json_pass_through_and_binary_is_refused() {
    let site = FakeWeb::start().await;
    let json_body = r#"{"name": "agentctl", "tags": ["<b>not html</b>"]}"#;
    site.page("/data", Reply::raw(200, "application/json", json_body));
    site.page(
        "/notes.txt",
        Reply::raw(200, "text/plain", "line *one*\nline 2\n"),
    );
    site.page(
        "/untyped",
        Reply::raw(200, "", "<!DOCTYPE html><h2>Sniffed</h2>"),
    );
    site.page("/logo.png", Reply::raw(200, "image/png", "\u{89}PNG"));
    site.page(
        "/blob",
        Reply {
            body: vec![BodyPart::Bytes(b"\x00\x01\x02binary".to_vec())],
            ..Reply::raw(200, "application/octet-stream", "")
        },
    );
    let config = config_with(allowing(&site));
    let text = fetch(&config, json!({"url": site.url("/data")}))
        .await
        .unwrap();
    assert!(text.ends_with(json_body), "{text}");
    assert!(text.contains("Content-Type: application/json"), "{text}");
    let text = fetch(&config, json!({"url": site.url("/notes.txt")}))
        .await
        .unwrap();
    assert!(text.ends_with("line *one*\nline 2\n"), "{text}");
    let text = fetch(&config, json!({"url": site.url("/untyped")}))
        .await
        .unwrap();
    assert!(text.ends_with("## Sniffed"), "{text}");
    for path in ["/logo.png", "/blob"] {
        let error = failure(fetch(&config, json!({"url": site.url(path)})).await);
        assert!(error.contains("binary content"), "{path}: {error}");
    }
}

#[tokio::test]
async fn error_statuses_are_errors_with_what_the_server_said() {
    let site = FakeWeb::start().await;
    site.page(
        "/gone",
        Reply::raw(410, "application/json", r#"{"error": "moved to /v2"}"#),
    );
    let config = config_with(allowing(&site));
    let error = failure(fetch(&config, json!({"url": site.url("/gone")})).await);
    assert!(error.contains("answered 410 Gone"), "{error}");
    assert!(error.contains("moved to /v2"), "{error}");
    let error = failure(fetch(&config, json!({"url": site.url("/nothing")})).await);
    assert!(error.contains("404 Not Found"), "{error}");
}

#[tokio::test]
async fn redirects_are_followed_up_to_the_limit() {
    let site = FakeWeb::start().await;
    for hop in 0..=MAX_REDIRECTS {
        site.page(&format!("/r{hop}"), redirect(&format!("/r{}", hop + 1)));
    }
    site.page(
        &format!("/r{}", MAX_REDIRECTS + 1),
        Reply::raw(200, "text/plain", "arrived"),
    );
    let config = config_with(allowing(&site));
    // From r1, five redirects reach the page.
    let text = fetch(&config, json!({"url": site.url("/r1")}))
        .await
        .unwrap();
    assert!(text.ends_with("arrived"), "{text}");
    assert!(
        text.starts_with(&format!(
            "URL: {} (redirected from {})",
            site.url("/r6"),
            site.url("/r1")
        )),
        "{text}"
    );
    // From r0 it takes six: refused, and the sixth target is never asked.
    let before = site.requests().len();
    let error = failure(fetch(&config, json!({"url": site.url("/r0")})).await);
    assert!(
        error.contains(&format!("redirected more than {MAX_REDIRECTS} times")),
        "{error}"
    );
    assert_eq!(site.requests().len() - before, MAX_REDIRECTS + 1);
}

#[tokio::test]
async fn a_redirect_to_another_local_address_is_refused() {
    // Only `site` is allowed; `inner` plays a service on the same machine that a page must
    // not reach by redirecting there.
    let site = FakeWeb::start().await;
    let inner = FakeWeb::start().await;
    inner.page("/secret", Reply::raw(200, "text/plain", "internal data"));
    let targets = [
        (inner.url("/secret"), "127.0.0.1 is a loopback address"),
        (
            format!("http://localhost:{}/secret", site.port()),
            "localhost resolves to",
        ),
        (
            format!("http://[::ffff:127.0.0.1]:{}/secret", site.port()),
            "an IPv4-mapped IPv6 address",
        ),
        (
            format!("http://2130706433:{}/secret", inner.port()),
            "a loopback address",
        ),
        (
            format!("http://0.0.0.0:{}/secret", site.port()),
            "an unspecified address",
        ),
        (
            "http://169.254.169.254/latest/meta-data/".to_owned(),
            "a link-local address",
        ),
        ("http://10.0.0.1/".to_owned(), "a private address"),
    ];
    let config = config_with(allowing(&site));
    for (index, (target, kind)) in targets.iter().enumerate() {
        let path = format!("/jump{index}");
        site.page(&path, redirect(target));
        let error = failure(fetch(&config, json!({"url": site.url(&path)})).await);
        assert!(
            error.starts_with(&format!(
                "{} redirected to a URL that was refused: refused ",
                site.url(&path)
            )),
            "{target}: {error}"
        );
        assert!(error.contains(kind), "{target}: {error}");
        assert!(error.contains("web.allowPrivateAddresses"), "{error}");
    }
    assert!(inner.requests().is_empty(), "the inner service was reached");
}

#[tokio::test]
async fn local_addresses_need_the_settings() {
    let site = FakeWeb::start().await;
    site.page("/", Reply::raw(200, "text/plain", "hello"));
    let closed = config_with(WebSettings::default());
    for url in [site.url("/"), format!("http://localhost:{}/", site.port())] {
        let error = failure(fetch(&closed, json!({"url": url})).await);
        assert!(error.contains("a loopback address"), "{error}");
        assert!(
            error.contains("web.allowedHosts: [\""),
            "the error says how to allow it: {error}"
        );
    }
    assert!(site.requests().is_empty());

    let open = config_with(WebSettings {
        allow_private_addresses: true,
        ..WebSettings::default()
    });
    let text = fetch(
        &open,
        json!({"url": format!("http://localhost:{}/", site.port())}),
    )
    .await
    .unwrap();
    assert!(text.ends_with("hello"), "{text}");
    // A port of its own: another port of the same host is not allowed.
    let other_port = config_with(WebSettings {
        allowed_hosts: vec![format!("127.0.0.1:{}", site.port() ^ 1).parse().unwrap()],
        ..WebSettings::default()
    });
    assert!(failure(fetch(&other_port, json!({"url": site.url("/")})).await).contains("refused"));
}

#[tokio::test]
async fn bodies_are_cut_at_max_bytes() {
    let site = FakeWeb::start().await;
    let big = "0123456789".repeat(500_000);
    site.page("/big.txt", Reply::raw(200, "text/plain", big));
    let config = config_with(WebSettings {
        max_bytes: std::num::NonZeroU64::new(1000).unwrap(),
        ..allowing(&site)
    });
    let text = fetch(&config, json!({"url": site.url("/big.txt")}))
        .await
        .unwrap();
    assert!(
        text.contains("the response is larger than web.maxBytes (1000 bytes)"),
        "{text}"
    );
    let content = text.split("\n---\n\n").nth(1).unwrap();
    assert_eq!(content.len(), 1000);
}

#[tokio::test]
async fn a_server_that_never_answers_ends_in_the_time_limit() {
    let site = FakeWeb::start().await;
    site.page(
        "/slow",
        Reply::raw(200, "text/plain", "late").delayed(Duration::from_secs(3600)),
    );
    let config = config_with(allowing(&site)).with_timeout("web_fetch", Duration::from_secs(1));
    let error = failure(fetch(&config, json!({"url": site.url("/slow")})).await);
    assert!(error.contains("did not finish within 1 s"), "{error}");
    assert!(error.contains("tools.timeouts.web_fetch"), "{error}");
}

#[tokio::test]
async fn a_cancelled_run_cancels_the_fetch() {
    let site = FakeWeb::start().await;
    site.page(
        "/slow",
        Reply::raw(200, "text/plain", "late").delayed(Duration::from_secs(3600)),
    );
    let config = config_with(allowing(&site));
    let dir = tempfile::tempdir().unwrap();
    let token = CancellationToken::new();
    let context =
        agentctl_core::ToolContext::new("run", "agent", "call", dir.path(), token.clone());
    let tool = web_tool(&config, "web_fetch");
    let call = tool.call(json!({"url": site.url("/slow")}), &context);
    token.cancel();
    assert!(matches!(call.await, Err(ToolError::Cancelled)));
}

#[tokio::test]
async fn only_http_and_https_urls_are_fetched() {
    let config = config_with(WebSettings {
        allow_private_addresses: true,
        ..WebSettings::default()
    });
    for url in [
        "file:///etc/passwd",
        "ftp://example.com/x",
        "gopher://example.com/",
        "data:text/plain,hi",
    ] {
        let error = failure(fetch(&config, json!({"url": url})).await);
        assert!(
            error.contains("only http:// and https:// URLs can be fetched"),
            "{url}: {error}"
        );
    }
    let error = failure(fetch(&config, json!({"url": "not a url"})).await);
    assert!(error.starts_with("`not a url` is not a URL"), "{error}");

    let site = FakeWeb::start().await;
    site.page("/to-file", redirect("file:///etc/passwd"));
    let error = failure(fetch(&config, json!({"url": site.url("/to-file")})).await);
    assert!(error.contains("file:///etc/passwd"), "{error}");
    assert!(error.contains("only http:// and https://"), "{error}");
}

#[tokio::test]
async fn no_network_in_the_sandbox_means_no_fetch() {
    let site = FakeWeb::start().await;
    site.page("/", Reply::raw(200, "text/plain", "hello"));
    let config = config_with(allowing(&site))
        .with_sandbox(SandboxPolicy::new(SandboxMode::WorkspaceWrite).with_network(false));
    let tool = web_tool(&config, "web_fetch");
    assert!(tool.description().contains("Network access is off"));
    let error = failure(fetch(&config, json!({"url": site.url("/")})).await);
    assert!(error.contains("set `sandbox.network` to true"), "{error}");
    assert!(site.requests().is_empty());
}

#[test]
fn the_web_tools_are_built_in_read_only_and_medium_risk() {
    let config = BuiltinToolsConfig::default();
    for name in ["web_fetch", "web_search"] {
        let tool = web_tool(&config, name);
        assert_eq!(tool.risk(), agentctl_core::RiskLevel::Medium, "{name}");
        assert!(!tool.is_mutating(), "{name}");
        assert!(agentctl_core::BUILTIN_TOOLS.contains(&name));
    }
}
