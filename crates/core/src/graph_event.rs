//! What happens while a graph runs, as events: its nodes' runs' [`RunEvent`]s wrapped with the
//! node they belong to, and the graph's own steps (edges, checkpoints).

use crate::event::RunEvent;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One thing that happened while a graph ran, in order: `graph_started`, then per node
/// `node_started`, the node's run events (`run`), `node_finished`, `edge_taken` and
/// `checkpoint_saved`; a graph ends with exactly one `graph_finished` or `graph_failed`.
///
/// Like [`RunEvent`], field names are snake_case here; the CLI's `--format stream-json` prints
/// them in its camelCase shape (`agentctl schema graph-event`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum GraphEvent {
    /// The graph started, resumed or was forked from an earlier checkpoint.
    GraphStarted {
        /// The graph's name.
        graph: String,
        /// The session its runs and checkpoints are stored in.
        session_id: String,
        /// The branch of the session's graph history it writes (0 for the first run).
        branch: u32,
        /// The step of the checkpoint it starts from (0 for a new run).
        from_step: u32,
        /// The node it runs first.
        next: String,
        /// How it started.
        start: GraphStart,
    },
    /// A node's agent was started.
    NodeStarted {
        /// The step the node's result will be checkpointed as (1 for the first node).
        step: u32,
        /// The node.
        node: String,
        /// Its agent.
        agent: String,
    },
    /// Something the user should know that did not stop the node (an MCP server of its
    /// agent that failed to start).
    Warning {
        /// The node.
        node: String,
        /// The warning.
        message: String,
    },
    /// An event of a node's run (or of the agents it handed off to).
    Run {
        /// The node.
        node: String,
        /// The run's event.
        event: RunEvent,
    },
    /// A node's agents finished; its output is in the state.
    NodeFinished {
        /// The node's step.
        step: u32,
        /// The node.
        node: String,
        /// The agents that worked on it, in order (more than one after handoffs).
        agents: Vec<String>,
        /// The state key its output is stored under.
        output_key: String,
        /// Its output: the final answer parsed when it is JSON, else the text.
        output: Value,
    },
    /// The edge chosen after a node (`to` is `END` when the graph ends there).
    EdgeTaken {
        /// The node left.
        from: String,
        /// The next node, or `END`.
        to: String,
        /// The edge's condition, when it has one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        condition: Option<String>,
        /// Why: the condition that held, or why no edge was taken.
        reason: String,
    },
    /// The state after a node was saved, with the node to run next.
    CheckpointSaved {
        /// The branch.
        branch: u32,
        /// The step.
        step: u32,
        /// The node to run next; `None` when the graph ended.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        next: Option<String>,
    },
    /// The graph reached its end.
    GraphFinished {
        /// Why it ended (`END` after a node, or no edge taken).
        reason: String,
        /// The last node.
        last_node: String,
        /// The last node's output.
        output: Value,
        /// The final state.
        state: Value,
    },
    /// The graph stopped: a node failed, a condition could not be evaluated, the step limit
    /// was reached, or the store failed. The last checkpoint stays; `resume` continues from it.
    GraphFailed {
        /// The node that failed, when one did.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        node: Option<String>,
        /// One-line error message.
        error: String,
    },
}

/// How a graph run began.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GraphStart {
    /// From its entry, with a new input.
    New,
    /// From the last checkpoint of a branch that had stopped.
    Resumed,
    /// From an earlier checkpoint, into a new branch.
    Forked,
}
