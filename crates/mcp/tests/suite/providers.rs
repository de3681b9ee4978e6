//! An agent allowed `mcp.everything.*` (the real npm everything server) against the strict fake
//! OpenAI and Anthropic servers: the tools are offered under names the APIs accept, the model
//! calls the echo tool by the name it was offered, the call reaches the server, and the result
//! comes back to the model.

use super::support::{agent, npm_server, stdio};
use agentctl_core::{RunOptions, Settings, ToolRegistry};
use agentctl_mcp::McpManager;
use agentctl_providers::{BuiltinProviders, Env, ProviderOptions, RetryPolicy};
use agentctl_runtime::Runtime;
use agentctl_test_support::{FakeServer, anthropic, openai};
use serde_json::{Value, json};

/// The name the echo tool is offered under (`.` is not allowed in function names).
const WIRE_NAME: &str = "mcp__everything__echo";

async fn everything_tools(
    model: &str,
) -> Option<(McpManager, ToolRegistry, agentctl_core::AgentDefinition)> {
    let bin = npm_server("mcp-server-everything")?;
    let manager = McpManager::new(
        [("everything".to_owned(), stdio(&bin, &[]))].into(),
        std::env::temp_dir(),
    );
    let mut agent = agent("echoer", &["everything"], Some(&["mcp.everything.*"]));
    agent.spec.model = Some(model.to_owned());
    let (tools, warnings) = manager.tools_for_agent(&agent).await;
    assert!(warnings.is_empty(), "{warnings:?}");
    let mut registry = ToolRegistry::new();
    for tool in tools {
        registry.register_arc(tool);
    }
    assert!(registry.contains("mcp.everything.echo"));
    Some((manager, registry, agent))
}

fn runtime(base_url: &str, env: &str, registry: ToolRegistry) -> Runtime {
    let options = ProviderOptions {
        retry: RetryPolicy::none(),
        env: Env::from_pairs([
            (env, "sk-test"),
            ("OPENAI_BASE_URL", base_url),
            ("ANTHROPIC_BASE_URL", base_url),
        ]),
        ..ProviderOptions::default()
    };
    Runtime::new(
        Settings::default(),
        BuiltinProviders::new(options),
        registry,
    )
}

fn offered_names(tools: &Value, pointer: &str) -> Vec<String> {
    tools
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|tool| tool.pointer(pointer)?.as_str().map(str::to_owned))
        .collect()
}

#[tokio::test]
async fn openai_model_calls_an_mcp_tool_by_its_offered_name() {
    let Some((manager, registry, agent)) = everything_tools("openai:gpt-4o-mini").await else {
        return;
    };
    let server = FakeServer::openai().await;
    server.push_json(openai::tool_calls_response(&[(
        "call_1",
        WIRE_NAME,
        r#"{"message":"hello through the wire"}"#,
    )]));
    server.push_json(openai::text_response("The server echoed it."));
    let runtime = runtime(&server.base_url(), "OPENAI_API_KEY", registry);
    let result = runtime
        .run_to_completion(&agent, "Echo something", RunOptions::new())
        .await
        .unwrap();
    assert_eq!(result.text, "The server echoed it.");
    let requests = server.requests();
    let offered = offered_names(&requests[0].body["tools"], "/function/name");
    assert!(offered.contains(&WIRE_NAME.to_owned()), "{offered:?}");
    assert!(
        offered.iter().all(|name| !name.contains('.')),
        "{offered:?}"
    );
    let messages = requests[1].body["messages"].as_array().unwrap();
    let call = &messages[messages.len() - 2]["tool_calls"][0];
    assert_eq!(call["function"]["name"], WIRE_NAME);
    let answer = messages.last().unwrap();
    assert_eq!(answer["role"], "tool");
    assert_eq!(answer["tool_call_id"], "call_1");
    assert!(
        answer["content"]
            .as_str()
            .unwrap()
            .contains("hello through the wire"),
        "{answer}"
    );
    server.assert_no_violations();
    manager.shutdown().await;
}

#[tokio::test]
async fn anthropic_model_calls_an_mcp_tool_by_its_offered_name() {
    let Some((manager, registry, agent)) = everything_tools("anthropic:claude-sonnet-4-5").await
    else {
        return;
    };
    let server = FakeServer::anthropic().await;
    server.push_json(anthropic::response(
        None,
        &[("toolu_1", WIRE_NAME, json!({"message": "hello to Claude"}))],
    ));
    server.push_json(anthropic::response(Some("The server echoed it."), &[]));
    let runtime = runtime(&server.base_url(), "ANTHROPIC_API_KEY", registry);
    let result = runtime
        .run_to_completion(&agent, "Echo something", RunOptions::new())
        .await
        .unwrap();
    assert_eq!(result.text, "The server echoed it.");
    let requests = server.requests();
    let offered = offered_names(&requests[0].body["tools"], "/name");
    assert!(offered.contains(&WIRE_NAME.to_owned()), "{offered:?}");
    let messages = requests[1].body["messages"].as_array().unwrap();
    let result_block = &messages.last().unwrap()["content"][0];
    assert_eq!(result_block["type"], "tool_result");
    assert_eq!(result_block["tool_use_id"], "toolu_1");
    assert!(
        result_block.to_string().contains("hello to Claude"),
        "{result_block}"
    );
    server.assert_no_violations();
    manager.shutdown().await;
}
