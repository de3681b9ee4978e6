//! A graph run's JSON: the outcome of `--format json` and the event lines of `stream-json`.

use super::one_of;
use super::run::{WireRunEvent, type_first};
use agentctl_core::{GraphEvent, GraphStart};
use agentctl_session::GraphOutcome;
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Serialize, Serializer};
use serde_json::Value;

/// What `graph run --format json` prints: how the graph ended.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct GraphResult<'a> {
    /// The session its runs and checkpoints are stored in.
    session_id: &'a str,
    /// The graph.
    graph: &'a str,
    /// The branch written.
    branch: u32,
    /// The last step.
    step: u32,
    /// Why it ended.
    reason: &'a str,
    /// The last node run.
    last_node: &'a str,
    /// The last node's output (the answer parsed when it is JSON).
    output: &'a Value,
    /// The final state.
    state: &'a Value,
    /// The last node's final answer.
    text: &'a str,
}

impl<'a> From<&'a GraphOutcome> for GraphResult<'a> {
    fn from(outcome: &'a GraphOutcome) -> Self {
        Self {
            session_id: &outcome.session_id,
            graph: &outcome.graph,
            branch: outcome.branch,
            step: outcome.step,
            reason: &outcome.reason,
            last_node: &outcome.last_node,
            output: &outcome.output,
            state: &outcome.state,
            text: &outcome.text,
        }
    }
}

/// One line of a graph's `--format stream-json`: `type`, `sessionId`, then the fields.
#[derive(Debug, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct GraphEventLine<'a> {
    /// The session the graph runs in.
    pub(crate) session_id: Option<&'a str>,
    /// The event.
    #[serde(flatten)]
    pub(crate) event: WireGraphEvent<'a>,
}

impl Serialize for GraphEventLine<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        type_first(&self.event, self.session_id, serializer)
    }
}

fn start_schema(_: &mut SchemaGenerator) -> Schema {
    one_of(&["new", "resumed", "forked"])
}

/// A graph event in the CLI's casing (the library's [`GraphEvent`]; its session id is the
/// line's `sessionId`).
#[derive(Debug, Serialize, JsonSchema)]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub(crate) enum WireGraphEvent<'a> {
    /// The graph started, resumed or was forked.
    GraphStarted {
        graph: &'a str,
        branch: u32,
        from_step: u32,
        next: &'a str,
        #[schemars(schema_with = "start_schema")]
        start: GraphStart,
    },
    /// A node's agent was started.
    NodeStarted {
        step: u32,
        node: &'a str,
        agent: &'a str,
    },
    /// Something that did not stop the node.
    Warning { node: &'a str, message: &'a str },
    /// An event of a node's run (a `run-event` without its `sessionId`).
    Run {
        node: &'a str,
        event: WireRunEvent<'a>,
    },
    /// A node finished; its output is in the state.
    NodeFinished {
        step: u32,
        node: &'a str,
        agents: &'a [String],
        output_key: &'a str,
        output: &'a Value,
    },
    /// The edge chosen after a node (`to` is `END` when the graph ends there).
    EdgeTaken {
        from: &'a str,
        to: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        condition: Option<&'a str>,
        reason: &'a str,
    },
    /// The state after a node was saved.
    CheckpointSaved {
        branch: u32,
        step: u32,
        #[serde(skip_serializing_if = "Option::is_none")]
        next: Option<&'a str>,
    },
    /// The graph reached its end.
    GraphFinished {
        reason: &'a str,
        last_node: &'a str,
        output: &'a Value,
        state: &'a Value,
    },
    /// The graph stopped.
    GraphFailed {
        #[serde(skip_serializing_if = "Option::is_none")]
        node: Option<&'a str>,
        error: &'a str,
    },
    /// An event this version of the CLI does not know yet, as the library names it.
    #[serde(untagged)]
    Other(Value),
}

impl<'a> From<&'a GraphEvent> for WireGraphEvent<'a> {
    fn from(event: &'a GraphEvent) -> Self {
        match event {
            GraphEvent::GraphStarted {
                graph,
                branch,
                from_step,
                next,
                start,
                ..
            } => Self::GraphStarted {
                graph,
                branch: *branch,
                from_step: *from_step,
                next,
                start: *start,
            },
            GraphEvent::NodeStarted { step, node, agent } => Self::NodeStarted {
                step: *step,
                node,
                agent,
            },
            GraphEvent::Warning { node, message } => Self::Warning { node, message },
            GraphEvent::Run { node, event } => Self::Run {
                node,
                event: event.into(),
            },
            GraphEvent::NodeFinished {
                step,
                node,
                agents,
                output_key,
                output,
            } => Self::NodeFinished {
                step: *step,
                node,
                agents,
                output_key,
                output,
            },
            GraphEvent::EdgeTaken {
                from,
                to,
                condition,
                reason,
            } => Self::EdgeTaken {
                from,
                to,
                condition: condition.as_deref(),
                reason,
            },
            GraphEvent::CheckpointSaved { branch, step, next } => Self::CheckpointSaved {
                branch: *branch,
                step: *step,
                next: next.as_deref(),
            },
            GraphEvent::GraphFinished {
                reason,
                last_node,
                output,
                state,
            } => Self::GraphFinished {
                reason,
                last_node,
                output,
                state,
            },
            GraphEvent::GraphFailed { node, error } => Self::GraphFailed {
                node: node.as_deref(),
                error,
            },
            other => Self::Other(serde_json::to_value(other).unwrap_or(Value::Null)),
        }
    }
}
