//! The `langsmith` and `langfuse` backends: OTLP/HTTP protobuf to each vendor's own traces
//! path, authenticated the way each vendor's SDKs do, received by a real OTLP receiver that
//! refuses any other path; and what a missing key says.

use super::otel::{collect_warnings, sample};
use agentctl_core::SpanSink;
use agentctl_test_support::{OTLP_WAIT, OtlpReceiver};
use agentctl_trace::{OtelConfig, OtelError, OtelSink};
use std::collections::HashMap;

fn lookup(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
    let vars: HashMap<String, String> = vars
        .iter()
        .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
        .collect();
    move |name| vars.get(name).cloned()
}

/// Sends the sample spans with `config` and waits for them at `receiver`.
async fn send(receiver: &OtlpReceiver, mut config: OtelConfig) {
    let (callback, warnings) = collect_warnings();
    config.shutdown_timeout = OTLP_WAIT;
    let sink = OtelSink::new(config, callback).unwrap();
    let sample = sample();
    for span in &sample.spans {
        sink.record(span);
    }
    sink.flush();
    let spans = receiver.wait_for_spans(sample.spans.len()).await;
    drop(sink);
    assert_eq!(spans.len(), sample.spans.len());
    assert_eq!(*warnings.lock().unwrap(), []);
}

#[tokio::test(flavor = "multi_thread")]
async fn langsmith_gets_the_spans_at_its_path_with_its_key_and_project() {
    let receiver = OtlpReceiver::start_at("/otel/v1/traces").await;
    let base = format!("{}/", receiver.endpoint());
    let config = OtelConfig::langsmith_from_lookup(lookup(&[
        ("LANGSMITH_ENDPOINT", &base),
        ("LANGSMITH_API_KEY", "lsv2_pt_secret"),
        ("LANGSMITH_PROJECT", "agents"),
        // The standard endpoint and headers are not LangSmith's: they are not used.
        ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9"),
        ("OTEL_EXPORTER_OTLP_HEADERS", "x-other=1"),
        ("OTEL_SERVICE_NAME", "review-bot"),
    ]))
    .unwrap();
    assert_eq!(config.service_name.as_deref(), Some("review-bot"));
    send(&receiver, config).await;
    let request = &receiver.requests()[0];
    assert_eq!(request.path, "/otel/v1/traces");
    assert_eq!(request.header("x-api-key"), Some("lsv2_pt_secret"));
    assert_eq!(request.header("langsmith-project"), Some("agents"));
    assert_eq!(request.header("x-other"), None);
}

#[tokio::test(flavor = "multi_thread")]
async fn langfuse_gets_the_spans_at_its_path_with_basic_auth() {
    let receiver = OtlpReceiver::start_at("/api/public/otel/v1/traces").await;
    let config = OtelConfig::langfuse_from_lookup(lookup(&[
        ("LANGFUSE_BASE_URL", &receiver.endpoint()),
        ("LANGFUSE_PUBLIC_KEY", "pk-lf-public"),
        ("LANGFUSE_SECRET_KEY", "sk-lf-secret"),
    ]))
    .unwrap();
    send(&receiver, config).await;
    let request = &receiver.requests()[0];
    assert_eq!(request.path, "/api/public/otel/v1/traces");
    // base64("pk-lf-public:sk-lf-secret")
    assert_eq!(
        request.header("authorization"),
        Some("Basic cGstbGYtcHVibGljOnNrLWxmLXNlY3JldA==")
    );
    assert_eq!(request.header("x-langfuse-ingestion-version"), Some("4"));
}

#[test]
fn defaults_are_the_vendors_clouds_and_a_missing_key_is_named() {
    let langsmith =
        OtelConfig::langsmith_from_lookup(lookup(&[("LANGSMITH_API_KEY", "k")])).unwrap();
    assert_eq!(
        langsmith.endpoint,
        "https://api.smith.langchain.com/otel/v1/traces"
    );
    assert!(
        !langsmith
            .headers
            .iter()
            .any(|(name, _)| name == "Langsmith-Project")
    );
    let langfuse = OtelConfig::langfuse_from_lookup(lookup(&[
        ("LANGFUSE_PUBLIC_KEY", "p"),
        ("LANGFUSE_SECRET_KEY", "s"),
    ]))
    .unwrap();
    assert_eq!(
        langfuse.endpoint,
        "https://cloud.langfuse.com/api/public/otel/v1/traces"
    );

    let error =
        OtelConfig::langsmith_from_lookup(lookup(&[("LANGSMITH_API_KEY", "  ")])).unwrap_err();
    assert!(matches!(
        error,
        OtelError::MissingKey {
            backend: "langsmith",
            var: "LANGSMITH_API_KEY"
        }
    ));
    let error = OtelConfig::langfuse_from_lookup(lookup(&[("LANGFUSE_PUBLIC_KEY", "p")]))
        .unwrap_err()
        .to_string();
    assert_eq!(
        error,
        "the langfuse backend needs LANGFUSE_SECRET_KEY: set it to the key of your langfuse project"
    );
    let error = OtelConfig::langfuse_from_lookup(lookup(&[
        ("LANGFUSE_PUBLIC_KEY", "p"),
        ("LANGFUSE_SECRET_KEY", "s"),
        ("LANGFUSE_HOST", "cloud.langfuse.com"),
    ]))
    .unwrap_err()
    .to_string();
    assert!(error.starts_with("LANGFUSE_HOST=`cloud.langfuse.com/api/public/otel/v1/traces` is not an OTLP/HTTP endpoint"), "{error}");
}
