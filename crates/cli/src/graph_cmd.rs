//! `agentctl graph …` (and `agentctl agents graph …`): list, run, resume, replay and draw
//! graphs of agents. Running and resuming are turns of a session, driven as every front end
//! drives them ([`crate::drive`]); the rest reads definitions and the store.

use crate::args::graph::{
    DiagramFormat, GraphCommand, GraphListArgs, GraphReplayArgs, GraphResumeArgs, GraphRunArgs,
    GraphRunFlags, GraphVisualizeArgs,
};
use crate::args::{GlobalArgs, TableFormat, TextFormat};
use crate::drive::{Invocation, once};
use crate::lookup::lookup_message;
use crate::output::{print_json, terminal_safe};
use agentctl_session::graph::{Graph, render_dot, render_mermaid, render_text};
use agentctl_session::store::SessionChoice;
use agentctl_session::{
    GraphError, GraphReplay, Op, Project, ReplayItem, SessionError, SessionHandle, Target,
    TurnOptions, find_branch,
};
use serde::Serialize;
use std::fmt::Write as _;
use std::io::Write as _;
use std::process::ExitCode;

/// Longest excerpt of a tool's arguments or a model's answer in a replay line.
const REPLAY_EXCERPT: usize = 80;

/// Runs one `graph` subcommand.
pub(crate) fn run(global: &GlobalArgs, command: GraphCommand) -> anyhow::Result<ExitCode> {
    match command {
        GraphCommand::Run(args) => run_graph(global, args),
        GraphCommand::Resume(args) => resume_graph(global, args),
        GraphCommand::List(args) => list(global, &args),
        GraphCommand::Replay(args) => replay(global, &args),
        GraphCommand::Visualize(args) => visualize(global, &args),
    }
}

/// `agentctl graph run NAME -p PROMPT`: a turn of the graph.
fn run_graph(global: &GlobalArgs, args: GraphRunArgs) -> anyhow::Result<ExitCode> {
    let prompt = match args.prompt {
        Some(prompt) => prompt,
        None => {
            crate::run::read_stdin_prompt("no prompt: pass -p PROMPT or pipe the request on stdin")?
        }
    };
    let choice = match (args.session, args.continue_session) {
        (Some(id), _) => SessionChoice::Resume(id),
        (None, true) => SessionChoice::Continue,
        (None, false) => SessionChoice::New,
    };
    let project = crate::context::load(global)?;
    let nodes = node_agents(&project, &args.name);
    let op = Op::UserTurn {
        target: Target::Graph(args.name),
        prompt: prompt.clone(),
        options: options(&args.flags),
    };
    drive(&project, &args.flags, &nodes, choice, Some(&prompt), op)
}

/// `agentctl graph resume --session ID [--branch B] [--from-step N]`: a turn that continues
/// (or forks) a graph run of the session.
fn resume_graph(global: &GlobalArgs, args: GraphResumeArgs) -> anyhow::Result<ExitCode> {
    let project = crate::context::load(global)?;
    let session = recorded_session(&project, &args.session)?;
    let name = find_branch(&session, args.branch, None)?.graph;
    let nodes = node_agents(&project, &name);
    let op = Op::ResumeGraph {
        branch: args.branch,
        from_step: args.from_step,
        options: options(&args.flags),
    };
    let choice = SessionChoice::Resume(args.session);
    drive(&project, &args.flags, &nodes, choice, None, op)
}

/// How every node's agent runs: the flags' model, turn limit and streaming.
fn options(flags: &GraphRunFlags) -> TurnOptions {
    let mut options = TurnOptions::new().stream(!flags.no_stream);
    options.max_turns = flags.max_turns;
    options.model.clone_from(&flags.model);
    options
}

/// Submits `op` to a session of `project` and renders the graph's events and outcome.
fn drive(
    project: &Project,
    flags: &GraphRunFlags,
    nodes: &[String],
    session: SessionChoice,
    title: Option<&str>,
    op: Op,
) -> anyhow::Result<ExitCode> {
    let invocation = Invocation {
        project,
        approvals: &flags.approvals,
        session,
        title,
        source: None,
        trace: flags.trace,
        recording: None,
        active: None,
    };
    let ending = crate::rt::block_on(async {
        let mut desk = invocation.start().await?;
        // Project servers of the nodes' agents whose files changed are asked about now.
        for node in nodes {
            if let Ok(agent) = desk.session.require_agent(node) {
                crate::trust_cmd::approve_changed_scripts(desk.session.mcp(), &agent)?;
            }
        }
        let ending = once(&mut desk, op, flags.format).await;
        desk.session.shutdown().await;
        ending
    })??;
    crate::drive::exit(ending)
}

/// The agents of the nodes of the graph `name` (none when it is no graph: the session says so
/// when it runs).
fn node_agents(project: &Project, name: &str) -> Vec<String> {
    let discovery = project.discover();
    let graph = discovery
        .require(name)
        .ok()
        .and_then(|found| found.definition.spec.graph.clone());
    graph
        .map(|graph| graph.nodes.into_iter().map(|node| node.agent).collect())
        .unwrap_or_default()
}

/// The graph of the agent `name` ([`Project::graph_of`]), its errors in the command line's
/// words.
fn load_graph(project: &Project, name: &str) -> anyhow::Result<Graph> {
    match project.graph_of(name) {
        Ok(graph) => Ok(graph),
        Err(SessionError::Agent(lookup)) => Err(anyhow::anyhow!(lookup_message(&lookup))),
        Err(SessionError::Graph(error)) if matches!(*error, GraphError::Invalid { .. }) => {
            anyhow::bail!("{error}\ncheck it with `agentctl agents validate {name}`")
        }
        Err(other) => Err(other.into()),
    }
}

/// The session `id` of `project`'s store.
fn recorded_session(project: &Project, id: &str) -> anyhow::Result<SessionHandle> {
    let store = project.open_store(true)?.ok_or(GraphError::NoSession)?;
    let choice = SessionChoice::Resume(id.to_owned());
    Ok(SessionHandle::open(
        store,
        choice,
        None,
        project.settings().agents.clone(),
    )?)
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct GraphRow {
    name: String,
    description: Option<String>,
    entry: String,
    nodes: Vec<String>,
    path: String,
}

fn list(global: &GlobalArgs, args: &GraphListArgs) -> anyhow::Result<ExitCode> {
    let project = crate::context::load(global)?;
    let rows: Vec<GraphRow> = project
        .discover()
        .agents
        .iter()
        .filter_map(|loaded| {
            let definition = &loaded.definition;
            let graph = definition.spec.graph.as_ref()?;
            Some(GraphRow {
                name: definition.name().to_owned(),
                description: definition.spec.description.clone(),
                entry: graph.entry.clone(),
                nodes: graph.nodes.iter().map(|node| node.name.clone()).collect(),
                path: definition.source.path.display().to_string(),
            })
        })
        .collect();
    if args.format == TableFormat::Json {
        print_json(&rows)?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = std::io::stdout().lock();
    if rows.is_empty() {
        writeln!(
            out,
            "No graphs: add a `graph:` block to an agent file, or a file to .agentctl/graphs/"
        )?;
    }
    for row in &rows {
        writeln!(
            out,
            "{}  ({} nodes from {}) {}",
            row.name,
            row.nodes.len(),
            row.entry,
            terminal_safe(row.description.as_deref().unwrap_or_default())
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

fn replay(global: &GlobalArgs, args: &GraphReplayArgs) -> anyhow::Result<ExitCode> {
    let project = crate::context::load(global)?;
    let session = recorded_session(&project, &args.session)?;
    let replay = GraphReplay::load(&session, args.branch)?;
    if args.format == TextFormat::Json {
        print_json(&replay)?;
    } else {
        let mut out = std::io::stdout().lock();
        out.write_all(terminal_safe(&replay_text(&replay)).as_bytes())?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The seed's replay form: each node with its tool calls, guardrails and answers, the edges
/// with their conditions, then the totals and the duration.
pub(crate) fn replay_text(replay: &GraphReplay) -> String {
    let mut text = format!(
        "🔄 Replaying session {} (graph {}, branch {})\n",
        replay.session_id, replay.graph, replay.branch
    );
    let forked = replay.branches.iter().find(|b| b.branch == replay.branch);
    if let Some((parent, step)) = forked.and_then(|branch| branch.parent) {
        let _ = writeln!(text, "Forked from branch {parent} at step {step}");
    }
    for node in &replay.nodes {
        let agents = node.agents.join(" → ");
        let inherited = if node.inherited {
            " (before the fork)"
        } else {
            ""
        };
        let _ = writeln!(
            text,
            "\n[{}] step {}: {agents}{inherited}",
            node.node, node.step
        );
        if let Some(lane) = &node.parallel {
            let _ = writeln!(text, "  ⑂ {lane}");
        }
        for item in &node.items {
            let _ = writeln!(text, "  {}", item_line(item));
        }
        let reason = node.reason.as_deref().unwrap_or_default();
        let _ = writeln!(text, "\n[{} → {}] {reason}", node.node, node.next);
    }
    let totals = replay.totals;
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    let _ = writeln!(
        text,
        "\nTotal: {}, {}, {}, {}",
        plural(totals.agents, "agent"),
        plural(totals.tools, "tool"),
        plural(totals.handoffs, "handoff"),
        plural(totals.guardrails, "guardrail")
    );
    let _ = writeln!(
        text,
        "Duration: {:.1}s",
        std::time::Duration::from_millis(u64::try_from(replay.duration_ms).unwrap_or(0))
            .as_secs_f64()
    );
    match (&replay.ended, &replay.next) {
        (Some(_), _) => {}
        (None, Some(next)) => {
            let _ = writeln!(
                text,
                "Not finished: `{next}` runs next (agentctl graph resume --session {})",
                replay.session_id
            );
        }
        (None, None) => {}
    }
    if replay.branches.len() > 1 {
        let others: Vec<String> = replay
            .branches
            .iter()
            .filter(|b| b.branch != replay.branch)
            .map(|b| b.branch.to_string())
            .collect();
        let _ = writeln!(text, "Other branches: {} (--branch B)", others.join(", "));
    }
    text
}

/// One line of a replayed node: a tool call, the model's answer, a handoff or a guardrail.
fn item_line(item: &ReplayItem) -> String {
    match item {
        ReplayItem::Tool {
            name, arguments, ..
        } => format!("→ Tool: {name}({})", brief_arguments(arguments)),
        ReplayItem::Llm { text, .. } => format!("→ LLM: {}", excerpt(text)),
        ReplayItem::Handoff { from, to, reason } => {
            format!("→ Handoff: {from} → {to} ({})", excerpt(reason))
        }
        ReplayItem::Guardrail {
            name,
            passed,
            errors,
            ..
        } => match passed {
            true => format!("→ Guardrail: {name} ✓"),
            false => format!("→ Guardrail: {name} ✗ {}", excerpt(&errors.join("; "))),
        },
    }
}

/// `path`, or the first string argument, else the arguments as JSON, cut short.
fn brief_arguments(arguments: &serde_json::Value) -> String {
    let text = match arguments {
        serde_json::Value::Object(map) => match map.get("path").or_else(|| map.values().next()) {
            Some(serde_json::Value::String(text)) if map.len() == 1 || map.contains_key("path") => {
                text.clone()
            }
            _ => arguments.to_string(),
        },
        other => other.to_string(),
    };
    excerpt(&text)
}

/// The first line of `text`, cut to [`REPLAY_EXCERPT`] characters.
fn excerpt(text: &str) -> String {
    let line = text.trim().lines().next().unwrap_or_default();
    match line.char_indices().nth(REPLAY_EXCERPT) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line.to_owned(),
    }
}

fn visualize(global: &GlobalArgs, args: &GraphVisualizeArgs) -> anyhow::Result<ExitCode> {
    let project = crate::context::load(global)?;
    let graph = load_graph(&project, &args.name)?;
    let path = match &args.session {
        Some(id) => {
            let session = recorded_session(&project, id)?;
            let replay = GraphReplay::load(&session, None)?;
            Some(
                replay
                    .nodes
                    .into_iter()
                    .map(|node| node.node)
                    .collect::<Vec<_>>(),
            )
        }
        None => None,
    };
    let drawn = match args.format {
        DiagramFormat::Text => render_text(&graph),
        DiagramFormat::Mermaid => render_mermaid(&graph, path.as_deref()),
        DiagramFormat::Dot => render_dot(&graph, path.as_deref()),
    };
    let mut out = std::io::stdout().lock();
    out.write_all(drawn.as_bytes())?;
    if !drawn.ends_with('\n') {
        writeln!(out)?;
    }
    Ok(ExitCode::SUCCESS)
}
