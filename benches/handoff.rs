//! What switching agents on a handoff costs, model calls excluded: a session turn in which
//! `front` hands off to `back` (two model calls, one handoff tool call, a second agent started)
//! against a one-agent turn of the same shape (`solo`: two model calls, one tool call). The
//! model is an in-process instant provider, so the difference is the switch: closing the first
//! run, taking the target's tool set (assembled once per session), writing its brief and
//! starting its run on the session's runtime.
//!
//! Run with `cargo bench --bench handoff`; the handoff switch is `handoff_turn − one_agent_turn`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark: failures should abort"
)]

use agentctl_core::{
    DeltaSink, Message, ModelProvider, ModelRef, ModelRequest, ModelResponse, ProviderError,
    RiskLevel, Settings, StopReason, ToolCall, ToolError, Usage, tool_fn,
};
use agentctl_session::{Agent, RuntimeBuilder, Session, Target, TurnOptions};
use divan::Bencher;
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

async fn session() -> Session {
    let root = std::env::temp_dir();
    let factory = |_: &ModelRef, _: &Settings| Ok(Arc::new(Instant) as Arc<dyn ModelProvider>);
    let builder = RuntimeBuilder::with_settings(Settings::default(), &root)
        .provider_factory(Arc::new(factory));
    // A tool that does nothing, for the one-agent turn's tool call.
    let noop = tool_fn("noop", "Does nothing.", |_: NoArgs| async {
        Ok::<_, ToolError>("ok")
    })
    .risk(RiskLevel::Safe)
    .read_only();
    let agent = |name: &str| {
        Agent::new(name, format!("You are {name}."))
            .description(format!("The {name} agent."))
            .model("openai:gpt-4o-mini")
    };
    Session::builder()
        .runtime(builder)
        .agent(agent("front").handoff("back"))
        .agent(agent("back"))
        .agent(agent("solo").tool(noop))
        .build()
        .await
        .unwrap()
}

/// One turn of `first`, every event read; returns the agents that worked on it.
async fn turn(session: &Session, first: &str) -> Vec<String> {
    let target = Target::Agent(first.to_owned());
    let outcome = session
        .turn(target, "Where is it?", TurnOptions::new())
        .finish()
        .await;
    assert_eq!(outcome.result.unwrap().text, "Done.");
    outcome.agents
}

fn bench_turn(bencher: Bencher, first: &str, agents: usize) {
    let tokio = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let session = tokio.block_on(async { session().await });
    bencher.bench_local(|| {
        tokio.block_on(async { assert_eq!(turn(&session, first).await.len(), agents) })
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
