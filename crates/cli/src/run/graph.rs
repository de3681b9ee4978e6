//! `agentctl graph run|resume` (and `agentctl run GRAPH`): runs a graph of agents and renders
//! its events — a header per node, the node's tool lines and guardrail checks, the edge taken —
//! with the last node's answer on stdout.

use super::render::{EventSink, Renderer, excerpt, json_line, pump};
use super::terminal::Frontend;
use super::{GUARDRAIL_EXIT, warn};
use crate::args::graph::{GraphResumeArgs, GraphRunArgs, GraphRunFlags};
use crate::args::{ApprovalArgs, GlobalArgs, RunFormat};
use crate::output::terminal_safe;
use crate::wire::{GraphEventLine, GraphResult};
use agentctl_context::SessionChoice;
use agentctl_core::{AgentDefinition, GraphEvent, GraphStart, RunError, RunOptions};
use agentctl_routing::Graph;
use agentctl_session::{
    GraphError, GraphOutcome, GraphRun, GraphRunner, RuntimeBuilder, SessionHandle, SessionRunner,
    find_branch,
};
use anyhow::Context as _;
use std::io::{IsTerminal as _, Write as _};
use std::process::ExitCode;

/// Where the graph run starts.
enum Start {
    New(String),
    Resume(Option<u32>),
    Fork(Option<u32>, u32),
}

/// `agentctl graph run NAME -p PROMPT`.
pub(crate) fn run(global: &GlobalArgs, args: GraphRunArgs) -> anyhow::Result<ExitCode> {
    let prompt = match args.prompt {
        Some(prompt) => prompt,
        None => super::read_stdin_prompt("no prompt: pass -p PROMPT or pipe the request on stdin")?,
    };
    let choice = match (args.session, args.continue_session) {
        (Some(id), _) => SessionChoice::Resume(id),
        (None, true) => SessionChoice::Continue,
        (None, false) => SessionChoice::New,
    };
    execute(
        global,
        &args.flags,
        Target::Named(args.name),
        choice,
        Start::New(prompt),
    )
}

/// `agentctl graph resume --session ID [--branch B] [--from-step N]`.
pub(crate) fn resume(global: &GlobalArgs, args: GraphResumeArgs) -> anyhow::Result<ExitCode> {
    let start = match args.from_step {
        Some(step) => Start::Fork(args.branch, step),
        None => Start::Resume(args.branch),
    };
    execute(
        global,
        &args.flags,
        Target::Recorded(args.branch),
        SessionChoice::Resume(args.session),
        start,
    )
}

/// `agentctl run NAME -p PROMPT` when NAME is a graph agent.
pub(crate) fn run_graph_agent(
    global: &GlobalArgs,
    agent: &AgentDefinition,
    prompt: String,
    session: SessionChoice,
    flags: &GraphRunFlags,
) -> anyhow::Result<ExitCode> {
    execute(
        global,
        flags,
        Target::Named(agent.name().to_owned()),
        session,
        Start::New(prompt),
    )
}

/// The graph flags `agentctl run GRAPH` implies: its own model, turn limit, format, streaming,
/// tracing and approvals.
pub(crate) fn run_flags(
    options: &RunOptions,
    format: RunFormat,
    trace: bool,
    approvals: ApprovalArgs,
) -> GraphRunFlags {
    GraphRunFlags {
        model: options.model.clone(),
        max_turns: options.max_turns,
        format,
        no_stream: !options.stream,
        trace,
        approvals,
    }
}

/// Which graph runs.
enum Target {
    /// The graph agent of that name.
    Named(String),
    /// The graph the session's branch (the newest when `None`) ran.
    Recorded(Option<u32>),
}

fn execute(
    global: &GlobalArgs,
    flags: &GraphRunFlags,
    target: Target,
    choice: SessionChoice,
    start: Start,
) -> anyhow::Result<ExitCode> {
    let project = crate::context::load(global)?;
    let (frontend, approver) = Frontend::new();
    let builder = RuntimeBuilder::new(&project)
        .approvals(crate::approvals::choice(&flags.approvals)?)
        .approver(approver);
    let runner = SessionRunner::new(&project, builder).with_tracing(flags.trace, None);
    let first_prompt = match &start {
        Start::New(prompt) => Some(prompt.as_str()),
        _ => None,
    };
    let session = runner
        .open_session(choice, first_prompt)?
        .ok_or(GraphError::NoSession)?;
    let name = match target {
        Target::Named(name) => name,
        Target::Recorded(branch) => recorded_graph(&session, branch)?,
    };
    let graph = load_graph(&runner, &name)?;
    // Project servers of the nodes' agents whose files changed are asked about now.
    for node in graph.nodes() {
        if let Ok(agent) = runner.require_agent(&node.agent) {
            crate::trust_cmd::approve_changed_scripts(&runner, &agent)?;
        }
    }
    let options = RunOptions {
        stream: !flags.no_stream,
        max_turns: flags.max_turns,
        model: flags.model.clone(),
        ..RunOptions::default()
    };
    let tokio = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let format = flags.format;
    let (outcome, signal) = tokio.block_on(async {
        let graph_runner = GraphRunner::new(&runner, graph, session, options);
        let run = match start {
            Start::New(prompt) => graph_runner.run(&prompt),
            Start::Resume(branch) => graph_runner.resume(branch),
            Start::Fork(branch, step) => graph_runner.fork(branch, step),
        };
        let result = render(run, format, &frontend).await;
        runner.shutdown().await;
        result
    });
    tokio.shutdown_background();
    match outcome {
        Ok(outcome) => {
            print_outcome(&outcome, format)?;
            Ok(ExitCode::SUCCESS)
        }
        Err(GraphError::Cancelled) => {
            crate::output::print_error(&anyhow::anyhow!(GraphError::Cancelled.to_string()));
            Ok(ExitCode::from(
                u8::try_from(128 + signal.unwrap_or(2)).unwrap_or(u8::MAX),
            ))
        }
        Err(error) if matches!(error.run_error(), Some(RunError::Guardrail(_))) => {
            crate::output::print_error(&anyhow::anyhow!(error.to_string()));
            Ok(ExitCode::from(GUARDRAIL_EXIT))
        }
        Err(error) => Err(anyhow::anyhow!(error.to_string())),
    }
}

/// The name of the graph a session's branch ran.
fn recorded_graph(session: &SessionHandle, branch: Option<u32>) -> anyhow::Result<String> {
    Ok(find_branch(session, branch, None)?.graph)
}

/// The graph agent `name`, compiled.
pub(crate) fn load_graph(runner: &SessionRunner, name: &str) -> anyhow::Result<Graph> {
    let agent = crate::agents::require(runner, name)?;
    if agent.spec.graph.is_none() {
        anyhow::bail!(
            "`{name}` is an agent, not a graph (it has no `graph:` block): run it with `agentctl run {name}`"
        );
    }
    Graph::from_definition(&agent).map_err(|issues| {
        anyhow::anyhow!(
            "graph `{name}` ({}) is invalid:\n{issues}\ncheck it with `agentctl agents validate {name}`",
            agent.source.path.display()
        )
    })
}

/// Renders the run's events as they come; returns how it ended and the signal that stopped it.
async fn render(
    mut run: GraphRun<'_>,
    format: RunFormat,
    frontend: &Frontend,
) -> (Result<GraphOutcome, GraphError>, Option<i32>) {
    let cancel = run.cancellation_token();
    let mut sink = GraphRenderer {
        format,
        frontend: frontend.clone(),
        node: None,
        dim: std::io::stderr().is_terminal(),
        session_id: None,
    };
    let signal = pump(&mut run, &cancel, frontend, &mut sink).await;
    if let Some(node) = sink.node.as_mut() {
        node.finish();
    }
    (run.finish().await, signal)
}

/// Shows graph events: in text, a header per node, its run's tool lines and checks (through
/// the run renderer, without the answer text), the edge taken; in `stream-json`, one event
/// per line.
struct GraphRenderer {
    format: RunFormat,
    frontend: Frontend,
    /// The renderer of the node running now.
    node: Option<Renderer>,
    dim: bool,
    /// The graph's session, from its `graph_started` event (the first): on every line.
    session_id: Option<String>,
}

impl EventSink<GraphEvent> for GraphRenderer {
    fn show(&mut self, event: &GraphEvent) {
        match self.format {
            RunFormat::Json => {}
            RunFormat::StreamJson => {
                if let GraphEvent::GraphStarted { session_id, .. } = event {
                    self.session_id = Some(session_id.clone());
                }
                json_line(&GraphEventLine {
                    session_id: self.session_id.as_deref(),
                    event: event.into(),
                });
            }
            RunFormat::Text => self.text(event),
        }
    }

    fn pause(&mut self) {
        if let Some(node) = self.node.as_mut() {
            EventSink::pause(node);
        }
    }
}

impl GraphRenderer {
    fn text(&mut self, event: &GraphEvent) {
        match event {
            GraphEvent::GraphStarted {
                graph,
                session_id,
                branch,
                from_step,
                next,
                start,
            } => {
                let how = match start {
                    GraphStart::New => String::new(),
                    GraphStart::Resumed => format!(", resumed at step {from_step} ({next} next)"),
                    GraphStart::Forked => format!(", from step {from_step} ({next} next)"),
                };
                self.line(&format!(
                    "📊 Graph {graph} · session {session_id} · branch {branch}{how}"
                ));
            }
            GraphEvent::NodeStarted { step, node, agent } => {
                if let Some(previous) = self.node.as_mut() {
                    previous.finish();
                }
                self.line(&format!("\n[{node}] {agent} (step {step})"));
                self.node = Some(
                    Renderer::new(RunFormat::Text, self.frontend.spinner.clone()).without_answers(),
                );
            }
            GraphEvent::Run { event, .. } => {
                if let Some(node) = self.node.as_mut() {
                    node.event(event);
                }
            }
            GraphEvent::Warning { node, message } => {
                warn(&format!("node `{node}`: {message}"));
            }
            GraphEvent::NodeFinished {
                output_key, output, ..
            } => {
                let shown = match output {
                    serde_json::Value::String(text) => text.clone(),
                    other => other.to_string(),
                };
                self.dim_line(&format!("  → {output_key}: {}", excerpt(&shown)));
            }
            GraphEvent::EdgeTaken {
                from, to, reason, ..
            } => {
                self.line(&format!("[{from} → {to}] {reason}"));
            }
            GraphEvent::CheckpointSaved { step, .. } => {
                self.dim_line(&format!("  ✓ checkpoint {step} saved"));
            }
            GraphEvent::GraphFinished { reason, .. } => {
                self.line(&format!("\n✓ Graph finished: {reason}"));
            }
            // The error is printed once, as the command's error.
            _ => {}
        }
    }

    fn line(&self, text: &str) {
        let mut err = std::io::stderr().lock();
        let _ = writeln!(err, "{}", terminal_safe(text));
    }

    fn dim_line(&self, text: &str) {
        let text = terminal_safe(text);
        let mut err = std::io::stderr().lock();
        let _ = if self.dim {
            writeln!(err, "\x1b[2m{text}\x1b[0m")
        } else {
            writeln!(err, "{text}")
        };
    }
}

/// The last node's answer on stdout (text), or the outcome object (json).
fn print_outcome(outcome: &GraphOutcome, format: RunFormat) -> anyhow::Result<()> {
    match format {
        RunFormat::Text => {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{}", terminal_safe(outcome.text.trim_end()));
            Ok(())
        }
        RunFormat::Json => crate::output::print_json(&GraphResult::from(outcome)),
        RunFormat::StreamJson => Ok(()),
    }
}
