//! [`SessionRunner`]: what a front end holds to run agents of a project — the agents found,
//! the MCP servers, the runtime builder — and hands out [`Conversation`]s.

use crate::builder::RuntimeBuilder;
use crate::conversation::Conversation;
use crate::error::SessionError;
use crate::main_agent::main_agent;
use crate::project::Project;
use crate::secrets::{env_policy_of, mcp_manager_of, secrets_of};
use crate::session::SessionHandle;
use crate::shared::{Prepared, Shared};
use crate::store::{DATABASE_URL_VAR, StoreSpec};
use crate::toolset::{AgentTools, McpTools};
use agentctl_context::SessionChoice;
use agentctl_core::{AgentDefinition, RunOptions, Settings};
use agentctl_definitions::Discovery;
use agentctl_mcp::{McpError, McpManager};
use agentctl_routing::{RouteDecision, Router};
use agentctl_sandbox::SandboxStatus;
use agentctl_tools::BuiltinToolsConfig;
use agentctl_trace::{Tracing, WarningFn};
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

/// Runs agents of one project for one front end.
///
/// ```no_run
/// # async fn demo() -> Result<(), agentctl_session::SessionError> {
/// use agentctl_context::SessionChoice;
/// use agentctl_core::RunOptions;
/// use agentctl_session::{Project, RuntimeBuilder, SessionRunner};
/// use futures_util::StreamExt;
///
/// let project = Project::load(None)?;
/// let runner = SessionRunner::new(&project, RuntimeBuilder::new(&project));
/// let agent = runner.require_agent("code-reviewer")?;
/// let session = runner.open_session(SessionChoice::New, Some("Review src/stats.py"))?;
/// let (mut conversation, _warnings) = runner.conversation(agent, session, RunOptions::new()).await?;
/// let mut turn = conversation.turn("Review src/stats.py").await?;
/// while let Some(event) = turn.next().await { /* render */ }
/// let outcome = turn.finish().await;
/// runner.shutdown().await;
/// # Ok(()) }
/// ```
pub struct SessionRunner {
    shared: Arc<Shared>,
    /// Built on first use: a run that names its agent never pays for it.
    router: OnceLock<Router>,
}

impl std::fmt::Debug for SessionRunner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionRunner")
            .field("builder", &self.shared.builder)
            .field("agents", &self.shared.agents.len())
            .finish_non_exhaustive()
    }
}

impl SessionRunner {
    /// A runner for `project`, building runtimes with `builder`. Finds the agents now; starts
    /// MCP servers only when an agent that names them runs.
    pub fn new(project: &Project, builder: RuntimeBuilder) -> Self {
        let discovery = project.discover();
        let agents: Vec<AgentDefinition> = discovery
            .agents
            .iter()
            .map(|loaded| loaded.definition.clone())
            .collect();
        let mcp = project.mcp_manager(&agents);
        // Inline MCP servers of agent files bring their own `${VAR}` secrets.
        let inline = secrets_of(project.settings(), &agents, std::env::vars_os());
        let secrets = builder.secrets().merged(&inline);
        let env = env_policy_of(project.settings(), &agents);
        let builder = builder.redactor(secrets).env_policy(env.clone());
        let traces = project.store_path().parent().map(|dir| dir.join("traces"));
        let tracing = tracing(project.settings(), traces, &builder);
        Self {
            shared: Arc::new(Shared {
                builder,
                builtin: BuiltinToolsConfig::from_settings(project.settings()).with_env(env),
                discovery,
                agents,
                mcp,
                store_path: Some(project.store_path()),
                store: Some(StoreSpec::new(
                    project.store_choice(std::env::var(DATABASE_URL_VAR).ok().as_deref()),
                    project.root().to_path_buf(),
                    project.store_path(),
                )),
                settings: project.settings().agents.clone(),
                tracing,
            }),
            router: OnceLock::new(),
        }
    }

    /// A runner for agents defined in code, without a project on disk: settings and root come
    /// from `builder`, and conversations are not recorded (there is no session store). Handoffs
    /// between these agents work as between agent files.
    pub fn with_agents(builder: RuntimeBuilder, agents: Vec<AgentDefinition>) -> Self {
        let discovery = Discovery::from_definitions(agents);
        let agents: Vec<AgentDefinition> = discovery
            .agents
            .iter()
            .map(|loaded| loaded.definition.clone())
            .collect();
        let settings = builder.settings().clone();
        let mcp = mcp_manager_of(&settings, &agents, builder.root());
        let secrets = secrets_of(&settings, &agents, std::env::vars_os());
        let secrets = builder.secrets().merged(&secrets);
        let env = env_policy_of(&settings, &agents);
        let builder = builder.redactor(secrets).env_policy(env.clone());
        let tracing = tracing(&settings, None, &builder);
        Self {
            shared: Arc::new(Shared {
                builtin: BuiltinToolsConfig::from_settings(&settings).with_env(env),
                builder,
                discovery,
                agents,
                mcp,
                store_path: None,
                store: None,
                settings: settings.agents,
                tracing,
            }),
            router: OnceLock::new(),
        }
    }

    /// Traces every turn and prints it on the console (`--trace`), and reports tracing
    /// trouble (a file that cannot be written, a collector that does not answer) through
    /// `warn` instead of stderr. Call before the first conversation.
    pub fn with_tracing(mut self, console: bool, warn: Option<WarningFn>) -> Self {
        if let Some(shared) = Arc::get_mut(&mut self.shared) {
            let settings = shared.settings.tracing.clone();
            let traces = shared
                .store_path
                .as_ref()
                .and_then(|path| path.parent())
                .map(|dir| dir.join("traces"));
            let warn = warn.unwrap_or_else(stderr_warning);
            shared.tracing = Tracing::new(settings, traces, shared.builder.secrets().clone(), warn)
                .force_console(console);
        }
        self
    }

    /// Every agent found, with load errors.
    pub fn discovery(&self) -> &Discovery {
        &self.shared.discovery
    }

    /// The runnable agent called `name`; otherwise the located errors of the file that would
    /// define it, or close names ([`Discovery::require`]).
    pub fn require_agent(&self, name: &str) -> Result<AgentDefinition, SessionError> {
        self.shared.require_agent(name)
    }

    /// The router over the runnable agents' triggers (agents whose files have errors are not
    /// routed to).
    pub fn router(&self) -> &Router {
        self.router.get_or_init(|| Router::new(&self.shared.agents))
    }

    /// What auto-routing does with `prompt`: the ranked matches and the agent picked — the
    /// best match, else the `agents.defaultAgent` setting as a fallback, else none.
    pub fn route(&self, prompt: &str) -> RouteDecision {
        self.router()
            .decide(prompt, self.shared.settings.default_agent.as_deref())
    }

    /// The runtime builder.
    pub fn builder(&self) -> &RuntimeBuilder {
        &self.shared.builder
    }

    /// The tracing backends and the per-turn decision.
    pub(crate) fn tracing(&self) -> &Tracing {
        &self.shared.tracing
    }

    /// The MCP servers of the settings.
    pub fn mcp(&self) -> &McpManager {
        &self.shared.mcp
    }

    /// Whether commands the tools run will be confined, for a front end to say once per run
    /// when they will not be.
    pub fn sandbox_status(&self) -> SandboxStatus {
        agentctl_sandbox::probe(self.shared.builtin.sandbox())
    }

    /// How the built-in tools are configured (sandbox, environment, time limits).
    pub fn builtin_tools(&self) -> &BuiltinToolsConfig {
        &self.shared.builtin
    }

    /// Opens (creating the store if needed) the chosen session; `None` when the settings turn
    /// persistence off (`agents.contextPersistence: false`) and no session was asked for.
    pub fn open_session(
        &self,
        choice: SessionChoice,
        first_prompt: Option<&str>,
    ) -> Result<Option<SessionHandle>, SessionError> {
        let shared = &self.shared;
        let Some(spec) = &shared.store else {
            return Ok(None);
        };
        if !shared.settings.context_persistence && choice == SessionChoice::New {
            return Ok(None);
        }
        let store = spec.open(shared.builder.secrets(), shared.builder.tightened_files())?;
        SessionHandle::open(store, choice, first_prompt, shared.settings.clone()).map(Some)
    }

    /// The tools `agent` gets in `session`: built-in, its MCP servers', its handoffs' and (in
    /// a session) `task`.
    pub async fn tools(
        &self,
        agent: &AgentDefinition,
        session: Option<&SessionHandle>,
        which: McpTools,
    ) -> AgentTools {
        self.shared.tools(agent, session, which).await
    }

    /// A conversation of `agent` in `session` (or unrecorded): its tools assembled (MCP
    /// servers started — their failures are the returned warnings), the agent pool added to
    /// its prompt when it may delegate, its runtime built, its context mode resolved.
    pub async fn conversation(
        &self,
        agent: AgentDefinition,
        session: Option<SessionHandle>,
        options: RunOptions,
    ) -> Result<(Conversation, Vec<McpError>), SessionError> {
        self.converse(agent, session, options, false).await
    }

    /// The main conversation (`agentctl chat`): the default model, with no agent file, in the
    /// session's `main` timeline, which shared agents read and isolated ones never see. Its
    /// tools are every tool the settings allow, `task` among them when there are agents to
    /// delegate to.
    pub async fn main_conversation(
        &self,
        session: Option<SessionHandle>,
        options: RunOptions,
    ) -> Result<(Conversation, Vec<McpError>), SessionError> {
        let agent = main_agent(self.shared.builder.settings());
        self.converse(agent, session, options, true).await
    }

    async fn converse(
        &self,
        agent: AgentDefinition,
        session: Option<SessionHandle>,
        options: RunOptions,
        main: bool,
    ) -> Result<(Conversation, Vec<McpError>), SessionError> {
        let Prepared {
            agent,
            runtime,
            warnings,
            builtin,
        } = self.shared.prepare(agent, session.as_ref(), None).await?;
        let root = self.shared.builder.root().to_path_buf();
        let conversation = Conversation::new(
            Arc::clone(&self.shared),
            (runtime, builtin),
            agent,
            session,
            options,
            root,
            main,
        )?;
        Ok((conversation, warnings))
    }

    /// Stops the MCP servers (and their process groups) and writes out buffered trace spans
    /// (an OpenTelemetry collector gets a bounded time to take them).
    pub async fn shutdown(&self) {
        self.shared.mcp.shutdown().await;
        let shared = Arc::clone(&self.shared);
        // The exporter blocks while it delivers: off the async workers.
        let _ = tokio::task::spawn_blocking(move || shared.tracing.shutdown()).await;
    }
}

/// Tracing by the settings, masking what the builder masks; warnings on stderr.
fn tracing(settings: &Settings, traces: Option<PathBuf>, builder: &RuntimeBuilder) -> Tracing {
    Tracing::new(
        settings.agents.tracing.clone(),
        traces,
        builder.secrets().clone(),
        stderr_warning(),
    )
}

fn stderr_warning() -> WarningFn {
    Arc::new(|message: String| eprintln!("warning: {message}"))
}
