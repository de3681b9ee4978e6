//! A recorded graph run read back from the store — nodes, their tool calls, model answers,
//! handoffs and guardrail checks, the edges taken — without calling a model or a tool.

use crate::error::GraphError;
use crate::session::SessionHandle;
use agentctl_core::{GRAPH_END, Message, RunEvent};
use agentctl_store::{
    CheckpointSource, GraphBranch, GraphCheckpoint, MessageQuery, RunId, RunRecord, SessionStore,
    StepRecord, StoredMessage,
};
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeSet, HashMap};

/// Prefix of the tools handoffs are made with.
const HANDOFF_PREFIX: &str = "handoff_to_";

/// A graph run as recorded: one branch of a session's graph history, read from the store.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GraphReplay {
    /// The session.
    pub session_id: String,
    /// The graph.
    pub graph: String,
    /// The branch shown (its parents' steps up to the fork come first).
    pub branch: u32,
    /// Every branch of the session's graph runs.
    pub branches: Vec<GraphBranch>,
    /// The nodes run, in order.
    pub nodes: Vec<ReplayNode>,
    /// Counts over the nodes.
    pub totals: ReplayTotals,
    /// From the first checkpoint to the last, in milliseconds.
    pub duration_ms: i64,
    /// Why the run ended; `None` while it can still be resumed.
    pub ended: Option<String>,
    /// The node a resume would run next, when it has not ended.
    pub next: Option<String>,
}

/// One node of a recorded graph run.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplayNode {
    /// Its step.
    pub step: u32,
    /// The node.
    pub node: String,
    /// The agents that worked on it, in order.
    pub agents: Vec<String>,
    /// Its first run in the store.
    pub run_id: Option<RunId>,
    /// What happened, in order.
    pub items: Vec<ReplayItem>,
    /// Where the graph went next (`END` when it ended here).
    pub next: String,
    /// Why (the condition that held, or why it ended).
    pub reason: Option<String>,
    /// Whether this step is the fork a branch started from (run in the parent branch).
    pub inherited: bool,
    /// Where the node ran when it ran beside others: `branch 2/3 (perf) of intake's fan-out,
    /// joining at summary`, `element 3 of 5`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parallel: Option<String>,
}

/// Something a node's agents did.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ReplayItem {
    /// A tool call.
    Tool {
        /// The agent.
        agent: String,
        /// The tool.
        name: String,
        /// Its arguments.
        arguments: Value,
    },
    /// Text the model wrote.
    Llm {
        /// The agent.
        agent: String,
        /// The text.
        text: String,
    },
    /// A handoff inside the node.
    Handoff {
        /// From.
        from: String,
        /// To.
        to: String,
        /// Why.
        reason: String,
    },
    /// A guardrail check.
    Guardrail {
        /// The agent.
        agent: String,
        /// The guardrail.
        name: String,
        /// Whether it passed.
        passed: bool,
        /// Why not.
        errors: Vec<String>,
    },
}

/// Counts over a replay, as the seed's totals line shows them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct ReplayTotals {
    /// Distinct agents.
    pub agents: usize,
    /// Tool calls (handoffs not counted).
    pub tools: usize,
    /// Edges between nodes plus handoffs inside nodes.
    pub handoffs: usize,
    /// Guardrail checks.
    pub guardrails: usize,
}

impl GraphReplay {
    /// Reads `branch` of the session's graph runs (the newest when `None`).
    pub fn load(session: &SessionHandle, branch: Option<u32>) -> Result<Self, GraphError> {
        let store = session.store();
        let id = session.id();
        let chosen = super::find_branch(session, branch, None)?;
        let branches = store.graph_branches(id)?;
        let history = store.graph_history(id, chosen.branch)?;
        let runs = store.runs(id)?;
        let messages = store.messages(id, &MessageQuery::default())?;
        let mut by_run: HashMap<RunId, Vec<&StoredMessage>> = HashMap::new();
        for message in &messages {
            if let Some(run) = message.run_id {
                by_run.entry(run).or_default().push(message);
            }
        }
        let mut nodes = Vec::new();
        for checkpoint in &history {
            if checkpoint.source != CheckpointSource::Node {
                continue;
            }
            let node = replay_node(store.as_ref(), checkpoint, &runs, &by_run)?;
            nodes.push(ReplayNode {
                inherited: checkpoint.branch != chosen.branch,
                ..node
            });
        }
        let totals = totals(&nodes);
        let last = history.last();
        let first = history.first();
        Ok(Self {
            session_id: id.to_owned(),
            graph: chosen.graph.clone(),
            branch: chosen.branch,
            duration_ms: match (first, last) {
                (Some(first), Some(last)) => last.created_at - first.created_at,
                _ => 0,
            },
            ended: chosen.end_reason.clone().filter(|_| chosen.ended),
            next: last.and_then(|last| last.next.clone()),
            branches,
            nodes,
            totals,
        })
    }
}

/// One node from its checkpoint: its run and the runs handoffs started from it.
fn replay_node(
    store: &dyn SessionStore,
    checkpoint: &GraphCheckpoint,
    runs: &[RunRecord],
    messages: &HashMap<RunId, Vec<&StoredMessage>>,
) -> Result<ReplayNode, GraphError> {
    let chain = run_chain(checkpoint.run, runs);
    let mut items = Vec::new();
    for run in &chain {
        let steps = store.steps(run.id)?;
        let start = items.len();
        // The run's own workspace: not the summary an isolated run hands back to `main`.
        let own = messages
            .get(&run.id)
            .into_iter()
            .flatten()
            .filter(|message| message.context_scope == run.context_scope);
        for message in own {
            push_assistant_items(&mut items, &run.agent, &message.message);
        }
        // The checks ran on the final answer: they come before it, as the seed shows them.
        let at = items[start..]
            .iter()
            .rposition(|item| matches!(item, ReplayItem::Llm { .. }))
            .map_or(items.len(), |last| start + last);
        items.splice(at..at, guardrail_items(&run.agent, &steps));
    }
    Ok(ReplayNode {
        step: checkpoint.step,
        node: checkpoint.node.clone().unwrap_or_default(),
        agents: chain.iter().map(|run| run.agent.clone()).collect(),
        run_id: checkpoint.run,
        items,
        next: checkpoint
            .next
            .clone()
            .unwrap_or_else(|| GRAPH_END.to_owned()),
        reason: checkpoint.reason.clone(),
        inherited: false,
        parallel: lane(checkpoint),
    })
}

/// Where a node of a fan-out or a map ran, from its checkpoint's parallel record.
fn lane(checkpoint: &GraphCheckpoint) -> Option<String> {
    let parallel = checkpoint.parallel.as_ref()?;
    let node = checkpoint.node.as_deref()?;
    if let Some(fanout) = parallel.get("fanout") {
        let branches = fanout.get("branches")?.as_array()?;
        let b = branches.iter().position(|branch| {
            branch["path"]
                .as_array()
                .is_some_and(|path| path.iter().any(|step| step == node))
        })?;
        let text = |key: &str| fanout[key].as_str().unwrap_or_default().to_owned();
        let start = branches[b]["start"].as_str().unwrap_or_default();
        return Some(format!(
            "branch {}/{} ({start}) of {}'s fan-out, joining at {}",
            b + 1,
            branches.len(),
            text("from"),
            text("join")
        ));
    }
    let map = parallel.get("map")?;
    let count = map.get("items")?.as_array()?.len();
    let latest = map.get("latest")?.as_u64()?;
    Some(format!("element {} of {count}", latest + 1))
}

/// What an assistant message of `agent` shows in the replay: its text, then each tool call
/// (a handoff as such).
fn push_assistant_items(items: &mut Vec<ReplayItem>, agent: &str, message: &Message) {
    let Message::Assistant {
        content,
        tool_calls,
    } = message
    else {
        return;
    };
    if let Some(text) = content.as_deref().filter(|text| !text.trim().is_empty()) {
        items.push(ReplayItem::Llm {
            agent: agent.to_owned(),
            text: text.to_owned(),
        });
    }
    for call in tool_calls {
        items.push(match call.name.strip_prefix(HANDOFF_PREFIX) {
            Some(to) => ReplayItem::Handoff {
                from: agent.to_owned(),
                to: to.to_owned(),
                reason: call.arguments["reason"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
            },
            None => ReplayItem::Tool {
                agent: agent.to_owned(),
                name: call.name.clone(),
                arguments: call.arguments.clone(),
            },
        });
    }
}

/// The guardrail checks recorded among a run's steps, in order.
fn guardrail_items(agent: &str, steps: &[StepRecord]) -> Vec<ReplayItem> {
    steps
        .iter()
        .filter(|step| step.kind == "guardrail")
        .filter_map(
            |step| match serde_json::from_value::<RunEvent>(step.content.clone()) {
                Ok(RunEvent::Guardrail {
                    name,
                    passed,
                    errors,
                    ..
                }) => Some(ReplayItem::Guardrail {
                    agent: agent.to_owned(),
                    name,
                    passed,
                    errors,
                }),
                _ => None,
            },
        )
        .collect()
}

/// The node's run followed by the runs handoffs passed control to (children that are not
/// sub-agent tasks), in order.
fn run_chain(first: Option<RunId>, runs: &[RunRecord]) -> Vec<RunRecord> {
    let mut chain = Vec::new();
    let mut current = first.and_then(|id| runs.iter().find(|run| run.id == id));
    while let Some(run) = current {
        chain.push(run.clone());
        current = runs
            .iter()
            .find(|child| child.parent_run_id == Some(run.id) && !child.context_scope.is_sub());
    }
    chain
}

fn totals(nodes: &[ReplayNode]) -> ReplayTotals {
    let agents: BTreeSet<&str> = nodes
        .iter()
        .flat_map(|node| node.agents.iter().map(String::as_str))
        .collect();
    let mut totals = ReplayTotals {
        agents: agents.len(),
        // Edges between nodes: every node but the last led to the next one.
        handoffs: nodes.len().saturating_sub(1),
        ..ReplayTotals::default()
    };
    for item in nodes.iter().flat_map(|node| &node.items) {
        match item {
            ReplayItem::Tool { .. } => totals.tools += 1,
            ReplayItem::Handoff { .. } => totals.handoffs += 1,
            ReplayItem::Guardrail { .. } => totals.guardrails += 1,
            ReplayItem::Llm { .. } => {}
        }
    }
    totals
}
