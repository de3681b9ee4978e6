//! Per-call overhead of the agent loop: `Runtime::run_to_completion` against a local instant
//! OpenAI-compatible server, compared with a bare reqwest request loop against the same server.
//!
//! Run with `cargo bench --bench runtime`. The difference between `agent_loop_text` (one model
//! call per run) and `bare_reqwest` is what the runtime adds per call: model resolution, request
//! building, the provider's wire conversion, events and bookkeeping.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark: failures should abort"
)]

use agentctl_core::{
    AgentDefinition, AgentSource, AgentSpec, ProviderConfig, ProviderKind, Scope, Settings,
    SourceFormat,
};
use agentctl_core::{RunOptions, ToolContext, ToolError, ToolOutput, ToolRegistry, TypedTool};
use agentctl_providers::{BuiltinProviders, ProviderOptions, RetryPolicy};
use agentctl_runtime::Runtime;
use agentctl_test_support::InstantServer;
use divan::Bencher;
use std::sync::OnceLock;

fn main() {
    divan::main();
}

/// The instant server (the one `benches/drivers/floor.rs` and `benches/compare.sh` use), started once
/// on its own thread.
fn server() -> &'static InstantServer {
    static SERVER: OnceLock<InstantServer> = OnceLock::new();
    SERVER.get_or_init(|| InstantServer::start().unwrap())
}

fn client_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// The baseline: the same kind of request and JSON decoding, no agent loop.
#[divan::bench]
fn bare_reqwest(bencher: Bencher) {
    let url = format!("{}/chat/completions", server().base_url());
    // Building the runtime's provider first installs the TLS crypto provider reqwest needs.
    let _ = agent_runtime();
    let client = reqwest::Client::new();
    let runtime = client_runtime();
    bencher.bench_local(|| {
        runtime.block_on(async {
            let body = serde_json::json!({
                "model": "gpt-4o-mini",
                "messages": [
                    {"role": "system", "content": "You answer from the table."},
                    {"role": "user", "content": "What is the capital?"}
                ],
                "stream": false,
            });
            let response = client.post(&url).json(&body).send().await.unwrap();
            let value: serde_json::Value = response.json().await.unwrap();
            assert!(value["choices"][0]["message"]["content"].is_string());
        })
    });
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct LookupArgs {
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
        "Looks a key up."
    }
    // Read-only: it runs without an approval policy (only safe calls do).
    fn risk(&self) -> agentctl_core::RiskLevel {
        agentctl_core::RiskLevel::Safe
    }
    async fn call(&self, args: LookupArgs, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(if args.key == "capital" {
            "Paris"
        } else {
            "?"
        }))
    }
}

fn agent_runtime() -> Runtime {
    let mut settings = Settings::default();
    settings.providers.insert(
        "local".into(),
        ProviderConfig {
            kind: ProviderKind::Openai,
            base_url: Some(server().base_url()),
            ..ProviderConfig::default()
        },
    );
    let mut tools = ToolRegistry::new();
    tools.register_typed(Lookup);
    let options = ProviderOptions {
        retry: RetryPolicy::none(),
        ..ProviderOptions::default()
    };
    Runtime::new(settings, BuiltinProviders::new(options), tools)
}

fn agent(tools: bool) -> AgentDefinition {
    AgentDefinition {
        spec: AgentSpec {
            name: "bench".into(),
            model: Some("local:gpt-4o-mini".into()),
            tools: agentctl_core::ToolPolicy {
                allow: Some(if tools { vec!["lookup".into()] } else { vec![] }),
                deny: vec![],
            },
            ..AgentSpec::default()
        },
        system_prompt: "You answer from the table.".into(),
        source: AgentSource {
            format: SourceFormat::Native,
            path: "bench.md".into(),
            scope: Scope::Project,
        },
        extra: Default::default(),
    }
}

/// One run = one model call (no tools offered).
#[divan::bench]
fn agent_loop_text(bencher: Bencher) {
    let runtime = client_runtime();
    let agents = agent_runtime();
    let agent = agent(false);
    bencher.bench_local(|| {
        runtime.block_on(async {
            let result = agents
                .run_to_completion(&agent, "What is the capital?", RunOptions::new())
                .await
                .unwrap();
            assert_eq!(result.metadata.iterations, 1);
        })
    });
}

/// One run = two model calls and one `lookup` call; divide by two for the per-call figure.
#[divan::bench]
fn agent_loop_tool(bencher: Bencher) {
    let runtime = client_runtime();
    let agents = agent_runtime();
    let agent = agent(true);
    bencher.bench_local(|| {
        runtime.block_on(async {
            let result = agents
                .run_to_completion(&agent, "What is the capital?", RunOptions::new())
                .await
                .unwrap();
            assert_eq!(result.metadata.iterations, 2);
        })
    });
}

/// The event-stream API (`Runtime::run`), one model call, every event read.
#[divan::bench]
fn agent_loop_events(bencher: Bencher) {
    let runtime = client_runtime();
    let agents = agent_runtime();
    let agent = agent(false);
    bencher.bench_local(|| {
        runtime.block_on(async {
            use futures_util::StreamExt;
            let mut handle = agents.run(&agent, "What is the capital?", RunOptions::new());
            let mut last = None;
            while let Some(event) = handle.next().await {
                last = Some(event);
            }
            assert!(matches!(
                last,
                Some(agentctl_core::RunEvent::RunFinished { .. })
            ));
        })
    });
}
