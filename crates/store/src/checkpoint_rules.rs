//! The rules every store applies to a graph checkpoint it writes, and the errors it reports
//! about checkpoints, decided once: each store only reads what they look at.

use crate::error::ContextError;
use crate::record::{GraphCheckpoint, MAX_CHECKPOINT_STATE_BYTES, RunId};
use crate::schema::RowError;
use agentctl_core::Redactor;
use serde_json::Value;

/// Numbers as ranges: `0–3, 5, 7–9`. Branches and steps are contiguous in practice, so a
/// session with hundreds of them still reads in a few characters.
fn ranges(numbers: &[u32]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut iter = numbers.iter().copied().peekable();
    while let Some(start) = iter.next() {
        let mut end = start;
        while iter
            .peek()
            .is_some_and(|&n| u64::from(n) == u64::from(end) + 1)
        {
            end = iter.next().unwrap_or(end);
        }
        parts.push(if start == end {
            start.to_string()
        } else {
            format!("{start}–{end}")
        });
    }
    parts.join(", ")
}

/// [`ContextError::GraphBranchNotFound`] for `branch` of `session`, whose branches are
/// `branches` (ascending).
pub fn graph_branch_not_found(session: &str, branch: u32, branches: &[u32]) -> ContextError {
    let known = if branches.is_empty() {
        "it has no graph checkpoints".to_owned()
    } else {
        format!("its branches are {}", ranges(branches))
    };
    ContextError::GraphBranchNotFound {
        session: session.to_owned(),
        branch,
        known,
    }
}

/// [`ContextError::CheckpointNotFound`] for `step` of a branch whose own rows are `rows` (in
/// step order); `None` when the branch has none (then the branch is what is missing:
/// [`graph_branch_not_found`]).
pub fn graph_checkpoint_not_found(
    session: &str,
    branch: u32,
    step: u32,
    rows: &[GraphCheckpoint],
) -> Option<ContextError> {
    let (first, last) = (rows.first()?, rows.last()?);
    let steps: Vec<u32> = rows.iter().map(|row| row.step).collect();
    let mut known = format!("its checkpoints are steps {}", ranges(&steps));
    if let Some((parent, at)) = first.parent
        && step < first.step
    {
        known.push_str(&format!(
            " (it was forked from branch {parent} at step {at}; step {step} is in branch {parent}'s history)"
        ));
    } else if step > last.step {
        known.push_str(&format!(", the latest is {}", last.step));
    }
    Some(ContextError::CheckpointNotFound {
        session: session.to_owned(),
        branch,
        step,
        known,
    })
}

/// Checks a state and turns it into the stored text: a JSON object, secrets masked, bounded.
/// The error is the reason, for [`invalid_checkpoint`].
pub fn checkpoint_state(redactor: &Redactor, state: &Value) -> Result<(Value, String), String> {
    if !state.is_object() {
        return Err(format!(
            "the graph state must be a JSON object (keys are node outputs), not {}",
            json_kind(state)
        ));
    }
    // A node's output is model text: a secret it echoed never reaches the store.
    let mut state = state.clone();
    redactor.redact_json(&mut state);
    let text = state.to_string();
    if text.len() > MAX_CHECKPOINT_STATE_BYTES {
        return Err(format!(
            "the graph state is {} bytes of JSON, more than the {} MiB a checkpoint keeps: \
             store smaller node outputs (a summary, a file path) in the state",
            text.len(),
            MAX_CHECKPOINT_STATE_BYTES / (1024 * 1024)
        ));
    }
    Ok((state, text))
}

/// [`ContextError::InvalidCheckpoint`] for step `step` of `branch` in `session`.
pub fn invalid_checkpoint(session: &str, branch: u32, step: u32, reason: String) -> ContextError {
    ContextError::InvalidCheckpoint {
        session: session.to_owned(),
        branch,
        step,
        reason,
    }
}

fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Refuses a checkpoint naming `run` when the run does not exist (`owner` is `None`) or
/// belongs to another session than `session` (`owner` is its session).
pub fn check_checkpoint_run(
    session: &str,
    branch: u32,
    step: u32,
    run: RunId,
    owner: Option<&str>,
) -> Result<(), ContextError> {
    match owner {
        None => Err(ContextError::RunNotFound(run)),
        Some(owner) if owner != session => Err(invalid_checkpoint(
            session,
            branch,
            step,
            format!(
                "agent run {run} belongs to session {owner}: a checkpoint names a run of its own \
                 session"
            ),
        )),
        Some(_) => Ok(()),
    }
}

/// Refuses step `step` of `branch` unless it is exactly the one after `latest`, the branch's
/// latest checkpoint, and that one did not end the graph.
pub fn check_checkpoint_order(
    session: &str,
    branch: u32,
    step: u32,
    latest: &GraphCheckpoint,
) -> Result<(), ContextError> {
    let (session, last) = (session.to_owned(), latest.step);
    let error = if step <= last {
        ContextError::CheckpointConflict {
            session,
            branch,
            step,
            last,
        }
    } else if latest.is_end() {
        ContextError::GraphEnded {
            session,
            branch,
            last,
            reason: latest
                .reason
                .clone()
                .unwrap_or_else(|| "no reason recorded".into()),
        }
    } else if u64::from(step) != u64::from(last) + 1 {
        ContextError::CheckpointGap {
            session,
            branch,
            step,
            last,
        }
    } else {
        return Ok(());
    };
    Err(error)
}

/// A branch's whole history walked back through the branches it was forked from: which rows
/// to load next ([`next_segment`](Self::next_segment)), checked as they come
/// ([`push`](Self::push)), oldest first at the end ([`into_checkpoints`](Self::into_checkpoints)).
#[derive(Debug, Clone, PartialEq)]
pub struct GraphHistory {
    segments: Vec<Vec<GraphCheckpoint>>,
    next: Option<(u32, Option<u32>)>,
}

impl GraphHistory {
    /// The history of `branch`, nothing loaded yet.
    pub fn new(branch: u32) -> Self {
        Self {
            segments: Vec::new(),
            next: Some((branch, None)),
        }
    }

    /// The branch whose own rows come next, and the last step of them the history keeps (all
    /// when `None`); `None` once the first branch is reached.
    pub fn next_segment(&self) -> Option<(u32, Option<u32>)> {
        self.next
    }

    /// Adds the rows loaded for [`next_segment`](Self::next_segment), in step order. A fork
    /// whose parent lacks the step it was copied from, or names a parent that is not older,
    /// is a corrupt row.
    pub fn push(&mut self, rows: Vec<GraphCheckpoint>) -> Result<(), RowError> {
        let Some((current, until)) = self.next else {
            return Ok(());
        };
        let corrupt = |reason: String| RowError {
            table: "graph_checkpoints",
            reason,
        };
        if let Some(until) = until
            && rows.last().map(|row| row.step) != Some(until)
        {
            return Err(corrupt(format!(
                "branch {current} has no step {until}, which a fork copied"
            )));
        }
        let parent = rows.first().and_then(|first| first.parent);
        self.segments.push(rows);
        self.next = match parent {
            // A fork always gets a higher number than its parent, so this ends.
            Some((parent, step)) if parent < current => Some((parent, Some(step))),
            Some((parent, _)) => {
                return Err(corrupt(format!(
                    "branch {current} names branch {parent} as its parent"
                )));
            }
            None => None,
        };
        Ok(())
    }

    /// Every checkpoint of the history, the oldest branch's first.
    pub fn into_checkpoints(self) -> Vec<GraphCheckpoint> {
        self.segments.into_iter().rev().flatten().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_as_ranges() {
        assert_eq!(ranges(&[]), "");
        assert_eq!(ranges(&[0]), "0");
        assert_eq!(ranges(&[0, 1, 2, 3, 5, 7, 8, 9]), "0–3, 5, 7–9");
        assert_eq!(
            ranges(&[u32::MAX - 1, u32::MAX]),
            format!("{}–{}", u32::MAX - 1, u32::MAX)
        );
    }
}
