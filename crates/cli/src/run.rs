//! `agentctl run NAME -p PROMPT`: runs an agent and renders its events.
//!
//! The raw flags are validated into a [`RunRequest`] (which prompt source, which format), the
//! agent is found with the definitions crate, and the runtime does the work. Rendering lives in
//! [`render`], the interactive session in [`repl`].

mod conversation;
mod render;
mod repl;
mod session;
mod terminal;

use crate::approvals::{McpTools, agent_registry};
use crate::args::{ApprovalArgs, GlobalArgs, RunArgs, RunFormat};
use crate::context::CommandContext;
use agentctl_context::{Executor, ResourcePool, SessionChoice, TaskTool};
use agentctl_core::{AgentDefinition, ContextMode, ModelRef, Settings};
use agentctl_definitions::{Discovery, discover};
use agentctl_mcp::McpManager;
use agentctl_providers::{
    ModelProvider, ProviderError, ProviderOptions, RecordingProvider, build_provider,
};
use agentctl_runtime::{RunError, RunOptions, Runtime, ToolDecision, ToolFilter, ToolRegistry};
use agentctl_tools::Approver;
use anyhow::Context as _;
use conversation::Conversation;
use session::RunSession;
use std::io::{IsTerminal, Read};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Arc, Mutex, PoisonError};
use terminal::Frontend;

/// Exit status of a run cancelled with Ctrl-C (128 + SIGINT).
const EXIT_CANCELLED: u8 = 130;

/// Where the prompt comes from.
enum PromptSource {
    /// One run with this prompt.
    Once(String),
    /// An interactive session, optionally starting with a prompt.
    Interactive(Option<String>),
}

/// `agentctl run`, validated.
struct RunRequest {
    agent: String,
    prompt: PromptSource,
    format: RunFormat,
    options: RunOptions,
    record: Option<PathBuf>,
    approvals: ApprovalArgs,
    session: SessionChoice,
}

impl RunRequest {
    fn from_args(args: RunArgs) -> anyhow::Result<Self> {
        let stdin_terminal = std::io::stdin().is_terminal();
        let prompt = match (args.prompt, args.interactive) {
            (prompt, true) => PromptSource::Interactive(prompt),
            (Some(prompt), false) => PromptSource::Once(prompt),
            (None, false) if stdin_terminal => PromptSource::Interactive(None),
            (None, false) => PromptSource::Once(read_stdin_prompt()?),
        };
        if matches!(prompt, PromptSource::Interactive(_)) && args.format != RunFormat::Text {
            anyhow::bail!(
                "--format {} needs a prompt: pass -p PROMPT",
                args.format.name()
            );
        }
        let context_mode = args.context.as_deref().map(|mode| match mode {
            "shared" => ContextMode::Shared,
            "run" => ContextMode::Run,
            _ => ContextMode::Isolated,
        });
        let options = RunOptions {
            stream: !args.no_stream,
            max_turns: args.max_turns,
            context_mode,
            model: args.model,
            ..RunOptions::default()
        };
        Ok(Self {
            agent: args.name,
            prompt,
            format: args.format,
            options,
            record: args.record,
            approvals: args.approvals,
            session: match (args.session, args.continue_session) {
                (Some(id), _) => SessionChoice::Resume(id),
                (None, true) => SessionChoice::Continue,
                (None, false) => SessionChoice::New,
            },
        })
    }
}

/// Reads a piped prompt; an empty one is an error naming `-p`.
fn read_stdin_prompt() -> anyhow::Result<String> {
    let mut prompt = String::new();
    std::io::stdin()
        .read_to_string(&mut prompt)
        .context("cannot read the prompt from stdin")?;
    let prompt = prompt.trim();
    anyhow::ensure!(
        !prompt.is_empty(),
        "no prompt: pass -p PROMPT, pipe the prompt on stdin, or use --interactive on a terminal"
    );
    Ok(prompt.to_owned())
}

/// Runs `agentctl run`.
pub(crate) fn run(global: &GlobalArgs, args: RunArgs) -> anyhow::Result<ExitCode> {
    let request = RunRequest::from_args(args)?;
    let context = CommandContext::load(global)?;
    let discovery = discover(&context.locations);
    let agent = find_agent(&discovery, &request.agent)?;
    let root = match &context.locations.project_root {
        Some(root) => root.clone(),
        None => std::env::current_dir().context("cannot read the current directory")?,
    };
    let recorder = Arc::new(Mutex::new(None));
    let (frontend, approver) = Frontend::new();
    let settings = context.settings.settings.clone();
    let mcp = McpManager::from_settings(&settings, &root);
    let RunRequest {
        prompt,
        format,
        mut options,
        record,
        approvals,
        session,
        ..
    } = request;
    options.working_dir = Some(root.clone());
    let first_prompt = match &prompt {
        PromptSource::Once(prompt) => Some(prompt.as_str()),
        PromptSource::Interactive(first) => first.as_deref(),
    };
    let agents: Vec<AgentDefinition> = discovery
        .agents
        .iter()
        .map(|loaded| loaded.definition.clone())
        .collect();
    let session = RunSession::open(&context, session, first_prompt)?;
    let agent = if session.is_some() {
        with_agent_pool(agent, &agents)
    } else {
        agent
    };
    let session = session.map(|session| {
        let tasks = session.task_tool(agents);
        (session, tasks)
    });
    let tokio = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let outcome = tokio.block_on(async {
        let mut tools = agent_registry(&mcp, &agent, McpTools::Allowed).await;
        if let Some((_, tasks)) = &session {
            tools.register_typed(tasks.clone());
        }
        let recording = record.is_some().then_some(&recorder);
        let outcome = match build_runtime(settings, &approvals, &root, recording, approver, tools) {
            Err(error) => Err(error),
            Ok(runtime) => {
                converse(
                    &runtime, &agent, options, session, root, frontend, prompt, format,
                )
                .await
            }
        };
        // Stop the MCP servers (and their process groups) whatever happened.
        mcp.shutdown().await;
        outcome
    });
    // A REPL left at its prompt still has a blocking stdin read in flight: do not wait for it.
    tokio.shutdown_background();
    if let Some(path) = &record {
        save_recording(&recorder, path)?;
    }
    match outcome? {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(RunError::Cancelled) => {
            crate::output::print_error(&anyhow::anyhow!("run cancelled"));
            Ok(ExitCode::from(EXIT_CANCELLED))
        }
        // The message already names the cause: one line, without a `caused by` chain.
        Err(error) => Err(anyhow::anyhow!(error.to_string())),
    }
}

/// Runs the prompt, or the interactive session, in the agent's conversation.
#[expect(
    clippy::too_many_arguments,
    reason = "the parts of one invocation, used once"
)]
async fn converse(
    runtime: &Runtime,
    agent: &AgentDefinition,
    options: RunOptions,
    session: Option<(RunSession, TaskTool)>,
    root: PathBuf,
    frontend: Frontend,
    prompt: PromptSource,
    format: RunFormat,
) -> anyhow::Result<Result<(), RunError>> {
    let mut conversation = Conversation::new(runtime, agent, options, session, root, frontend)?;
    match prompt {
        PromptSource::Once(prompt) => render::run_once(&mut conversation, &prompt, format).await,
        PromptSource::Interactive(first) => repl::run(&mut conversation, agent.name(), first).await,
    }
}

/// An agent that may delegate with `task` gets the pool of agents it can delegate to (their
/// status and the capabilities their tools give them) at the end of its system prompt.
fn with_agent_pool(mut agent: AgentDefinition, agents: &[AgentDefinition]) -> AgentDefinition {
    let delegates = ToolFilter::new(&agent.spec.tools)
        .is_ok_and(|filter| filter.decide(TaskTool::NAME) == ToolDecision::Allow);
    if !delegates {
        return agent;
    }
    let executors = agents
        .iter()
        .filter(|other| other.name() != agent.name())
        .map(|other| {
            let tools = other
                .spec
                .tools
                .allow
                .clone()
                .unwrap_or_else(|| vec!["*".into()]);
            Executor::new(other.name(), tools)
        })
        .collect();
    let pool = ResourcePool::new(executors).build_agent_context(None);
    agent.system_prompt = format!(
        "{}\n\n# Delegation\n\nThe `task` tool hands a goal to one of these agents (its `agent` argument), \
or to a copy of yourself when none fits.\n\n{}",
        agent.system_prompt.trim_end(),
        pool.render_markdown()
    );
    agent
}

/// The effective agent called `name`, or an error naming close matches.
fn find_agent(discovery: &Discovery, name: &str) -> anyhow::Result<AgentDefinition> {
    crate::agents::find(discovery, name).map(|agent| agent.definition.clone())
}

type RecorderSlot = Arc<Mutex<Option<Arc<RecordingProvider>>>>;

/// The runtime with the providers crate's factory (wrapped in a recorder for `--record`), the
/// agent's tools (built-in ones are confined to the project root through the run's working
/// directory) and the approval gate of the settings and flags.
fn build_runtime(
    settings: Settings,
    approvals: &ApprovalArgs,
    root: &Path,
    recorder: Option<&RecorderSlot>,
    approver: Arc<dyn Approver>,
    tools: ToolRegistry,
) -> anyhow::Result<Runtime> {
    let gate = crate::approvals::gate(&settings, approvals, approver)?;
    let options = ProviderOptions {
        working_dir: Some(root.to_path_buf()),
        ..ProviderOptions::default()
    };
    let recorder = recorder.map(Arc::clone);
    let factory = move |model: &ModelRef,
                        settings: &Settings|
          -> Result<Arc<dyn ModelProvider>, ProviderError> {
        let provider = build_provider(model, settings, &options)?;
        let Some(recorder) = &recorder else {
            return Ok(provider);
        };
        let recording = Arc::new(RecordingProvider::new(provider));
        *recorder.lock().unwrap_or_else(PoisonError::into_inner) = Some(Arc::clone(&recording));
        Ok(recording)
    };
    Ok(Runtime::new(settings, factory, tools).with_gate(Arc::new(gate)))
}

fn save_recording(recorder: &RecorderSlot, path: &Path) -> anyhow::Result<()> {
    let recording = recorder
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clone();
    let Some(recording) = recording else {
        anyhow::bail!(
            "--record {}: no model call was made, nothing to save",
            path.display()
        );
    };
    recording
        .save(path)
        .with_context(|| format!("cannot save the cassette {}", path.display()))
}
