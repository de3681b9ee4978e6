//! Scripted (cassette) provider and recording.

use super::common::{KEY, check_display, options, provider_at, request};
use agentctl_core::{Message, ModelDelta, ModelRef, ProviderKind, Settings, StopReason};
use agentctl_core::{ModelProvider, ProviderError};
use agentctl_providers::{ProviderOptions, RecordingProvider, ScriptedProvider, build_provider};
use agentctl_test_support::{FakeServer, openai};
use serde_json::json;
use std::sync::{Arc, Mutex};

const CASSETTE: &str = r#"
version: 1
model: openai:gpt-4o-mini
turns:
  - expect:
      lastUserContains: review
      toolsInclude: [read_file]
    response:
      text: I'll read it.
      toolCalls:
        - name: read_file
          arguments: { path: src/main.rs }
      usage: { inputTokens: 12, outputTokens: 7 }
  - expect: { lastToolResultContains: "fn main" }
    response: { text: Looks fine. }
  - error: { status: 429, message: slow down }
"#;

fn tool_result(request: &mut agentctl_core::ModelRequest, content: &str) {
    request.messages.push(Message::Tool {
        call_id: "call_1_0".into(),
        name: "read_file".into(),
        content: content.into(),
        is_error: false,
    });
}

#[tokio::test]
async fn turns_are_replayed_in_order() {
    let provider = ScriptedProvider::from_yaml(CASSETTE, "review.yaml").unwrap();
    let deltas = Mutex::new(Vec::new());
    let sink = |delta: ModelDelta| deltas.lock().unwrap().push(delta);
    let mut request = request("please review main", true);
    let first = provider.complete(&request, &sink).await.unwrap();
    assert_eq!(first.text.as_deref(), Some("I'll read it."));
    assert_eq!(first.tool_calls[0].id, "call_1_0");
    assert_eq!(
        first.tool_calls[0].arguments,
        json!({"path": "src/main.rs"})
    );
    assert_eq!(first.stop_reason, StopReason::ToolUse);
    assert_eq!(first.usage.output_tokens, 7);
    let text: String = deltas
        .lock()
        .unwrap()
        .iter()
        .filter_map(|delta| match delta {
            ModelDelta::Text { text } => Some(text.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(text, "I'll read it.");
    assert!(deltas.lock().unwrap().len() > 2);

    request.messages.push(first.to_message());
    tool_result(&mut request, "fn main() {}");
    let second = provider.complete(&request, &sink).await.unwrap();
    assert_eq!(second.text.as_deref(), Some("Looks fine."));
    assert_eq!(second.stop_reason, StopReason::EndTurn);

    let error = provider.complete(&request, &sink).await.unwrap_err();
    assert!(
        matches!(error, ProviderError::Status { status: 429, .. }),
        "{error:?}"
    );
    assert!(error.is_retryable());
    assert!(check_display(&error).contains("slow down"));

    assert_eq!(provider.remaining(), 0);
    let error = provider.complete(&request, &sink).await.unwrap_err();
    assert_eq!(
        check_display(&error),
        "scripted:review.yaml: all 3 turns are used, but another request came (last user message: \"please review main\")"
    );
}

#[tokio::test]
async fn matcher_mismatch_says_turn_expected_and_actual() {
    let provider = ScriptedProvider::from_yaml(CASSETTE, "review.yaml").unwrap();
    let error = provider
        .complete(&request("hello", false), &|_| {})
        .await
        .unwrap_err();
    assert_eq!(
        check_display(&error),
        "scripted:review.yaml: turn 1 of 3: expected the last user message to contain \"review\", but it is \"hello\""
    );
    let mut no_tools = request("review", false);
    no_tools.tools = Default::default();
    let error = provider.complete(&no_tools, &|_| {}).await.unwrap_err();
    assert!(
        check_display(&error)
            .contains("expected tool `read_file` to be offered, but the request offers []")
    );
    // A mismatch does not use up the turn.
    assert_eq!(provider.remaining(), 3);
    provider
        .complete(&request("review", false), &|_| {})
        .await
        .unwrap();
    let error = provider
        .complete(&request("review", false), &|_| {})
        .await
        .unwrap_err();
    assert!(check_display(&error).contains("turn 2 of 3: expected the last tool result to contain \"fn main\", but the request has none"));
}

#[test]
fn bad_cassette_file_error_has_path_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.yaml");
    std::fs::write(&path, "version: 1\nturns:\n  - response:\n      txet: hi\n").unwrap();
    let error = ScriptedProvider::from_file(&path).unwrap_err();
    let text = check_display(&error);
    assert!(
        text.starts_with(&format!("{}:4:7: invalid cassette: ", path.display())),
        "{text}"
    );
    assert!(text.contains("txet"), "{text}");

    let error = ScriptedProvider::from_yaml("version: 2\nturns: []\n", "v2.yaml").unwrap_err();
    assert_eq!(
        error.to_string(),
        "v2.yaml: unsupported cassette version 2 (expected 1)"
    );
    let error =
        ScriptedProvider::from_yaml("version: 1\nturns: [{expect: {}}]\n", "x").unwrap_err();
    assert_eq!(
        error.to_string(),
        "x: turn 1 must have exactly one of `response` and `error`"
    );
    let missing = ScriptedProvider::from_file(&dir.path().join("nope.yaml")).unwrap_err();
    assert!(check_display(&missing).starts_with("cannot read cassette "));
}

#[tokio::test]
async fn build_provider_resolves_scripted_paths_against_the_working_dir() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("c.yaml"), CASSETTE).unwrap();
    let options = ProviderOptions {
        working_dir: Some(dir.path().to_path_buf()),
        ..options()
    };
    let model = ModelRef {
        provider: "scripted".into(),
        model: "c.yaml".into(),
    };
    let provider = build_provider(&model, &Settings::default(), &options).unwrap();
    assert_eq!(provider.name(), "scripted");
    let response = provider
        .complete(&request("review", false), &|_| {})
        .await
        .unwrap();
    assert_eq!(response.text.as_deref(), Some("I'll read it."));
}

#[tokio::test]
async fn a_recorded_run_replays_the_same_responses() {
    let server = FakeServer::openai().await;
    let inner = provider_at(
        "openai",
        ProviderKind::Openai,
        &server.base_url(),
        &options(),
    );
    let recorder = Arc::new(RecordingProvider::new(inner));
    server.push_sse([
        openai::text_chunk("Reading."),
        openai::tool_call_chunk(0, Some("call_x"), Some("read_file"), "{\"path\":\"a.rs\"}"),
        openai::finish_chunk("tool_calls"),
        openai::usage_chunk(20, 4),
        openai::done(),
    ]);
    server.push_json(openai::text_response("All good."));

    let mut request = request("Review a.rs\nthoroughly", true);
    let mut live = Vec::new();
    let first = recorder.complete(&request, &|_| {}).await.unwrap();
    request.messages.push(first.to_message());
    request.messages.push(Message::Tool {
        call_id: "call_x".into(),
        name: "read_file".into(),
        content: "\n  fn a() {}\n".into(),
        is_error: false,
    });
    live.push(first);
    live.push(recorder.complete(&request, &|_| {}).await.unwrap());
    assert_eq!(recorder.len(), 2);

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.yaml");
    // An older, readable recording there is replaced whole by a private one.
    std::fs::write(&path, "old recording").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        recorder.save(&path).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode, 0o600, "the cassette holds the conversation");
    }
    recorder.save(&path).unwrap();
    let yaml = std::fs::read_to_string(&path).unwrap();
    assert!(!yaml.contains(KEY) && !yaml.contains("Bearer"), "{yaml}");
    assert!(yaml.contains("lastUserContains: Review a.rs"), "{yaml}");
    assert!(yaml.contains("lastToolResultContains: fn a() {}"), "{yaml}");
    assert!(yaml.contains("model: openai:test-model"), "{yaml}");

    let model = ModelRef {
        provider: "scripted".into(),
        model: path.display().to_string(),
    };
    let replay = build_provider(&model, &Settings::default(), &options()).unwrap();
    let mut request = self::request("Review a.rs\nthoroughly", true);
    let first = replay.complete(&request, &|_| {}).await.unwrap();
    request.messages.push(first.to_message());
    request.messages.push(Message::Tool {
        call_id: "call_x".into(),
        name: "read_file".into(),
        content: "\n  fn a() {}\n".into(),
        is_error: false,
    });
    let second = replay.complete(&request, &|_| {}).await.unwrap();
    assert_eq!(vec![first, second], live);
}

#[tokio::test]
async fn order_match_takes_the_first_unused_turn_that_matches() {
    let cassette = r#"
version: 1
order: match
turns:
  - expect: { lastUserContains: crash }
    response: { text: "a crash" }
  - expect: { lastUserContains: slow }
    response: { text: "slowness" }
  - expect: { lastUserContains: crash }
    response: { text: "another crash" }
"#;
    let provider = ScriptedProvider::from_yaml(cassette, "scenarios.yaml").unwrap();
    let text = |response: agentctl_core::ModelResponse| response.text.unwrap();
    let slow = provider
        .complete(&request("it is slow", false), &|_| {})
        .await;
    assert_eq!(text(slow.unwrap()), "slowness");
    let crash = provider.complete(&request("a crash", false), &|_| {}).await;
    assert_eq!(text(crash.unwrap()), "a crash");
    let crash = provider.complete(&request("a crash", false), &|_| {}).await;
    assert_eq!(text(crash.unwrap()), "another crash");
    assert_eq!(provider.remaining(), 0);
    let error = provider
        .complete(&request("slow again", false), &|_| {})
        .await
        .unwrap_err();
    assert!(
        check_display(&error).contains("no unused turn matches the request (last user message: \"slow again\"); all 3 turns are used"),
        "{error}"
    );
    // A request no unused turn expects names each turn's reason.
    let provider = ScriptedProvider::from_yaml(cassette, "scenarios.yaml").unwrap();
    let error = provider
        .complete(&request("hello", false), &|_| {})
        .await
        .unwrap_err();
    let message = check_display(&error);
    assert!(
        message.contains("turn 1: expected the last user message to contain \"crash\""),
        "{message}"
    );
    assert!(
        message.contains("turn 2: expected the last user message to contain \"slow\""),
        "{message}"
    );
}
