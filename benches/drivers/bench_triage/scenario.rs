//! The triage scenario of `examples/triage.rs`, as the bench runs it: a `triage` agent hands
//! each request to a specialist (`billing` or `tech`) with `handoff_to_<specialist>`; the
//! specialist calls `lookup` and answers. Three model calls a scenario, through the library
//! path an embedder uses (a [`Session`] over agents defined in code, the built-in
//! providers): unrecorded, all in one session; or recorded in a store (SQLite or PostgreSQL),
//! each scenario in a session of its own or all in one.

use agentctl::core::{
    ContextMode, ModelRef, ProviderConfig, ProviderKind, RiskLevel, Settings, ToolContext,
    ToolError, ToolOutput, TypedTool, typed_tool,
};
use agentctl::providers::{ProviderOptions, build_provider};
use agentctl::session::{Agent, RuntimeBuilder, Session, SessionBuilder, Target, TurnOptions};
use agentctl::store::SessionStore;
use anyhow::{Context as _, bail};
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

/// The agents; with `stateless`, each run starts from nothing (context mode `run`: what a
/// service answering independent requests configures), so one session serves every scenario.
fn agents(stateless: bool) -> Vec<Agent> {
    let mode = if stateless {
        ContextMode::Run
    } else {
        ContextMode::Isolated
    };
    let specialist = |name: &str| {
        Agent::new(
            name,
            "Call `lookup` once with the customer's question, then answer in one sentence.",
        )
        .description(format!("Handles {name} questions."))
        .model("local:gpt-4o-mini")
        .max_turns(4)
        .tool(typed_tool(Lookup))
        .context_mode(mode)
    };
    vec![
        Agent::new(
            "triage",
            "Hand every request to the right specialist: billing for money, tech for the rest.",
        )
        .description("Handles triage questions.")
        .model("local:gpt-4o-mini")
        .max_turns(4)
        .handoff("billing")
        .handoff("tech")
        .context_mode(mode),
        specialist("billing"),
        specialist("tech"),
    ]
}

/// Runs scenarios against one OpenAI-compatible endpoint: all in one session whose agents keep
/// no context between runs (as a service answering independent requests would), unrecorded or
/// recorded in a store (SQLite or PostgreSQL); or recorded, each in a session of its own in
/// one store.
pub struct Scenarios {
    builder: RuntimeBuilder,
    agents: Vec<Agent>,
    /// The session every scenario runs in, unless each has its own.
    shared: Option<Session>,
    /// The store each scenario is recorded in, if any.
    store: Option<Arc<dyn SessionStore>>,
    stream: bool,
}

impl Scenarios {
    /// Scenarios whose model calls go to `base_url`, recorded in `store` if given (each in a
    /// session of its own unless `one_session`), streamed if `stream`;
    /// with `provider_per_runtime`, providers come from a factory of the embedder's instead of
    /// the runtime builder's built-in ones.
    pub async fn new(
        base_url: &str,
        store: Option<Arc<dyn SessionStore>>,
        one_session: bool,
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
        let mut builder = RuntimeBuilder::with_settings(settings, &root);
        if provider_per_runtime {
            let options = ProviderOptions::default();
            let factory = move |model: &ModelRef, settings: &Settings| {
                build_provider(model, settings, &options)
            };
            builder = builder.provider_factory(Arc::new(factory));
        }
        let shared = match &store {
            Some(_) if !one_session => None,
            Some(store) => Some(
                session(&builder, &agents(true))
                    .store(Arc::clone(store))
                    .build()
                    .await?,
            ),
            None => Some(session(&builder, &agents(true)).build().await?),
        };
        Ok(Self {
            builder,
            agents: agents(false),
            shared,
            store,
            stream,
        })
    }

    /// Runs scenario `index` (its request and specialist chosen by it) to the end in a new
    /// session and checks that the triage handed off to the right specialist, which answered.
    pub async fn run(&self, index: usize) -> anyhow::Result<()> {
        let (request, specialist) = REQUESTS[index % REQUESTS.len()];
        let session = match (&self.shared, &self.store) {
            (Some(shared), _) => shared.clone(),
            (None, Some(store)) => {
                session(&self.builder, &self.agents)
                    .store(Arc::clone(store))
                    .title_from(request)
                    .build()
                    .await?
            }
            (None, None) => bail!("no session and no store"),
        };
        let result = if self.stream {
            let options = TurnOptions::new().stream(true);
            let turn = session.turn(Target::Agent("triage".into()), request, options);
            turn.finish().await.result
        } else {
            session.ask_agent("triage", request).await
        };
        if self.shared.is_none() {
            session.shutdown().await;
        }
        let result = result?;
        if result.metadata.agent != specialist || result.text.trim().is_empty() {
            bail!(
                "scenario {index}: expected {specialist} to answer, got {} → {:?}",
                result.metadata.agent,
                result.text
            );
        }
        Ok(())
    }
}

/// A session of `agents` on `builder`'s runtime parts.
fn session(builder: &RuntimeBuilder, agents: &[Agent]) -> SessionBuilder<'static> {
    agents.iter().fold(
        Session::builder().runtime(builder.clone()),
        |session, agent| session.agent(agent.clone()),
    )
}
