//! What a session is set up with, for its whole life: the runtime builder (settings, root,
//! providers, the embedder's tools and validators), the built-in tools' configuration, the
//! agents found, the MCP servers, the store, the tracing backends and the router.

use crate::builder::RuntimeBuilder;
use crate::checks::semantic_checks;
use crate::error::{GraphError, SessionError};
use crate::hooks::{HookRunner, HookSet, HookWarning};
use crate::memory_folder::MemoryPlaces;
use crate::project::Project;
use crate::secrets::{env_policy_of, mcp_manager_of, secrets_of};
use crate::store_location::{DATABASE_URL_VAR, StoreSpec};
use agentctl_core::GraphSpec;
use agentctl_core::{AgentDefinition, AgentsSettings, Settings, Tool};
use agentctl_definitions::{Discovery, SkillSet};
use agentctl_mcp::McpManager;
use agentctl_routing::{Graph, RouteDecision, Router};
use agentctl_tools::BuiltinToolsConfig;
use agentctl_trace::{Tracing, WarningFn};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

/// What a session is set up with.
pub(crate) struct Shared {
    pub(crate) builder: RuntimeBuilder,
    pub(crate) builtin: BuiltinToolsConfig,
    pub(crate) discovery: Discovery,
    pub(crate) agents: Vec<AgentDefinition>,
    pub(crate) mcp: McpManager,
    /// Where the embedded session store is (traces and long-term memory live beside it,
    /// whichever store holds the sessions); `None` for agents defined in code without a
    /// project.
    pub(crate) store_path: Option<PathBuf>,
    /// The session store; `None` for agents defined in code without a project.
    pub(crate) store: Option<StoreSpec>,
    pub(crate) settings: AgentsSettings,
    /// The tracing backends and the decision, per turn, whether it is traced.
    pub(crate) tracing: Tracing,
    /// The tools agents defined in code bring, by agent: each offered to its agent alone.
    pub(crate) own_tools: HashMap<String, Vec<Arc<dyn Tool>>>,
    /// The skills found (none for agents defined in code).
    pub(crate) skills: SkillSet,
    /// Whether commands the project declares (hooks of its agent files) may run: the user
    /// trusts the project. Agents defined in code have no project to distrust.
    pub(crate) project_trusted: bool,
    /// Where agents' memory folders are (`memory: project`).
    pub(crate) memory_places: MemoryPlaces,
    /// The project instructions' prompt section, which every agent's prompt ends with unless
    /// its file says `instructions: none`.
    pub(crate) instructions: Option<String>,
    /// What loading the instructions met, reported once per session (taken when reported).
    pub(crate) instruction_warnings: std::sync::Mutex<Vec<crate::instructions::InstructionWarning>>,
    /// The hooks of the plugins whose code may run (enabled, and approved for a project's).
    plugin_hooks: (HookSet, Vec<HookWarning>),
    /// Built on first use: a turn that names its agent never pays for it.
    router: OnceLock<Router>,
    /// The graphs compiled so far, by graph agent, with the declaration each was compiled
    /// from: a graph is checked and its conditions compiled once, not on every run.
    graphs: std::sync::Mutex<HashMap<String, (GraphSpec, Arc<Graph>)>>,
}

impl Shared {
    /// The setup of `project`'s agents, building runtimes with `builder`. Finds the agents
    /// now; starts MCP servers only when an agent that names them runs.
    pub(crate) fn of_project(project: &Project, builder: RuntimeBuilder) -> Self {
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
        let instructions = project.instructions();
        Self {
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
            own_tools: HashMap::new(),
            skills: project.skills(),
            project_trusted: project.trusts_own_commands(),
            memory_places: MemoryPlaces {
                project_root: project.locations.project_root.clone(),
                user_home: project.locations.user_home.clone(),
                project_trusted: project.trusts_own_commands(),
            },
            instructions: instructions.prompt_section(),
            instruction_warnings: std::sync::Mutex::new(instructions.warnings),
            plugin_hooks: plugin_hooks(project),
            router: OnceLock::new(),
            graphs: std::sync::Mutex::default(),
        }
    }

    /// The setup of agents defined in code, without a project on disk: settings and root come
    /// from `builder`, and there is no project store. Handoffs between these agents work as
    /// between agent files.
    pub(crate) fn of_agents(builder: RuntimeBuilder, agents: Vec<AgentDefinition>) -> Self {
        let discovery = Discovery::from_definitions(agents, &semantic_checks());
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
        let memory_places = MemoryPlaces {
            project_root: Some(builder.root().to_path_buf()),
            user_home: std::env::var_os("HOME").map(PathBuf::from),
            project_trusted: true,
        };
        Self {
            builtin: BuiltinToolsConfig::from_settings(&settings).with_env(env),
            builder,
            discovery,
            agents,
            mcp,
            store_path: None,
            store: None,
            settings: settings.agents,
            tracing,
            own_tools: HashMap::new(),
            skills: SkillSet::default(),
            project_trusted: true,
            memory_places,
            instructions: None,
            instruction_warnings: std::sync::Mutex::default(),
            plugin_hooks: Default::default(),
            router: OnceLock::new(),
            graphs: std::sync::Mutex::default(),
        }
    }

    /// Where and how the settings' hooks run: the settings' `hooks` (a project's held back
    /// by the loader until it is trusted), the `bash` tool's sandbox and environment policy,
    /// the project root.
    pub(crate) fn hook_runner(&self) -> HookRunner {
        hook_runner(
            &self.builder,
            self.plugin_hooks.clone(),
            self.project_trusted,
        )
    }

    /// Traces every turn and prints it on the console (`--trace`) when `console`, and reports
    /// tracing trouble through `warn` instead of stderr.
    pub(crate) fn trace_with(&mut self, console: bool, warn: Option<WarningFn>) {
        let settings = self.settings.tracing.clone();
        let traces = self
            .store_path
            .as_ref()
            .and_then(|path| path.parent())
            .map(|dir| dir.join("traces"));
        let warn = warn.unwrap_or_else(stderr_warning);
        self.tracing = Tracing::new(settings, traces, self.builder.secrets().clone(), warn)
            .force_console(console);
    }

    /// The graph of graph agent `agent`, compiled once per declaration
    /// ([`crate::graph_run::compile`]).
    pub(crate) fn graph(&self, agent: &AgentDefinition) -> Result<Arc<Graph>, GraphError> {
        let Some(spec) = &agent.spec.graph else {
            return crate::graph_run::compile(agent).map(Arc::new);
        };
        let cached = self.graphs.lock().ok().and_then(|graphs| {
            graphs
                .get(agent.name())
                .filter(|(compiled_from, _)| compiled_from == spec)
                .map(|(_, graph)| Arc::clone(graph))
        });
        if let Some(graph) = cached {
            return Ok(graph);
        }
        let graph = Arc::new(crate::graph_run::compile(agent)?);
        if let Ok(mut graphs) = self.graphs.lock() {
            graphs.insert(agent.name().to_owned(), (spec.clone(), Arc::clone(&graph)));
        }
        Ok(graph)
    }

    pub(crate) fn require_agent(&self, name: &str) -> Result<AgentDefinition, SessionError> {
        Ok(self.discovery.require(name)?.definition.clone())
    }

    /// Handoffs one turn may make.
    pub(crate) fn max_handoffs(&self) -> u32 {
        self.settings.max_handoffs
    }

    /// Graph branches that run at once (`agents.maxParallel`, at least 1).
    pub(crate) fn max_parallel(&self) -> usize {
        usize::try_from(self.settings.max_parallel.max(1)).unwrap_or(1)
    }

    /// The router over the runnable agents' triggers.
    pub(crate) fn router(&self) -> &Router {
        self.router.get_or_init(|| Router::new(&self.agents))
    }

    /// What auto-routing does with `prompt`: the best match, else the `agents.defaultAgent`
    /// setting as a fallback, else none.
    pub(crate) fn route(&self, prompt: &str) -> RouteDecision {
        self.router()
            .decide(prompt, self.settings.default_agent.as_deref())
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

/// Where and how the hooks of `project`'s sessions run outside a session (`sessions
/// compact`): as [`Shared::hook_runner`] does for a session of it.
pub(crate) fn project_hook_runner(project: &Project, builder: &RuntimeBuilder) -> HookRunner {
    hook_runner(
        builder,
        plugin_hooks(project),
        project.trusts_own_commands(),
    )
}

fn hook_runner(
    builder: &RuntimeBuilder,
    plugins: (HookSet, Vec<HookWarning>),
    project_trusted: bool,
) -> HookRunner {
    let (mut settings, mut warnings) = settings_hooks(builder.settings());
    settings.extend(plugins.0);
    warnings.extend(plugins.1);
    HookRunner {
        settings,
        warnings,
        told: std::sync::atomic::AtomicBool::new(false),
        started: std::sync::atomic::AtomicBool::new(false),
        environment: builder.command_environment(),
        root: builder.root().to_path_buf(),
        project_trusted,
    }
}

/// The hooks of `project`'s plugins whose code may run, each loaded with its file.
fn plugin_hooks(project: &Project) -> (HookSet, Vec<HookWarning>) {
    let mut set = HookSet::default();
    let mut warnings = Vec::new();
    for hooks in project.plugin_hooks().0 {
        let origin = format!("plugin {} ({})", hooks.plugin, hooks.file.display());
        let (loaded, mut more) = HookSet::load(&hooks.events(), &origin);
        set.extend(loaded.reading(&hooks.root));
        warnings.append(&mut more);
    }
    (set, warnings)
}

/// The settings' hooks, each group loaded with the file it came from.
fn settings_hooks(settings: &Settings) -> (HookSet, Vec<HookWarning>) {
    let mut set = HookSet::default();
    let mut warnings = Vec::new();
    for (event, groups) in &settings.hooks {
        let origins = settings.hook_origins.get(event);
        let Some(groups) = groups.as_array() else {
            let value = serde_json::json!({ event: groups });
            warnings.extend(HookSet::load(&value, "settings").1);
            continue;
        };
        for (index, group) in groups.iter().enumerate() {
            let origin = origins
                .and_then(|origins| origins.get(index))
                .map_or("settings", String::as_str);
            let (loaded, mut more) = HookSet::load(&serde_json::json!({ event: [group] }), origin);
            set.extend(loaded);
            warnings.append(&mut more);
        }
    }
    (set, warnings)
}
