//! [`SessionBuilder`]: a session from a [`Project`] (the CLI) or from agents defined in code,
//! with who answers its approval questions, which session of the store it records into (or none), its
//! tracing and its runtime's parts.

use super::Session;
use super::approvals::{Desk, Questions};
use super::code::Agent;
use super::state::{Approvals, Conversation, Engine, Hub, Store, Tools, Turns};
use super::writer::StoreWriter;
use crate::builder::{ApprovalChoice, Recording, RuntimeBuilder};
use crate::current::CurrentSession;
use crate::error::SessionError;
use crate::plan::PlanTools;
use crate::project::Project;
use crate::session::SessionHandle;
use crate::shared::Shared;
use crate::task::TaskTool;
use crate::toolset::builtin_tool_set;
use agentctl_core::{AgentDefinition, PlanItem, Settings, Tool, ToolRegistry};
use agentctl_store::{SessionChoice, SessionStore, Source, StateLog};
use agentctl_trace::WarningFn;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use tokio::sync::mpsc;

/// Where the session's agents come from.
enum Origin<'p> {
    /// A project: its agent files, settings, MCP servers and store.
    Project(&'p Project),
    /// Agents defined in code, with these settings, tools confined to `root`.
    Code {
        agents: Vec<AgentDefinition>,
        settings: Box<Settings>,
        root: Option<PathBuf>,
    },
}

/// Builds a [`Session`].
///
/// ```no_run
/// # async fn demo() -> Result<(), agentctl_session::SessionError> {
/// use agentctl_session::{Questions, Project, Session};
///
/// let project = Project::load(None)?;
/// let session = Session::from_project(&project)
///     .questions(Questions::Ask)
///     .build()
///     .await?;
/// let result = session.ask_agent("code-reviewer", "Review src/stats.py").await?;
/// println!("{}", result.text);
/// # Ok(()) }
/// ```
#[must_use = "a builder does nothing until built"]
pub struct SessionBuilder<'p> {
    origin: Origin<'p>,
    runtime: Option<RuntimeBuilder>,
    /// Offered to every agent (their allow lists apply).
    tools: Vec<Arc<dyn Tool>>,
    /// The tools agents defined in code bring, each offered to its own agent only.
    own_tools: HashMap<String, Vec<Arc<dyn Tool>>>,
    approvals: Option<ApprovalChoice>,
    recording: Option<Recording>,
    questions: Questions,
    choice: SessionChoice,
    title: Option<String>,
    source: Option<Source>,
    /// Whether the opened session becomes the project's current one.
    becomes_current: bool,
    store: Option<Arc<dyn SessionStore>>,
    tracing: Option<(bool, Option<WarningFn>)>,
    active: Option<String>,
}

impl std::fmt::Debug for SessionBuilder<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionBuilder")
            .field("questions", &self.questions)
            .field("choice", &self.choice)
            .finish_non_exhaustive()
    }
}

impl<'p> SessionBuilder<'p> {
    fn new(origin: Origin<'p>) -> Self {
        Self {
            origin,
            runtime: None,
            tools: Vec::new(),
            own_tools: HashMap::new(),
            approvals: None,
            recording: None,
            questions: Questions::default(),
            choice: SessionChoice::New,
            title: None,
            source: None,
            becomes_current: true,
            store: None,
            tracing: None,
            active: None,
        }
    }

    /// A session of `project`'s agents, recorded in its store (unless the settings turn
    /// persistence off and no session is asked for).
    pub fn from_project(project: &'p Project) -> Self {
        Self::new(Origin::Project(project))
    }

    /// A session of agents defined in code: default settings, tools confined to the current
    /// folder, nothing recorded (see [`store`](Self::store)).
    pub fn from_code() -> Self {
        Self::new(Origin::Code {
            agents: Vec::new(),
            settings: Box::default(),
            root: None,
        })
    }

    /// Adds an agent defined in code, with the tools it brings (offered to it alone). The
    /// first agent added is the one [`Session::ask`] talks to. A session of a project runs the
    /// project's agent files: there, agents added here are ignored.
    pub fn agent(mut self, agent: impl Into<Agent>) -> Self {
        let agent = agent.into();
        if let Origin::Code { agents, .. } = &mut self.origin {
            if agents.is_empty() && self.active.is_none() {
                self.active = Some(agent.definition.name().to_owned());
            }
            let (definition, tools) = agent.into_parts();
            self.own_tools
                .entry(definition.name().to_owned())
                .or_default()
                .extend(tools);
            agents.push(definition);
        }
        self
    }

    /// The settings of agents defined in code (a project's come from its files).
    pub fn settings(mut self, value: Settings) -> Self {
        if let Origin::Code { settings, .. } = &mut self.origin {
            **settings = value;
        }
        self
    }

    /// The folder the tools of agents defined in code work in (default: the current one).
    pub fn root(mut self, dir: impl Into<PathBuf>) -> Self {
        if let Origin::Code { root, .. } = &mut self.origin {
            *root = Some(dir.into());
        }
        self
    }

    /// Offers `tool` to every agent whose allow list lets it through.
    pub fn tool(mut self, tool: Arc<dyn Tool>) -> Self {
        self.tools.push(tool);
        self
    }

    /// The runtime's parts (providers, validators, secrets) from `builder` instead of the
    /// project's or the settings' defaults.
    pub fn runtime(mut self, builder: RuntimeBuilder) -> Self {
        self.runtime = Some(builder);
        self
    }

    /// The levels approved without asking, over the settings' (`--approve`, `--yes`).
    pub fn approvals(mut self, approvals: ApprovalChoice) -> Self {
        self.approvals = Some(approvals);
        self
    }

    /// Who answers what the levels leave to a person (default: nobody — refused at once).
    pub fn questions(mut self, questions: Questions) -> Self {
        self.questions = questions;
        self
    }

    /// Records every model call into `recording` (`--record`).
    pub fn record(mut self, recording: Recording) -> Self {
        self.recording = Some(recording);
        self
    }

    /// Which session of the store: a new one (default), `--continue`, or by id.
    pub fn session(mut self, choice: SessionChoice) -> Self {
        self.choice = choice;
        self
    }

    /// A new session is titled with the first line of `prompt`, shortened.
    pub fn title_from(mut self, prompt: impl Into<String>) -> Self {
        self.title = Some(prompt.into());
        self
    }

    /// The session does not become the project's current one, which the next conversation
    /// that names no session continues: for server front ends (`mcp serve`), whose sessions
    /// are their clients'.
    pub fn detached(mut self) -> Self {
        self.becomes_current = false;
        self
    }

    /// Runs are recorded as coming from `source` (`repl`, `mcp`…; `cli` by default).
    pub fn source(mut self, source: Source) -> Self {
        self.source = Some(source);
        self
    }

    /// Records into `store` (agents defined in code; a project has its own store).
    pub fn store(mut self, store: Arc<dyn SessionStore>) -> Self {
        self.store = Some(store);
        self
    }

    /// Traces every turn, printed on the console when `console` (`--trace`); tracing trouble
    /// goes to `warn` instead of stderr.
    pub fn tracing(mut self, console: bool, warn: Option<WarningFn>) -> Self {
        self.tracing = Some((console, warn));
        self
    }

    /// The agent [`Target::Active`](crate::Target::Active) turns go to first (default: the
    /// first agent defined in code, else the main conversation).
    pub fn active(mut self, agent: impl Into<String>) -> Self {
        self.active = Some(agent.into());
        self
    }

    /// Builds the session: opens the store and starts its store thread, which opens the
    /// session (creating it if needed) while the caller's task waits — a slow or busy store
    /// holds no async worker. Call it inside a tokio runtime: the session's turns run there.
    pub async fn build(self) -> Result<Session, SessionError> {
        let handle =
            tokio::runtime::Handle::try_current().map_err(|_| SessionError::NoAsyncRuntime)?;
        let mut shared = self.shared()?;
        shared.own_tools = self.own_tools;
        if let Some((console, warn)) = self.tracing {
            shared.trace_with(console, warn);
        }
        let opening = Opening {
            choice: self.choice,
            title: self.title.as_deref(),
            becomes_current: self.becomes_current,
            source: self.source,
        };
        let opened = open(&shared, self.store, opening).await?;
        // The gate knows the folders the file tools may write for each agent (memory folders).
        let gate = Arc::new(
            shared
                .builder
                .gate()?
                .with_grants(shared.builtin.read_grants().clone()),
        );
        let runtime = shared.builder.runtime(ToolRegistry::new(), gate.clone());
        let (store, plan) = Opened::recorded(opened);
        let task = store.as_ref().map(|store| {
            TaskTool::new(
                store.session.dyn_store(),
                store.session.id(),
                shared.agents.clone(),
            )
            .with_orchestrator_note(shared.settings.orchestrator_note.clone())
            .with_plan(plan.clone())
            .with_writer(store.writer.clone())
        });
        let (sender, receiver) = mpsc::unbounded_channel();
        let engine = Engine {
            runtime,
            approvals: Approvals {
                gate,
                desk: Arc::new(Desk::default()),
            },
            store,
            tools: Tools {
                builtin: builtin_tool_set(&shared.builtin),
                task,
                plan,
                kits: Default::default(),
            },
            conversation: Conversation {
                active: Mutex::new(self.active),
                memory: Mutex::new(HashMap::new()),
                modes: Mutex::new(HashMap::new()),
            },
            turns: Turns::default(),
            hub: Hub {
                sender,
                receiver: Mutex::new(Some(receiver)),
            },
            hooks: Arc::new(shared.hook_runner()),
            handle,
            shared,
            starting: Mutex::default(),
        };
        let session = Session::of(engine);
        session.auto_start_servers();
        Ok(session)
    }

    /// The setup: the project's or the code's agents, the runtime builder with the choices
    /// made here.
    fn shared(&self) -> Result<Shared, SessionError> {
        let finish = |mut builder: RuntimeBuilder| {
            builder = builder.asking(self.questions == Questions::Ask);
            if let Some(approvals) = &self.approvals {
                builder = builder.approvals(approvals.clone());
            }
            if let Some(recording) = &self.recording {
                builder = builder.record(recording.clone());
            }
            for tool in &self.tools {
                builder = builder.tool(Arc::clone(tool));
            }
            builder
        };
        Ok(match &self.origin {
            Origin::Project(project) => {
                let builder = self
                    .runtime
                    .clone()
                    .unwrap_or_else(|| RuntimeBuilder::new(project));
                Shared::of_project(project, finish(builder))
            }
            Origin::Code {
                agents,
                settings,
                root,
            } => {
                let builder = match &self.runtime {
                    Some(builder) => builder.clone(),
                    None => {
                        let root = match root {
                            Some(root) => root.clone(),
                            None => std::env::current_dir().map_err(SessionError::CurrentDir)?,
                        };
                        RuntimeBuilder::with_settings(Settings::clone(settings), &root)
                    }
                };
                Shared::of_agents(finish(builder), agents.clone())
            }
        })
    }
}

/// What [`open`] is asked for.
struct Opening<'a> {
    choice: SessionChoice,
    title: Option<&'a str>,
    becomes_current: bool,
    /// Where the session's runs come from, when not the default.
    source: Option<Source>,
}

/// A session opened on its store thread.
struct Opened {
    session: SessionHandle,
    writer: StoreWriter,
    /// The plan the session's state holds (a resumed session keeps its plan).
    plan: Vec<PlanItem>,
}

impl Opened {
    /// What the engine records into, and the session's plan (kept in memory without a store).
    fn recorded(opened: Option<Self>) -> (Option<Store>, PlanTools) {
        match opened {
            Some(Opened {
                session,
                writer,
                plan,
            }) => {
                let log: Arc<dyn StateLog> = session.dyn_store();
                let plan = PlanTools::new(Some((log, session.id().to_owned())), plan);
                (Some(Store { writer, session }), plan)
            }
            None => (None, PlanTools::new(None, Vec::new())),
        }
    }
}

/// Opens the chosen session: of the explicit store, else of the project's store; `None` when
/// there is no store, or the settings turn persistence off and no session was asked for. In a
/// project's store, [`SessionChoice::Current`] is the session its pointer names (see
/// [`CurrentSession`]), and the opened session becomes current unless detached. The session is
/// opened (created, resumed, its plan read) on the store's thread.
async fn open(
    shared: &Shared,
    explicit: Option<Arc<dyn SessionStore>>,
    opening: Opening<'_>,
) -> Result<Option<Opened>, SessionError> {
    let Opening {
        mut choice,
        title,
        becomes_current,
        source,
    } = opening;
    let mut current = None;
    let store = match (explicit, &shared.store) {
        (Some(store), _) => store,
        (None, Some(spec)) => {
            let unnamed = matches!(choice, SessionChoice::New | SessionChoice::Current);
            if !shared.settings.context_persistence && unnamed {
                return Ok(None);
            }
            let store = spec.open(shared.builder.secrets(), shared.builder.tightened_files())?;
            current = shared.store_path.as_deref().map(CurrentSession::beside);
            store
        }
        (None, None) => return Ok(None),
    };
    let writer = StoreWriter::start(store.clone())?;
    let (title, settings) = (title.map(str::to_owned), shared.settings.clone());
    let continue_session = settings.continue_session;
    let (session, plan) = writer
        .call(move |_| -> Result<_, SessionError> {
            if let Some(pointer) = &current
                && choice == SessionChoice::Current
                && continue_session
            {
                choice = pointer.resolve(store.as_ref())?;
            }
            let created = matches!(choice, SessionChoice::New | SessionChoice::NewTitled(_));
            let handle = SessionHandle::open(store, choice, title.as_deref(), settings)?;
            if let Some(pointer) = current.filter(|_| becomes_current) {
                pointer.set(handle.id());
            }
            // A session made just now has no state to read.
            let plan = if created {
                Vec::new()
            } else {
                PlanTools::saved(handle.store().as_ref(), handle.id())
            };
            Ok((handle, plan))
        })
        .await?;
    let session = match source {
        Some(source) => session.with_source(source),
        None => session,
    };
    Ok(Some(Opened {
        session,
        writer,
        plan,
    }))
}
