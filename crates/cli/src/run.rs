//! `agentctl run NAME -p PROMPT` and `agentctl chat`: a turn (or an interactive session) of the
//! session engine, rendered.
//!
//! The raw flags are validated into a [`RunRequest`] (which agent or auto-routing, which
//! prompt source, which format); the session (`agentctl-session`) decides what runs — an
//! agent, a graph, the main conversation — follows handoffs and asks its questions as events;
//! this module chooses the target, submits the turn ([`crate::drive`] renders it and answers
//! its questions from the terminal) and runs the interactive session ([`repl`]). `graph run` and `graph resume`
//! drive their turns the same way ([`crate::drive`]).

mod commands;
mod repl;

use crate::args::{ApprovalArgs, ChatArgs, GlobalArgs, RunArgs, RunFormat, TurnArgs};
use crate::drive::{Desk, Ending, Invocation, once};
use agentctl_core::ContextMode;
use agentctl_session::store::{SessionChoice, Source};
use agentctl_session::{Op, Project, Recording, Target, TurnOptions};
use anyhow::Context as _;
use std::io::{IsTerminal, Read};
use std::path::PathBuf;
use std::process::ExitCode;

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
    options: TurnOptions,
    record: Option<PathBuf>,
    approvals: ApprovalArgs,
    session: SessionChoice,
    trace: bool,
    /// The custom command to run (`--command`), its arguments being the prompt.
    command: Option<String>,
}

impl RunRequest {
    /// Validates the flags of `run`; `auto_route` is the `agents.autoRoute` setting.
    fn from_args(args: RunArgs, auto_route: bool) -> anyhow::Result<Self> {
        if let Some(command) = args.command.clone() {
            return Self::from_command(command, args);
        }
        let agent = match (args.agent.or(args.name), args.auto || auto_route) {
            (Some(name), _) => AgentChoice::Named(name),
            (None, true) => AgentChoice::Routed,
            (None, false) => anyhow::bail!(
                "no agent given: pass NAME, --agent NAME, or --auto to pick the agent by its \
                 triggers (or set agents.autoRoute to true); `agentctl chat` talks to the \
                 default model without an agent"
            ),
        };
        let mut turn = args.turn;
        if !args.words.is_empty() {
            // clap refuses PROMPT with -p: one of them gives the prompt.
            turn.prompt = Some(args.words.join(" "));
        }
        Self::new(agent, turn, args.context.map(ContextMode::from))
    }

    /// Validates the flags of `run [AGENT] --command NAME -- ARGS`: the words after `--` are
    /// the command's arguments; the main conversation runs it unless an agent is named or
    /// `--auto` picks one.
    fn from_command(command: String, args: RunArgs) -> anyhow::Result<Self> {
        let agent = match (args.agent.or(args.name), args.auto) {
            (Some(name), _) => AgentChoice::Named(name),
            (None, true) => AgentChoice::Routed,
            (None, false) => AgentChoice::Main,
        };
        let mut turn = args.turn;
        anyhow::ensure!(
            !turn.interactive,
            "--command runs one turn: leave out --interactive, or type /{command} in the session"
        );
        turn.prompt = Some(args.args.join(" "));
        let mut request = Self::new(agent, turn, args.context.map(ContextMode::from))?;
        request.command = Some(command);
        Ok(request)
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
        let mut options = TurnOptions::new().stream(!turn.no_stream);
        options.max_turns = turn.max_turns;
        options.token_budget = turn.max_tokens;
        options.cost_budget = turn.max_cost;
        options.temperature = turn.temperature;
        options.effort = turn.effort;
        options.context_mode = context_mode;
        options.model = turn.model;
        Ok(Self {
            agent,
            prompt,
            format: turn.format,
            options,
            record: turn.record,
            approvals: turn.approvals,
            session: match (turn.session, turn.continue_session, turn.new_session) {
                (Some(id), _, _) => SessionChoice::Resume(id),
                (None, true, _) => SessionChoice::Continue,
                (None, false, true) => SessionChoice::New,
                (None, false, false) => SessionChoice::Current,
            },
            trace: turn.trace,
            command: None,
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

/// Runs `agentctl run`.
pub(crate) fn run(global: &GlobalArgs, args: RunArgs) -> anyhow::Result<ExitCode> {
    let project = crate::context::load(global)?;
    let mut request = RunRequest::from_args(args, project.settings().agents.auto_route)?;
    if let (Some(name), PromptSource::Once(args)) = (request.command.take(), &request.prompt) {
        let main = matches!(request.agent, AgentChoice::Main);
        let options = std::mem::take(&mut request.options);
        let (prompt, options) = crate::custom_cmd::turn(&project, &name, args, options, main)?;
        request.prompt = PromptSource::Once(prompt);
        request.options = options;
    }
    execute(&project, request)
}

/// Runs `agentctl chat`.
pub(crate) fn chat(global: &GlobalArgs, args: ChatArgs) -> anyhow::Result<ExitCode> {
    let project = crate::context::load(global)?;
    anyhow::ensure!(
        args.turn.model.is_some() || project.settings().agents.default_model.is_some(),
        "the main conversation has no model: pass --model PROVIDER:MODEL (or an alias), or set \
         `agents.defaultModel` in the settings"
    );
    execute(&project, RunRequest::from_chat(args)?)
}

fn execute(project: &Project, request: RunRequest) -> anyhow::Result<ExitCode> {
    let RunRequest {
        agent,
        prompt,
        format,
        options,
        record,
        approvals,
        session,
        trace,
        command: _,
    } = request;
    let recording = record.as_ref().map(|_| Recording::new());
    let (title, interactive) = match &prompt {
        PromptSource::Once(prompt) => (Some(prompt.clone()), false),
        PromptSource::Interactive(first) => (first.clone(), true),
    };
    let invocation = Invocation {
        project,
        approvals: &approvals,
        session,
        title: title.as_deref(),
        source: interactive.then_some(Source::REPL),
        trace,
        recording: recording.clone(),
        active: match &agent {
            AgentChoice::Named(name) => Some(name.clone()),
            _ => None,
        },
    };
    let ending = crate::rt::block_on(async {
        let mut desk = invocation.start().await?;
        let ending = converse(&mut desk, project, &agent, prompt, format, options).await;
        // Stop the MCP servers (and their process groups), and wait for the session's
        // writes, whatever happened.
        desk.session.shutdown().await;
        ending
    })??;
    if let (Some(recording), Some(path)) = (&recording, &record) {
        recording.save(path)?;
    }
    crate::drive::exit(ending)
}

/// Runs the prompt, or the interactive session, with the agent chosen.
async fn converse(
    desk: &mut Desk,
    project: &Project,
    agent: &AgentChoice,
    prompt: PromptSource,
    format: RunFormat,
    options: TurnOptions,
) -> anyhow::Result<Ending> {
    let first = match &prompt {
        PromptSource::Once(prompt) => Some(prompt.as_str()),
        PromptSource::Interactive(first) => first.as_deref(),
    };
    let target = match (agent, first) {
        (AgentChoice::Main, _) => Target::Main,
        (AgentChoice::Named(name), _) => Target::Agent(name.clone()),
        (AgentChoice::Routed, Some(prompt)) => {
            crate::route_cmd::routed(&desk.session, prompt, options.model.as_deref())?
        }
        (AgentChoice::Routed, None) => anyhow::bail!("auto-routing needs a prompt: pass -p PROMPT"),
    };
    // The agent must exist; a project server of it whose files changed is asked about now,
    // on a terminal.
    let starting = match &target {
        Target::Agent(name) => crate::lookup::require(&desk.session, name)?,
        _ => desk.session.main_agent(),
    };
    crate::trust_cmd::approve_changed_scripts(desk.session.mcp(), &starting)?;
    // A named front agent's `initialPrompt` opens the conversation.
    let prompt = match (agent, prompt) {
        (AgentChoice::Named(_), PromptSource::Once(given)) => PromptSource::Once(
            agentctl_session::front_prompt(&starting, Some(&given)).unwrap_or(given),
        ),
        (AgentChoice::Named(_), PromptSource::Interactive(first)) => {
            PromptSource::Interactive(agentctl_session::front_prompt(&starting, first.as_deref()))
        }
        (_, prompt) => prompt,
    };
    match prompt {
        PromptSource::Once(prompt) => {
            let op = Op::UserTurn {
                target,
                prompt,
                options,
            };
            once(desk, op, format).await
        }
        PromptSource::Interactive(first) => repl::run(desk, project, target, first, options).await,
    }
}
