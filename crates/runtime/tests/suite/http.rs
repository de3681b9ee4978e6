//! Over real HTTP: the OpenAI provider against the fake server of agentctl-test-support.

use super::support::{agent, collect, kinds};
use agentctl_core::Settings;
use agentctl_core::{
    RunEvent, RunOptions, ToolContext, ToolError, ToolOutput, ToolRegistry, TypedTool,
};
use agentctl_providers::{BuiltinProviders, Env, ProviderOptions, RetryPolicy};
use agentctl_runtime::Runtime;
use agentctl_test_support::{FakeServer, openai};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct LookupArgs {
    /// Key to look up.
    key: String,
}

struct Lookup;

#[async_trait::async_trait]
impl TypedTool for Lookup {
    type Args = LookupArgs;
    fn name(&self) -> &str {
        "lookup"
    }
    fn description(&self) -> &str {
        "Looks a key up in the table."
    }
    async fn call(&self, args: LookupArgs, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(if args.key == "capital" {
            "Paris"
        } else {
            "unknown"
        }))
    }
}

fn runtime(server: &FakeServer) -> Runtime {
    let options = ProviderOptions {
        retry: RetryPolicy::none(),
        env: Env::from_pairs([
            ("OPENAI_API_KEY", "sk-test"),
            ("OPENAI_BASE_URL", server.base_url().as_str()),
        ]),
        ..ProviderOptions::default()
    };
    let mut tools = ToolRegistry::new();
    tools.register_typed(Lookup);
    Runtime::new(Settings::default(), BuiltinProviders::new(options), tools)
}

#[tokio::test]
async fn agent_calls_lookup_over_http_and_answers() {
    let server = FakeServer::openai().await;
    server.push_json(openai::tool_calls_response(&[(
        "call_1",
        "lookup",
        r#"{"key":"capital"}"#,
    )]));
    server.push_json(openai::text_response("The capital is Paris."));
    let events =
        collect(runtime(&server).run(&agent("geo"), "What is the capital?", RunOptions::new()))
            .await;
    assert_eq!(
        kinds(&events),
        [
            "run_started",
            "model_request",
            "usage",
            "tool_call",
            "tool_decision",
            "tool_result",
            "turn_committed",
            "model_request",
            "text_delta",
            "usage",
            "turn_committed",
            "run_finished"
        ]
    );
    assert!(
        matches!(&events[5], RunEvent::ToolResult { content, is_error: false, .. } if content == "Paris")
    );
    let RunEvent::RunFinished { result } = events.last().unwrap() else {
        panic!()
    };
    assert_eq!(result.text, "The capital is Paris.");
    assert_eq!(result.metadata.iterations, 2);
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].header("authorization"), Some("Bearer sk-test"));
    assert_eq!(requests[0].body["tools"][0]["function"]["name"], "lookup");
    let messages = requests[1].body["messages"].as_array().unwrap();
    let tool = messages.iter().find(|m| m["role"] == "tool").unwrap();
    assert_eq!(
        (tool["tool_call_id"].as_str(), tool["content"].as_str()),
        (Some("call_1"), Some("Paris"))
    );
}

#[tokio::test]
async fn streamed_text_arrives_as_deltas() {
    let server = FakeServer::openai().await;
    server.push_sse([
        openai::text_chunk("Hel"),
        openai::text_chunk("lo"),
        openai::finish_chunk("stop"),
        openai::usage_chunk(12, 2),
        openai::done(),
    ]);
    let events =
        collect(runtime(&server).run(&agent("a"), "hi", RunOptions::new().stream(true))).await;
    let deltas: Vec<&str> = events
        .iter()
        .filter_map(|event| match event {
            RunEvent::TextDelta { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(deltas, ["Hel", "lo"]);
    let RunEvent::RunFinished { result } = events.last().unwrap() else {
        panic!("{events:?}")
    };
    assert_eq!(result.text, "Hello");
    assert_eq!(result.metadata.tokens_used.input, 12);
    assert_eq!(server.single_request().body["stream"], true);
}

#[tokio::test]
async fn unauthorized_is_a_one_line_error() {
    let server = FakeServer::openai().await;
    server.push_status(401, None);
    let events = collect(runtime(&server).run(&agent("a"), "hi", RunOptions::new())).await;
    let RunEvent::RunFailed { error } = events.last().unwrap() else {
        panic!("{events:?}")
    };
    assert!(!error.contains('\n'), "{error}");
    assert!(
        error.contains("401") && error.contains("gpt-4o-mini"),
        "{error}"
    );
    println!("{error}");
}
