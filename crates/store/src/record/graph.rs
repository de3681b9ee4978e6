//! The rows of graph checkpoints: where each came from, the checkpoint itself, and the
//! branches of a session's graph runs.

use super::RunId;
use serde::Serialize;
use std::fmt;
use std::str::FromStr;

/// Largest graph state a checkpoint stores, in bytes of compact JSON (after masking secrets).
///
/// Every checkpoint holds the whole state, so the bound also bounds what a graph of
/// `maxSteps` nodes adds to the session file; a state is the nodes' final outputs, not their
/// transcripts, and stays far below it in any sane graph.
pub const MAX_CHECKPOINT_STATE_BYTES: usize = 4 * 1024 * 1024;

/// Where a graph checkpoint came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckpointSource {
    /// Step 0 of a branch started by [`GraphLog::start_graph`](crate::GraphLog): the input
    /// state and the entry node.
    Input,
    /// Written after a node finished ([`GraphLog::write_checkpoint`](crate::GraphLog)).
    Node,
    /// First row of a branch made by [`GraphLog::fork_graph`](crate::GraphLog): a copy of
    /// the checkpoint it was forked from.
    Fork,
}

impl CheckpointSource {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            CheckpointSource::Input => "input",
            CheckpointSource::Node => "node",
            CheckpointSource::Fork => "fork",
        }
    }
}

impl fmt::Display for CheckpointSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for CheckpointSource {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Ok(match text {
            "input" => CheckpointSource::Input,
            "node" => CheckpointSource::Node,
            "fork" => CheckpointSource::Fork,
            other => return Err(format!("unknown checkpoint source `{other}`")),
        })
    }
}

/// The checkpoint a node's run leaves, to write with
/// [`GraphLog::write_checkpoint`](crate::GraphLog).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NewCheckpoint<'a> {
    /// The session.
    pub session: &'a str,
    /// The branch (see [`GraphCheckpoint::branch`]).
    pub branch: u32,
    /// Exactly the branch's last step + 1; anything else is refused.
    pub step: u32,
    /// The node that just finished.
    pub node: &'a str,
    /// The node's agent run, when it has one in this session.
    pub run: Option<RunId>,
    /// The node to run next; `None` when the graph ended (no step can follow).
    pub next: Option<&'a str>,
    /// Why the graph goes on to `next` (the condition that held), or why it ended (`END`,
    /// no edge matched, …).
    pub reason: Option<&'a str>,
    /// The whole graph state after the node: a JSON object.
    pub state: &'a serde_json::Value,
    /// While parallel branches run: every branch's status and output (a JSON object the
    /// graph runner defines), so a resume re-runs only the branches that had not finished.
    pub parallel: Option<&'a serde_json::Value>,
}

/// A stored graph checkpoint: the graph state after a step and where the graph goes next.
///
/// A session holds any number of graph *branches*, numbered from 0 in the order they were
/// started or forked; each branch is a sequence of steps without gaps. Step 0 of a started
/// branch is its `input` checkpoint; every later step is the checkpoint a node wrote. A forked
/// branch starts with a `fork` row at the step it was forked from (same step number, state and
/// next node), so resuming it runs the same next node as resuming from the original would.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GraphCheckpoint {
    /// The session.
    pub session_id: String,
    /// The branch, from 0.
    pub branch: u32,
    /// The step within the branch's history, from 0 (a forked branch starts at the step it
    /// was forked from).
    pub step: u32,
    /// The graph's name.
    pub graph: String,
    /// The node that wrote it; `None` for `input` and `fork` checkpoints.
    pub node: Option<String>,
    /// The node's agent run; `None` for `input` and `fork` checkpoints, or when the run was
    /// deleted.
    pub run: Option<RunId>,
    /// The node to run next; `None` when the graph ended.
    pub next: Option<String>,
    /// Why the graph went on to `next`, or why it ended, when the writer said.
    pub reason: Option<String>,
    /// The graph state after this step (a JSON object; secrets masked).
    pub state: serde_json::Value,
    /// While parallel branches run: each branch's status and output (a JSON object; secrets
    /// masked); `None` outside a fan-out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parallel: Option<serde_json::Value>,
    /// How the row came to be.
    pub source: CheckpointSource,
    /// For `fork` rows: the `(branch, step)` it was copied from.
    #[serde(serialize_with = "checkpoint_ref")]
    pub parent: Option<(u32, u32)>,
    /// Milliseconds since the Unix epoch.
    pub created_at: i64,
}

impl GraphCheckpoint {
    /// True when the graph ended here: no node comes next.
    pub fn is_end(&self) -> bool {
        self.next.is_none()
    }
}

/// One graph branch of a session, for listings ([`GraphLog::graph_branches`](crate::GraphLog)).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GraphBranch {
    /// The branch number.
    pub branch: u32,
    /// The graph's name.
    pub graph: String,
    /// The `(branch, step)` it was forked from; `None` for a branch started from input.
    #[serde(serialize_with = "checkpoint_ref")]
    pub parent: Option<(u32, u32)>,
    /// Its first step (0, or the step it was forked from).
    pub first_step: u32,
    /// Its latest step.
    pub last_step: u32,
    /// The latest checkpoint names no next node: the graph ended.
    pub ended: bool,
    /// Why it ended, when it did and the writer said why.
    pub end_reason: Option<String>,
    /// When its first checkpoint was written, milliseconds since the Unix epoch.
    pub created_at: i64,
    /// When its latest checkpoint was written, milliseconds since the Unix epoch.
    pub updated_at: i64,
}

/// A `(branch, step)` pair as `{"branch": …, "step": …}` (or `null`).
fn checkpoint_ref<S: serde::Serializer>(
    parent: &Option<(u32, u32)>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeStruct;
    match parent {
        Some((branch, step)) => {
            let mut fields = serializer.serialize_struct("CheckpointRef", 2)?;
            fields.serialize_field("branch", branch)?;
            fields.serialize_field("step", step)?;
            fields.end()
        }
        None => serializer.serialize_none(),
    }
}
