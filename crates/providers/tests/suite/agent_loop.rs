//! The agent loop over real HTTP: the OpenAI and Gemini providers against the strict fake
//! servers, which refuse any request the real API would refuse.

use super::common::lookup_runtime;
use agentctl_core::Settings;
use agentctl_core::{
    RunEvent, RunOptions, ToolContext, ToolError, ToolOutput, ToolRegistry, TypedTool,
};
use agentctl_providers::{BuiltinProviders, Env, ProviderOptions, RetryPolicy};
use agentctl_runtime::Runtime;
use agentctl_test_support::{FakeServer, gemini, openai};
use agentctl_test_support::{agent, collect, kinds};
use serde_json::json;

fn runtime(server: &FakeServer) -> Runtime {
    lookup_runtime(&server.base_url())
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
            RunEvent::TextDelta { text, .. } => Some(text.as_str()),
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

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct TableArgs {
    /// Key to look up.
    key: String,
    /// At most this many rows.
    limit: Option<u32>,
}

/// A tool named the way agentctl names MCP tools, with an optional argument: the two things
/// the APIs' rules trip on (dots in names; `"type": ["integer", "null"]` for Gemini).
struct McpLookup;

#[async_trait::async_trait]
impl TypedTool for McpLookup {
    type Args = TableArgs;
    fn name(&self) -> &str {
        "mcp.table.lookup"
    }
    fn description(&self) -> &str {
        "Looks a key up in the table."
    }
    // Read-only, as a server's `readOnlyHint` says: a runtime without a policy runs it.
    fn risk(&self) -> agentctl_core::RiskLevel {
        agentctl_core::RiskLevel::Safe
    }
    async fn call(&self, args: TableArgs, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(format!(
            "{}: Paris (limit {:?})",
            args.key, args.limit
        )))
    }
}

fn mcp_runtime(env: [(&str, &str); 2]) -> Runtime {
    let options = ProviderOptions {
        retry: RetryPolicy::none(),
        env: Env::from_pairs(env),
        ..ProviderOptions::default()
    };
    let mut tools = ToolRegistry::new();
    tools.register_typed(McpLookup);
    Runtime::new(Settings::default(), BuiltinProviders::new(options), tools)
}

fn tool_result(events: &[RunEvent]) -> String {
    events
        .iter()
        .find_map(|event| match event {
            RunEvent::ToolResult {
                content,
                is_error: false,
                ..
            } => Some(content.clone()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no successful tool result in {events:?}"))
}

#[tokio::test]
async fn an_mcp_tool_is_offered_called_and_answered_over_openai() {
    let server = FakeServer::openai().await;
    server.push_json(openai::tool_calls_response(&[(
        "call_1",
        "mcp__table__lookup",
        r#"{"key":"capital","limit":1}"#,
    )]));
    server.push_json(openai::text_response("Paris."));
    let base = server.base_url();
    let runtime = mcp_runtime([("OPENAI_API_KEY", "sk-test"), ("OPENAI_BASE_URL", &base)]);
    let events = collect(runtime.run(&agent("geo"), "Capital?", RunOptions::new())).await;
    assert_eq!(tool_result(&events), "capital: Paris (limit Some(1))");
    let requests = server.requests();
    assert_eq!(requests.len(), 2, "{events:?}");
    assert_eq!(
        requests[0].body["tools"][0]["function"]["name"],
        "mcp__table__lookup"
    );
    assert_eq!(
        requests[1].body["messages"][2]["tool_calls"][0]["function"]["name"],
        "mcp__table__lookup"
    );
    server.assert_no_violations();
}

#[tokio::test]
async fn an_mcp_tool_is_offered_called_and_answered_over_gemini() {
    let server = FakeServer::gemini().await;
    server.push_json(gemini::chunk(
        None,
        &[("mcp__table__lookup", json!({"key": "capital"}))],
        true,
    ));
    server.push_json(gemini::chunk(Some("Paris."), &[], true));
    let base = server.base_url();
    let runtime = mcp_runtime([("GEMINI_API_KEY", "g-test"), ("GEMINI_BASE_URL", &base)]);
    let mut agent = agent("geo");
    agent.spec.model = Some("gemini:gemini-2.5-flash".into());
    let events = collect(runtime.run(&agent, "Capital?", RunOptions::new())).await;
    assert_eq!(tool_result(&events), "capital: Paris (limit None)");
    let requests = server.requests();
    assert_eq!(requests.len(), 2, "{events:?}");
    let declaration = &requests[0].body["tools"][0]["functionDeclarations"][0];
    assert_eq!(declaration["name"], "mcp__table__lookup");
    assert_eq!(
        declaration["parameters"]["properties"]["limit"]["nullable"],
        true
    );
    assert_eq!(
        requests[1].body["contents"][2]["parts"][0]["functionResponse"]["name"],
        "mcp__table__lookup"
    );
    server.assert_no_violations();
}
