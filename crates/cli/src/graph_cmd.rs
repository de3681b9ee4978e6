//! `agentctl graph …` (and `agentctl agents graph …`): list, run, resume, replay and draw
//! graphs of agents. Running is in `run::graph`; this module reads definitions and the store.

use crate::args::graph::{
    DiagramFormat, GraphCommand, GraphListArgs, GraphReplayArgs, GraphVisualizeArgs,
};
use crate::args::{GlobalArgs, TableFormat, TextFormat};
use crate::output::{print_json, terminal_safe};
use agentctl_context::SessionChoice;
use agentctl_routing::{Graph, render_dot, render_mermaid, render_text};
use agentctl_session::{GraphReplay, ReplayItem, RuntimeBuilder, SessionRunner};
use serde::Serialize;
use std::fmt::Write as _;
use std::io::Write as _;
use std::process::ExitCode;

/// Longest excerpt of a tool's arguments or a model's answer in a replay line.
const REPLAY_EXCERPT: usize = 80;

/// Runs one `graph` subcommand.
pub(crate) fn run(global: &GlobalArgs, command: GraphCommand) -> anyhow::Result<ExitCode> {
    match command {
        GraphCommand::Run(args) => crate::run::run_graph(global, args),
        GraphCommand::Resume(args) => crate::run::resume_graph(global, args),
        GraphCommand::List(args) => list(global, &args),
        GraphCommand::Replay(args) => replay(global, &args),
        GraphCommand::Visualize(args) => visualize(global, &args),
    }
}

/// A runner for reading definitions and sessions (no approvals are asked).
fn runner(global: &GlobalArgs) -> anyhow::Result<SessionRunner> {
    let project = crate::context::load(global)?;
    let builder = RuntimeBuilder::new(&project);
    Ok(SessionRunner::new(&project, builder))
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
    let runner = runner(global)?;
    let rows: Vec<GraphRow> = runner
        .discovery()
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
    let runner = runner(global)?;
    let session = runner
        .open_session(SessionChoice::Resume(args.session.clone()), None)?
        .ok_or(agentctl_session::GraphError::NoSession)?;
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
        for item in &node.items {
            let line = match item {
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
            };
            let _ = writeln!(text, "  {line}");
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
    let runner = runner(global)?;
    let agent = crate::agents::require(&runner, &args.name)?;
    let graph = if agent.spec.graph.is_some() {
        crate::run::load_graph(&runner, &args.name)?
    } else {
        let lookup = |name: &str| runner.require_agent(name).ok();
        Graph::from_handoffs(&agent, &lookup)
    };
    let path = match &args.session {
        Some(id) => {
            let session = runner
                .open_session(SessionChoice::Resume(id.clone()), None)?
                .ok_or(agentctl_session::GraphError::NoSession)?;
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
