//! The triage scenario of `examples/triage.rs`, as the bench runs it: a `triage` agent hands
//! each request to a specialist (`billing` or `tech`) with `handoff_to_<specialist>`; the
//! specialist calls `lookup` and answers. Three model calls a scenario, through the library
//! path an embedder uses (a session runner over agents defined in code, the built-in
//! providers), unrecorded or each scenario in a session of its own in a SQLite store.

use agentctl::StreamExt;
use agentctl::context::{SessionChoice, SessionStore, SqliteStore};
use agentctl::core::{
    AgentDefinition, AgentSource, AgentSpec, Handoff, ModelRef, ProviderConfig, ProviderKind,
    RiskLevel, RunOptions, Scope, Settings, SourceFormat, ToolContext, ToolError, ToolOutput,
    ToolPolicy, TypedTool, typed_tool,
};
use agentctl::providers::{ProviderOptions, build_provider};
use agentctl::session::{RuntimeBuilder, SessionHandle, SessionRunner};
use anyhow::{Context as _, bail};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

/// The requests, in turn: one for each specialist.
pub const REQUESTS: &[(&str, &str)] = &[
    ("I was charged twice: can I get a refund?", "billing"),
    ("My internet keeps dropping every evening.", "tech"),
];

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
            model: Some("local:gpt-4o-mini".into()),
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
            path: "bench_triage.rs".into(),
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

/// Runs scenarios against one OpenAI-compatible endpoint.
pub struct Scenarios {
    runner: SessionRunner,
    /// The SQLite store each scenario is recorded in, if any.
    store: Option<Arc<dyn SessionStore>>,
    stream: bool,
}

impl Scenarios {
    /// Scenarios whose model calls go to `base_url`, recorded in a SQLite store in `store_dir`
    /// if given, streamed if `stream`; with `provider_per_runtime`, each agent's runtime gets a
    /// provider of its own from a factory (as `examples/triage.rs` builds them), else the
    /// runtime builder's shared providers.
    pub fn new(
        base_url: &str,
        store_dir: Option<&Path>,
        stream: bool,
        provider_per_runtime: bool,
    ) -> anyhow::Result<Self> {
        let mut settings = Settings::default();
        settings.providers.insert(
            "local".into(),
            ProviderConfig {
                kind: ProviderKind::Openai,
                base_url: Some(base_url.to_owned()),
                ..ProviderConfig::default()
            },
        );
        let root = std::env::current_dir().context("cannot read the current directory")?;
        let mut builder = RuntimeBuilder::with_settings(settings, &root).tool(typed_tool(Lookup));
        if provider_per_runtime {
            let options = ProviderOptions::default();
            let factory = move |model: &ModelRef, settings: &Settings| {
                build_provider(model, settings, &options)
            };
            builder = builder.provider_factory(Arc::new(factory));
        }
        let store = match store_dir {
            Some(dir) => {
                let path = dir.join("sessions.db");
                let store = SqliteStore::open(&path)
                    .with_context(|| format!("cannot open {}", path.display()))?;
                Some(Arc::new(store) as Arc<dyn SessionStore>)
            }
            None => None,
        };
        Ok(Self {
            runner: SessionRunner::with_agents(builder, agents()),
            store,
            stream,
        })
    }

    /// Runs scenario `index` (its request and specialist chosen by it) to the end and checks
    /// that the triage handed off to the right specialist, which answered.
    pub async fn run(&self, index: usize) -> anyhow::Result<()> {
        let (request, specialist) = REQUESTS[index % REQUESTS.len()];
        let session = match &self.store {
            Some(store) => Some(SessionHandle::open(
                Arc::clone(store),
                SessionChoice::New,
                Some(request),
                self.runner.builder().settings().agents.clone(),
            )?),
            None => None,
        };
        let triage = self.runner.require_agent("triage")?;
        let options = RunOptions::new().stream(self.stream);
        let (mut conversation, _) = self.runner.conversation(triage, session, options).await?;
        let mut turn = conversation.turn(request).await?;
        while turn.next().await.is_some() {}
        let outcome = turn.finish().await;
        let result = outcome.result?;
        if let Some(error) = outcome.save_error {
            bail!("scenario {index} was not saved: {error}");
        }
        if outcome.agents != ["triage", specialist] || result.text.trim().is_empty() {
            bail!(
                "scenario {index}: expected triage → {specialist} and an answer, got {} → {:?}",
                outcome.agents.join(" → "),
                result.text
            );
        }
        Ok(())
    }

    /// Stops what the runner started.
    pub async fn shutdown(&self) {
        self.runner.shutdown().await;
    }
}
