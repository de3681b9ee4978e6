//! What switching agents on a handoff costs, model calls excluded: a session turn in which
//! `front` hands off to `back` (two model calls, one handoff tool call, a second agent started)
//! against a one-agent turn of the same shape (`solo`: two model calls, one tool call). The
//! model is an in-process instant provider, so the difference is the switch: closing the first
//! run, assembling the target's tools and runtime, writing its brief and starting its run.
//!
//! Run with `cargo bench --bench handoff`; the handoff switch is `handoff_turn − one_agent_turn`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark: failures should abort"
)]

use agentctl_core::{
    AgentDefinition, AgentSource, AgentSpec, DeltaSink, Handoff, Message, ModelProvider, ModelRef,
    ModelRequest, ModelResponse, ProviderError, RunOptions, Scope, Settings, SourceFormat,
    StopReason, ToolCall, ToolContext, ToolError, ToolOutput, TypedTool, Usage,
};
use agentctl_session::{RuntimeBuilder, SessionRunner};
use divan::Bencher;
use futures_util::StreamExt;
use std::sync::Arc;

fn main() {
    divan::main();
}

/// Answers at once from the request alone: `front` hands off to `back`, `solo` calls `noop`,
/// and every other request (a tool result, `back`'s brief) gets the final text.
struct Instant;

#[async_trait::async_trait]
impl ModelProvider for Instant {
    fn name(&self) -> &str {
        "instant"
    }

    async fn complete(
        &self,
        request: &ModelRequest,
        _: DeltaSink<'_>,
    ) -> Result<ModelResponse, ProviderError> {
        let system = request.system.as_deref().unwrap_or_default();
        let asked = matches!(request.messages.last(), Some(Message::User { .. }));
        let call = |name: &str, arguments| ToolCall {
            id: "call_1".into(),
            name: name.into(),
            arguments,
            signature: None,
        };
        let tool_calls = match () {
            () if asked && system.starts_with("You are front") => vec![call(
                "handoff_to_back",
                serde_json::json!({"reason": "back knows"}),
            )],
            () if asked && system.starts_with("You are solo") => {
                vec![call("noop", serde_json::json!({}))]
            }
            () => Vec::new(),
        };
        let stop_reason = if tool_calls.is_empty() {
            StopReason::EndTurn
        } else {
            StopReason::ToolUse
        };
        Ok(ModelResponse {
            text: tool_calls.is_empty().then(|| "Done.".to_owned()),
            tool_calls,
            usage: Usage {
                input_tokens: 20,
                output_tokens: 5,
            },
            stop_reason,
        })
    }
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct NoArgs {}

/// A tool that does nothing, for the one-agent turn's tool call.
struct Noop;

#[async_trait::async_trait]
impl TypedTool for Noop {
    type Args = NoArgs;
    fn name(&self) -> &str {
        "noop"
    }
    fn description(&self) -> &str {
        "Does nothing."
    }
    fn risk(&self) -> agentctl_core::RiskLevel {
        agentctl_core::RiskLevel::Safe
    }
    fn is_mutating(&self) -> bool {
        false
    }
    async fn call(&self, _: NoArgs, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text("ok"))
    }
}

fn agent(name: &str, handoffs: &[&str]) -> AgentDefinition {
    AgentDefinition {
        spec: AgentSpec {
            name: name.into(),
            description: Some(format!("The {name} agent.")),
            model: Some("openai:gpt-4o-mini".into()),
            handoffs: handoffs
                .iter()
                .map(|to| Handoff {
                    to: (*to).into(),
                    when: None,
                    description: None,
                    payload: None,
                    history: None,
                })
                .collect(),
            ..AgentSpec::default()
        },
        system_prompt: format!("You are {name}."),
        source: AgentSource {
            format: SourceFormat::Native,
            path: format!("{name}.md").into(),
            scope: Scope::Project,
        },
        extra: Default::default(),
    }
}

fn runner() -> SessionRunner {
    let root = std::env::temp_dir();
    let factory = |_: &ModelRef, _: &Settings| Ok(Arc::new(Instant) as Arc<dyn ModelProvider>);
    let builder = RuntimeBuilder::with_settings(Settings::default(), &root)
        .provider_factory(Arc::new(factory))
        .tool(agentctl_core::typed_tool(Noop));
    SessionRunner::with_agents(
        builder,
        vec![
            agent("front", &["back"]),
            agent("back", &[]),
            agent("solo", &[]),
        ],
    )
}

/// One turn of `first`, every event read; returns the agents that worked on it.
async fn turn(runner: &SessionRunner, first: &str) -> Vec<String> {
    let agent = runner.require_agent(first).unwrap();
    let (mut conversation, _) = runner
        .conversation(agent, None, RunOptions::new())
        .await
        .unwrap();
    let mut turn = conversation.turn("Where is it?").await.unwrap();
    while turn.next().await.is_some() {}
    let outcome = turn.finish().await;
    assert_eq!(outcome.result.unwrap().text, "Done.");
    outcome.agents
}

fn bench_turn(bencher: Bencher, first: &str, agents: usize) {
    let tokio = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let runner = runner();
    bencher.bench_local(|| {
        tokio.block_on(async { assert_eq!(turn(&runner, first).await.len(), agents) })
    });
}

/// `front` hands off to `back`: two model calls, one handoff, two agents.
#[divan::bench]
fn handoff_turn(bencher: Bencher) {
    bench_turn(bencher, "front", 2);
}

/// `solo` calls `noop` and answers: two model calls, one tool call, one agent.
#[divan::bench]
fn one_agent_turn(bencher: Bencher) {
    bench_turn(bencher, "solo", 1);
}
