//! Triage through handoffs, with the library: a `triage` agent hands each request to a
//! specialist (`billing` or `tech`) with `handoff_to_<specialist>`; the specialist looks the
//! answer up with a `lookup` tool and replies. Every scenario is exactly three model calls:
//! the triage's handoff, the specialist's lookup, the specialist's answer.
//!
//! ```sh
//! cargo run --release --example triage -- --base-url http://127.0.0.1:8080/v1 --model gpt-4o-mini -n 20
//! ```
//!
//! Works against any OpenAI-compatible endpoint (the key, if one is needed, from
//! `OPENAI_API_KEY`). The last line is machine-readable:
//! `RESULT {"scenarios":N,"seconds":S,"model_calls":M}`.

use agentctl::StreamExt;
use agentctl::core::{
    AgentDefinition, AgentSource, AgentSpec, Handoff, ModelProvider, ModelRef, ProviderConfig,
    ProviderKind, RiskLevel, RunOptions, Scope, Settings, SourceFormat, ToolContext, ToolError,
    ToolOutput, ToolPolicy, TypedTool, typed_tool,
};
use agentctl::providers::{ProviderOptions, build_provider};
use agentctl::session::{RuntimeBuilder, SessionRunner};
use anyhow::{Context as _, bail};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// Arguments of the `lookup` tool.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct LookupArgs {
    /// What to look up, e.g. `refund policy`.
    query: String,
}

/// The specialists' knowledge base.
struct Lookup;

#[async_trait::async_trait]
impl TypedTool for Lookup {
    type Args = LookupArgs;

    fn name(&self) -> &str {
        "lookup"
    }

    fn description(&self) -> &str {
        "Look an answer up in the support knowledge base."
    }

    fn risk(&self) -> RiskLevel {
        RiskLevel::Safe
    }

    fn is_mutating(&self) -> bool {
        false
    }

    async fn call(&self, args: LookupArgs, _ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let answer = if args.query.to_lowercase().contains("refund") {
            "Refunds are paid back within 5 working days."
        } else {
            "Restart the router, then check the status page."
        };
        Ok(ToolOutput::text(answer))
    }
}

fn agent(name: &str, prompt: &str, tools: &[&str], handoffs: &[&str]) -> AgentDefinition {
    AgentDefinition {
        spec: AgentSpec {
            name: name.into(),
            description: Some(format!("Handles {name} questions.")),
            model: Some("local:default".into()),
            max_turns: Some(4),
            tools: ToolPolicy {
                allow: Some(tools.iter().map(|tool| (*tool).to_owned()).collect()),
                deny: vec![],
            },
            handoffs: handoffs
                .iter()
                .map(|to| Handoff {
                    to: (*to).to_owned(),
                    ..Handoff::default()
                })
                .collect(),
            ..AgentSpec::default()
        },
        system_prompt: prompt.into(),
        source: AgentSource {
            format: SourceFormat::Native,
            path: "triage.rs".into(),
            scope: Scope::Project,
        },
        extra: BTreeMap::new(),
    }
}

fn agents() -> Vec<AgentDefinition> {
    let specialist =
        "Call `lookup` once with the customer's question, then answer in one sentence.";
    vec![
        agent(
            "triage",
            "Hand every request to the right specialist: billing for money, tech for the rest.",
            &["handoff_to_*"],
            &["billing", "tech"],
        ),
        agent("billing", specialist, &["lookup"], &[]),
        agent("tech", specialist, &["lookup"], &[]),
    ]
}

struct Args {
    base_url: String,
    model: String,
    scenarios: usize,
}

fn parse_args() -> anyhow::Result<Args> {
    let mut args = Args {
        base_url: String::new(),
        model: "gpt-4o-mini".into(),
        scenarios: 10,
    };
    let mut raw = std::env::args().skip(1);
    while let Some(flag) = raw.next() {
        let mut value = || raw.next().with_context(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--base-url" => args.base_url = value()?,
            "--model" => args.model = value()?,
            "-n" => args.scenarios = value()?.parse().context("-n takes a number")?,
            other => {
                bail!("unknown argument `{other}`; usage: triage --base-url URL [--model M] [-n N]")
            }
        }
    }
    if args.base_url.is_empty() {
        bail!("--base-url is required, e.g. --base-url http://127.0.0.1:8080/v1");
    }
    Ok(args)
}

/// A runner whose every model call goes to `base_url` as `model`, counted in `calls`.
fn runner(args: &Args, calls: &Arc<AtomicU64>) -> anyhow::Result<SessionRunner> {
    let mut settings = Settings::default();
    settings.providers.insert(
        "local".into(),
        ProviderConfig {
            kind: ProviderKind::Openai,
            base_url: Some(args.base_url.clone()),
            api_key_env: std::env::var_os("OPENAI_API_KEY").map(|_| "OPENAI_API_KEY".into()),
            ..ProviderConfig::default()
        },
    );
    let model = args.model.clone();
    let calls = Arc::clone(calls);
    let options = ProviderOptions::default();
    let factory = move |_: &ModelRef, settings: &Settings| {
        let target = ModelRef {
            provider: "local".into(),
            model: model.clone(),
        };
        let inner = build_provider(&target, settings, &options)?;
        Ok(Arc::new(Counting {
            inner,
            calls: Arc::clone(&calls),
        }) as Arc<dyn ModelProvider>)
    };
    let root = std::env::current_dir().context("cannot read the current directory")?;
    let builder = RuntimeBuilder::with_settings(settings, &root)
        .provider_factory(Arc::new(factory))
        .tool(typed_tool(Lookup));
    Ok(SessionRunner::with_agents(builder, agents()))
}

/// Counts model calls on the client side.
struct Counting {
    inner: Arc<dyn ModelProvider>,
    calls: Arc<AtomicU64>,
}

#[async_trait::async_trait]
impl ModelProvider for Counting {
    fn name(&self) -> &str {
        self.inner.name()
    }

    async fn complete(
        &self,
        request: &agentctl::core::ModelRequest,
        on_delta: agentctl::core::DeltaSink<'_>,
    ) -> Result<agentctl::core::ModelResponse, agentctl::core::ProviderError> {
        self.calls.fetch_add(1, Ordering::Relaxed);
        self.inner.complete(request, on_delta).await
    }
}

const REQUESTS: &[&str] = &[
    "I was charged twice: can I get a refund?",
    "My internet keeps dropping every evening.",
];

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = parse_args()?;
    let calls = Arc::new(AtomicU64::new(0));
    let runner = runner(&args, &calls)?;
    let started = Instant::now();
    for index in 0..args.scenarios {
        let request = REQUESTS[index % REQUESTS.len()];
        let triage = runner.require_agent("triage")?;
        let (mut conversation, _) = runner.conversation(triage, None, RunOptions::new()).await?;
        let mut turn = conversation.turn(request).await?;
        while turn.next().await.is_some() {}
        let outcome = turn.finish().await;
        let result = outcome.result?;
        if index < REQUESTS.len() {
            println!(
                "Q: {request}\n   {} → {}",
                outcome.agents.join(" → "),
                result.text.trim()
            );
        }
    }
    runner.shutdown().await;
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "RESULT {}",
        serde_json::json!({
            "scenarios": args.scenarios,
            "seconds": (seconds * 1000.0).round() / 1000.0,
            "model_calls": calls.load(Ordering::Relaxed),
        })
    );
    Ok(())
}
