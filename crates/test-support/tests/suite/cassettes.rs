//! The cassette server: a real OpenAI provider gets what the scripted provider would give.

use agentctl_core::{
    Message, ModelDelta, ModelProvider, ModelRef, ModelRequest, ProviderConfig, ProviderError,
    ProviderKind, Settings, StopReason, ToolSpec,
};
use agentctl_providers::{Env, ProviderOptions, RetryPolicy, ScriptedProvider, build_provider};
use agentctl_test_support::{FakeServer, cassette_model};
use serde_json::json;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

const REVIEWER: &str = r#"
version: 1
turns:
  - expect: { lastUserContains: review, toolsInclude: [read_file, mcp.srv.echo] }
    response:
      text: I'll read it.
      toolCalls:
        - name: mcp.srv.echo
          arguments: { text: hi }
        - { id: call_x, name: read_file, arguments: { path: src/main.rs } }
      usage: { inputTokens: 12, outputTokens: 7 }
  - expect: { lastToolResultContains: "fn main", historyContains: "I'll read" }
    response: { text: Looks fine. }
"#;

const FIXER: &str = "version: 1\norder: match\nturns:\n  - expect: { lastUserContains: fix }\n    response: { text: Fixed. }\n  - error: { status: 403, message: not allowed }\n";

fn write(dir: &tempfile::TempDir, name: &str, yaml: &str) -> (String, PathBuf) {
    let path = dir.path().join(name);
    std::fs::write(&path, yaml).unwrap();
    (cassette_model(&path), path)
}

fn provider(server: &FakeServer, model: &str) -> Arc<dyn ModelProvider> {
    let mut settings = Settings::default();
    let config = ProviderConfig {
        kind: ProviderKind::Openai,
        base_url: Some(server.base_url()),
        ..Default::default()
    };
    settings.providers.insert("served".to_owned(), config);
    let options = ProviderOptions {
        retry: RetryPolicy {
            max_attempts: 1,
            base_delay: Duration::from_millis(1),
            max_delay: Duration::from_millis(1),
        },
        request_timeout: Duration::from_secs(30),
        idle_timeout: Duration::from_secs(30),
        env: Env::from_pairs([("OPENAI_API_KEY", "sk-test")]),
        working_dir: None,
    };
    let model = ModelRef {
        provider: "served".to_owned(),
        model: model.to_owned(),
    };
    build_provider(&model, &settings, &options).unwrap()
}

fn request(model: &str, text: &str, stream: bool) -> ModelRequest {
    let tool = |name: &str| ToolSpec {
        name: name.into(),
        description: "A tool".into(),
        parameters: json!({"type": "object", "properties": {}}),
    };
    ModelRequest {
        model: model.into(),
        system: Some("You are terse.".into()),
        messages: vec![Message::user(text)],
        tools: vec![tool("read_file"), tool("mcp.srv.echo")].into(),
        temperature: None,
        effort: None,
        max_tokens: None,
        stream,
    }
}

/// Answers the calls of `response` and asks again.
fn answer_calls(request: &mut ModelRequest, response: &agentctl_core::ModelResponse) {
    request.messages.push(Message::Assistant {
        content: response.text.clone(),
        tool_calls: response.tool_calls.clone(),
    });
    for call in &response.tool_calls {
        request.messages.push(Message::Tool {
            call_id: call.id.clone(),
            name: call.name.clone(),
            content: "fn main() {}".into(),
            is_error: false,
        });
    }
}

#[tokio::test]
async fn a_served_cassette_answers_as_the_scripted_provider_does() {
    let dir = tempfile::tempdir().unwrap();
    let (model, path) = write(&dir, "reviewer.yaml", REVIEWER);
    assert_eq!(model, "cassette-reviewer");
    let server = FakeServer::openai_cassettes([(model.clone(), path.clone())]).await;
    for stream in [true, false] {
        server.rewind_cassettes();
        let scripted = ScriptedProvider::from_file(&path).unwrap();
        let served = provider(&server, &model);
        let mut request = request(&model, "please review main", stream);
        let deltas = Mutex::new(Vec::new());
        let sink = |delta: ModelDelta| deltas.lock().unwrap().push(delta);
        let expected = scripted.complete(&request, &|_| {}).await.unwrap();
        let first = served.complete(&request, &sink).await.unwrap();
        assert_eq!(first, expected);
        assert_eq!(first.tool_calls[0].name, "mcp.srv.echo");
        assert_eq!(first.tool_calls[1].id, "call_x");
        assert_eq!(first.stop_reason, StopReason::ToolUse);
        assert_eq!(first.usage.output_tokens, 7);
        if stream {
            let text: Vec<_> = deltas
                .lock()
                .unwrap()
                .iter()
                .filter_map(|delta| match delta {
                    ModelDelta::Text { text } => Some(text.clone()),
                    _ => None,
                })
                .collect();
            assert_eq!(text.concat(), "I'll read it.");
            assert_eq!(text.len(), 3);
        }
        answer_calls(&mut request, &first);
        let expected = scripted.complete(&request, &|_| {}).await.unwrap();
        let second = served.complete(&request, &|_| {}).await.unwrap();
        assert_eq!(second, expected);
        assert_eq!(second.text.as_deref(), Some("Looks fine."));
    }
    // The MCP tool went out under its wire name.
    let requests = server.requests();
    assert_eq!(
        requests[0].body["tools"][1]["function"]["name"],
        "mcp__srv__echo"
    );
    server.assert_no_violations();
}

#[tokio::test]
async fn each_model_replays_its_own_cassette_and_error_turns_are_statuses() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeServer::openai_cassettes([
        write(&dir, "reviewer.yaml", REVIEWER),
        write(&dir, "fixer.yaml", FIXER),
    ])
    .await;
    let fixer = provider(&server, "cassette-fixer");
    let fixed = fixer
        .complete(&request("cassette-fixer", "fix it", true), &|_| {})
        .await
        .unwrap();
    assert_eq!(fixed.text.as_deref(), Some("Fixed."));
    let error = fixer
        .complete(&request("cassette-fixer", "fix it", false), &|_| {})
        .await
        .unwrap_err();
    assert!(
        matches!(error, ProviderError::Status { status: 403, ref message, .. } if message.contains("not allowed")),
        "{error:?}"
    );
    let reviewer = provider(&server, "cassette-reviewer");
    let reviewed = reviewer
        .complete(&request("cassette-reviewer", "review", false), &|_| {})
        .await
        .unwrap();
    assert_eq!(reviewed.text.as_deref(), Some("I'll read it."));
    server.assert_no_violations();
}

#[tokio::test]
async fn a_request_no_turn_matches_is_refused_and_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeServer::openai_cassettes([write(&dir, "reviewer.yaml", REVIEWER)]).await;
    let reviewer = provider(&server, "cassette-reviewer");
    let error = reviewer
        .complete(&request("cassette-reviewer", "hello", false), &|_| {})
        .await
        .unwrap_err();
    assert!(error.to_string().contains("400"), "{error}");
    let unknown = provider(&server, "cassette-nobody");
    unknown
        .complete(&request("cassette-nobody", "review", false), &|_| {})
        .await
        .unwrap_err();
    let violations = server.take_violations();
    assert_eq!(violations.len(), 2, "{violations:#?}");
    assert_eq!(violations[0].at, "cassette");
    assert!(
        violations[0].message.contains(
            "turn 1 of 2: expected the last user message to contain \"review\", but it is \"hello\""
        ),
        "{}",
        violations[0].message
    );
    assert!(
        violations[1].message.contains(
            "no cassette is served for model \"cassette-nobody\" (served: cassette-reviewer)"
        ),
        "{}",
        violations[1].message
    );
}
