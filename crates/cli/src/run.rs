//! `agentctl run NAME -p PROMPT`: runs an agent and renders its events.
//!
//! The raw flags are validated into a [`RunRequest`] (which agent or auto-routing, which
//! prompt source, which format); [`choose_agent`] names the agent; the
//! session runner (`agentctl-session`) finds the agent, opens the session, builds the runtime
//! and runs each turn; this module renders ([`render`]), asks approval questions on the
//! terminal ([`terminal`]) and runs the interactive session ([`repl`]).

mod graph;
mod render;
mod repl;
mod signals;
mod terminal;

use crate::args::{ApprovalArgs, ChatArgs, GlobalArgs, RunArgs, RunFormat, TurnArgs};
use agentctl_context::{SessionChoice, Source};
use agentctl_core::{AgentDefinition, ContextMode, RunError, RunOptions};
use agentctl_sandbox::SandboxStatus;
use agentctl_session::{Conversation, Project, Recording, RuntimeBuilder, SessionRunner};
use anyhow::Context as _;
use std::io::{IsTerminal, Read, Write as _};
use std::path::PathBuf;
use std::process::ExitCode;
use terminal::Frontend;

pub(crate) use graph::{load_graph, resume as resume_graph, run as run_graph};

/// Where the prompt comes from.
enum PromptSource {
    /// One run with this prompt.
    Once(String),
    /// An interactive session, optionally starting with a prompt.
    Interactive(Option<String>),
}

/// Which agent runs.
enum AgentChoice {
    /// The one named (NAME or `--agent NAME`).
    Named(String),
    /// The one the prompt's words route to (`--auto` or `agents.autoRoute`).
    Routed,
    /// The main conversation (`agentctl chat`): the default model, no agent file.
    Main,
}

/// `agentctl run` or `agentctl chat`, validated.
struct RunRequest {
    agent: AgentChoice,
    prompt: PromptSource,
    format: RunFormat,
    options: RunOptions,
    record: Option<PathBuf>,
    approvals: ApprovalArgs,
    session: SessionChoice,
    trace: bool,
}

impl RunRequest {
    /// Validates the flags of `run`; `auto_route` is the `agents.autoRoute` setting.
    fn from_args(args: RunArgs, auto_route: bool) -> anyhow::Result<Self> {
        let agent = match (args.agent.or(args.name), args.auto || auto_route) {
            (Some(name), _) => AgentChoice::Named(name),
            (None, true) => AgentChoice::Routed,
            (None, false) => anyhow::bail!(
                "no agent given: pass NAME, --agent NAME, or --auto to pick the agent by its \
                 triggers (or set agents.autoRoute to true); `agentctl chat` talks to the \
                 default model without an agent"
            ),
        };
        let context_mode = args.context.as_deref().map(|mode| match mode {
            "shared" => ContextMode::Shared,
            "run" => ContextMode::Run,
            _ => ContextMode::Isolated,
        });
        Self::new(agent, args.turn, context_mode)
    }

    /// Validates the flags of `chat`.
    fn from_chat(args: ChatArgs) -> anyhow::Result<Self> {
        Self::new(AgentChoice::Main, args.turn, None)
    }

    fn new(
        agent: AgentChoice,
        turn: TurnArgs,
        context_mode: Option<ContextMode>,
    ) -> anyhow::Result<Self> {
        let stdin_terminal = std::io::stdin().is_terminal();
        let prompt = match (turn.prompt, turn.interactive) {
            (prompt, true) => PromptSource::Interactive(prompt),
            (Some(prompt), false) => PromptSource::Once(prompt),
            (None, false) if stdin_terminal => PromptSource::Interactive(None),
            (None, false) => PromptSource::Once(read_stdin_prompt(
                "no prompt: pass -p PROMPT, pipe the prompt on stdin, or use --interactive on a terminal",
            )?),
        };
        if matches!(
            (&agent, &prompt),
            (AgentChoice::Routed, PromptSource::Interactive(None))
        ) {
            anyhow::bail!(
                "auto-routing needs a prompt to route: pass -p PROMPT, or name the agent"
            );
        }
        if matches!(prompt, PromptSource::Interactive(_)) && turn.format != RunFormat::Text {
            anyhow::bail!(
                "--format {} needs a prompt: pass -p PROMPT",
                turn.format.name()
            );
        }
        let options = RunOptions {
            stream: !turn.no_stream,
            max_turns: turn.max_turns,
            context_mode,
            model: turn.model,
            ..RunOptions::default()
        };
        Ok(Self {
            agent,
            prompt,
            format: turn.format,
            options,
            record: turn.record,
            approvals: turn.approvals,
            session: match (turn.session, turn.continue_session) {
                (Some(id), _) => SessionChoice::Resume(id),
                (None, true) => SessionChoice::Continue,
                (None, false) => SessionChoice::New,
            },
            trace: turn.trace,
        })
    }
}

/// Reads a piped prompt; an empty one is the error `missing`.
pub(crate) fn read_stdin_prompt(missing: &str) -> anyhow::Result<String> {
    let mut prompt = String::new();
    std::io::stdin()
        .read_to_string(&mut prompt)
        .context("cannot read the prompt from stdin")?;
    let prompt = prompt.trim();
    anyhow::ensure!(!prompt.is_empty(), "{missing}");
    Ok(prompt.to_owned())
}

/// Exit status of a run a guardrail rejected (documented in `run --help` and the README).
const GUARDRAIL_EXIT: u8 = 3;

/// How the invocation ended.
enum Ending {
    /// Every turn ran (in the REPL: the user left).
    Done,
    /// A run failed; the error is reported.
    Failed(RunError),
    /// A signal stopped the run; exit with 128 + its number.
    Signalled(i32),
    /// A turn's result could not be saved to the session.
    NotSaved(String),
}

/// Runs `agentctl run`.
pub(crate) fn run(global: &GlobalArgs, args: RunArgs) -> anyhow::Result<ExitCode> {
    let project = crate::context::load(global)?;
    let request = RunRequest::from_args(args, project.settings().agents.auto_route)?;
    execute(global, &project, request)
}

/// Runs `agentctl chat`.
pub(crate) fn chat(global: &GlobalArgs, args: ChatArgs) -> anyhow::Result<ExitCode> {
    let project = crate::context::load(global)?;
    anyhow::ensure!(
        args.turn.model.is_some() || project.settings().agents.default_model.is_some(),
        "the main conversation has no model: pass --model PROVIDER:MODEL (or an alias), or set \
         `agents.defaultModel` in the settings"
    );
    execute(global, &project, RunRequest::from_chat(args)?)
}

fn execute(
    global: &GlobalArgs,
    project: &Project,
    request: RunRequest,
) -> anyhow::Result<ExitCode> {
    let RunRequest {
        agent,
        prompt,
        format,
        options,
        record,
        approvals,
        session,
        trace,
    } = request;
    let (frontend, approver) = Frontend::new();
    let recording = record.as_ref().map(|_| Recording::new());
    let mut builder = RuntimeBuilder::new(project)
        .approvals(crate::approvals::choice(&approvals)?)
        .approver(approver);
    if let Some(recording) = &recording {
        builder = builder.record(recording.clone());
    }
    let runner = SessionRunner::new(project, builder).with_tracing(trace, None);
    let first_prompt = match &prompt {
        PromptSource::Once(prompt) => Some(prompt.as_str()),
        PromptSource::Interactive(first) => first.as_deref(),
    };
    let agent = choose_agent(&runner, &agent, first_prompt)?;
    if let Some(agent) = agent.as_ref().filter(|agent| agent.spec.graph.is_some()) {
        // A graph agent (seed 002: `debug-flow.md`) runs its graph.
        let PromptSource::Once(prompt) = prompt else {
            anyhow::bail!(
                "`{}` is a graph: it runs on one request, pass -p PROMPT",
                agent.name()
            );
        };
        let flags = graph::run_flags(&options, format, trace, approvals);
        return graph::run_graph_agent(global, agent, prompt, session, &flags);
    }
    match runner.sandbox_status() {
        SandboxStatus::Unavailable { reason } => warn(&format!(
            "commands run without a sandbox ({reason}); the approval prompt is the only defence"
        )),
        status if !status.gaps().is_empty() => warn(&format!("sandbox {status}")),
        _ => {}
    }
    // A project server whose files changed is asked about now, on a terminal.
    let starting = agent
        .clone()
        .unwrap_or_else(|| agentctl_session::main_agent(project.settings()));
    crate::trust_cmd::approve_changed_scripts(&runner, &starting)?;
    let mut session = runner.open_session(session, first_prompt)?;
    // Said before the run, not after its output.
    crate::output::report_tightened();
    if matches!(prompt, PromptSource::Interactive(_)) {
        session = session.map(|session| session.with_source(Source::REPL));
    }
    let tokio = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let ending = tokio.block_on(async {
        let opened = match agent {
            Some(agent) => runner.conversation(agent, session, options.clone()).await,
            None => runner.main_conversation(session, options.clone()).await,
        };
        let ending = match opened {
            Ok((mut conversation, warnings)) => {
                for warning in warnings {
                    warn(&crate::trust_cmd::mcp_warning(&warning));
                }
                let desk = repl::Desk {
                    runner: &runner,
                    frontend: &frontend,
                    options: &options,
                };
                converse(&desk, &mut conversation, prompt, format).await
            }
            Err(error) => Err(error.into()),
        };
        // Stop the MCP servers (and their process groups) whatever happened.
        runner.shutdown().await;
        ending
    });
    // A REPL left at its prompt still has a blocking stdin read in flight: do not wait for it.
    tokio.shutdown_background();
    if let (Some(recording), Some(path)) = (&recording, &record) {
        recording.save(path)?;
    }
    match ending? {
        Ending::Done => Ok(ExitCode::SUCCESS),
        Ending::Signalled(signal) => {
            crate::output::print_error(&anyhow::anyhow!("run cancelled"));
            Ok(ExitCode::from(
                u8::try_from(128 + signal).unwrap_or(u8::MAX),
            ))
        }
        Ending::Failed(RunError::Guardrail(violation)) => {
            crate::output::print_error(&anyhow::anyhow!(violation.to_string()));
            Ok(ExitCode::from(GUARDRAIL_EXIT))
        }
        // The message already names the cause: one line, without a `caused by` chain.
        Ending::Failed(error) => Err(anyhow::anyhow!(error.to_string())),
        Ending::NotSaved(error) => Err(anyhow::anyhow!("the session could not be saved: {error}")),
    }
}

/// The agent to run: the one named, or the one the (first) prompt routes to, announced on
/// stderr (see `agentctl route`); `None` for the main conversation.
fn choose_agent(
    runner: &SessionRunner,
    choice: &AgentChoice,
    prompt: Option<&str>,
) -> anyhow::Result<Option<AgentDefinition>> {
    match (choice, prompt) {
        (AgentChoice::Main, _) => Ok(None),
        (AgentChoice::Named(name), _) => crate::agents::require(runner, name).map(Some),
        (AgentChoice::Routed, Some(prompt)) => crate::route_cmd::pick(runner, prompt).map(Some),
        (AgentChoice::Routed, None) => anyhow::bail!("auto-routing needs a prompt: pass -p PROMPT"),
    }
}

/// Runs the prompt, or the interactive session, in the conversation.
async fn converse(
    desk: &repl::Desk<'_>,
    conversation: &mut Conversation,
    prompt: PromptSource,
    format: RunFormat,
) -> anyhow::Result<Ending> {
    match prompt {
        PromptSource::Once(prompt) => {
            if format == RunFormat::Text {
                render::note(&render::context_note(conversation));
            }
            render::run_once(conversation, &prompt, format, desk.frontend).await
        }
        PromptSource::Interactive(first) => repl::run(desk, conversation, first).await,
    }
}

/// A warning line on stderr.
pub(super) fn warn(message: &str) {
    let _ = writeln!(std::io::stderr().lock(), "warning: {message}");
}
