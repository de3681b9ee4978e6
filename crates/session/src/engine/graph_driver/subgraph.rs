//! Subgraph nodes (`graph: review-flow`): the node runs another graph agent's graph, with its
//! own state (the node's prompt as its `input`), its own `maxSteps`, and its final state
//! (without the input) stored under the node's output key.
//!
//! **Checkpoints nest.** A subgraph writes no checkpoint rows of its own: each of its nodes
//! writes the parent's next step, whose `parallel` record is `{"subgraph": …}` — the
//! subgraph's step, next node, state and its own `parallel` record (a fan-out, a map, or a
//! deeper subgraph). A resume reads the record back and continues inside the subgraph, so only
//! its unfinished nodes run again. The subgraph's last node writes no row of its own: its
//! output goes into the parent's state with the node's edge, in one checkpoint.

use super::driver::{Driver, Nest, Position, Saved};
use super::host::{Checkpoint, Checkpointer};
use super::lanes::{Parallel, SubRun};
use super::node::{Last, NodeRun};
use super::parts::{INPUT_KEY, node_prompt};
use crate::error::GraphError;
use agentctl_core::{GraphEvent, GraphNode, SpanDetail, TraceContext};
use agentctl_routing::Graph;
use agentctl_trace::OpenSpan;
use serde_json::{Map, Value, json};
use std::sync::Arc;

impl Driver<'_> {
    /// Runs subgraph node `node` from `position` (continuing `record` when the run was resumed
    /// inside it); returns the position after the node (its edge taken, its checkpoint
    /// written) and its run, whose output is the subgraph's state.
    pub(super) async fn run_subgraph(
        &mut self,
        position: Position,
        node: &GraphNode,
        record: Option<Box<SubRun>>,
        trace: Option<&TraceContext>,
    ) -> Result<(Position, Last), GraphError> {
        let name = node.graph.clone().unwrap_or_default();
        let graph = self.host.subgraph(&node.name, &name)?;
        self.emit(|| GraphEvent::NodeStarted {
            step: position.step + 1,
            node: node.name.clone(),
            agent: name.clone(),
        });
        let branch = position.branch;
        let start = match record.filter(|run| run.node == node.name && run.graph == name) {
            Some(run) => run.position(branch),
            None => self.subgraph_start(node, &graph, &position),
        };
        let nest = Nest {
            node: node.name.clone(),
            graph: self.graph.name().to_owned(),
            branch,
            step: position.step,
            state: position.state,
            outer: self.nest.take(),
            last_run: None,
        };
        let (result, nest) = self.walk_nested(&name, graph, nest, start, trace).await;
        let Some(nest) = nest else {
            return Err(GraphError::NoSession);
        };
        let Nest {
            step,
            state,
            outer,
            last_run,
            ..
        } = *nest;
        self.nest = outer;
        let (end, last) = result?;
        let finished = end.end_reason.clone();
        let (output, last) = self.subgraph_output(&name, branch, end, last, finished)?;
        let parent = Position {
            branch,
            step,
            next: Some(node.name.clone()),
            state,
            end_reason: None,
            parallel: None,
        };
        let run = NodeRun {
            run_id: last_run,
            agents: vec![name],
        };
        let after = self.advance(node, step + 1, parent, &output, run).await?;
        let done = Last {
            node: node.name.clone(),
            text: output.to_string(),
            output,
            result: last.result,
        };
        Ok((after, done))
    }

    /// Walks subgraph `graph` (the graph of agent `name`) from `start` as a child of this
    /// driver, nested in `nest`, under a span of its own when traced; returns how the walk
    /// ended and the nest it leaves.
    async fn walk_nested(
        &mut self,
        name: &str,
        graph: Arc<Graph>,
        nest: Nest,
        start: Position,
        trace: Option<&TraceContext>,
    ) -> (
        Result<(Position, Option<Last>), GraphError>,
        Option<Box<Nest>>,
    ) {
        let span = trace.map(|trace| {
            let detail = SpanDetail::Graph {
                graph: name.to_owned(),
                branch: nest.branch,
            };
            OpenSpan::start(trace, Some(name), detail)
        });
        let mut child = Driver {
            host: &mut *self.host,
            checkpoints: self.checkpoints.clone(),
            graph,
            nest: Some(Box::new(nest)),
        };
        let context = span.as_ref().map(OpenSpan::context);
        // Boxed: a subgraph's walk may meet another subgraph node.
        let result = Box::pin(child.walk(start, context.as_ref())).await;
        if let Some(span) = span {
            span.end(result.as_ref().err().map(ToString::to_string).as_deref());
        }
        (result, child.nest.take())
    }

    /// Where a subgraph node's graph starts when it was not resumed inside it: at its entry,
    /// with the node's prompt as its `input`.
    fn subgraph_start(&self, node: &GraphNode, graph: &Graph, position: &Position) -> Position {
        let prompt = node_prompt(self.graph.name(), node, position.step + 1, &position.state);
        let mut state = Map::new();
        state.insert(INPUT_KEY.to_owned(), Value::String(prompt));
        Position {
            branch: position.branch,
            step: 0,
            next: Some(graph.entry().name.clone()),
            state,
            end_reason: None,
            parallel: None,
        }
    }

    /// What subgraph `name` (run on the parent's `branch`) leaves its node: its final state
    /// without the `input`, and its last node's run; an error when it ended before any node ran
    /// (`finished` says why).
    fn subgraph_output(
        &self,
        name: &str,
        branch: u32,
        end: Position,
        last: Option<Last>,
        finished: Option<String>,
    ) -> Result<(Value, Last), GraphError> {
        let Some(last) = last else {
            return Err(GraphError::Finished {
                graph: name.to_owned(),
                session: self.session_id().to_owned(),
                branch,
                step: end.step,
                reason: finished.unwrap_or_default(),
            });
        };
        let mut output = end.state;
        output.remove(INPUT_KEY);
        Ok((Value::Object(output), last))
    }

    /// A subgraph's checkpoint, written as its parent's next step (and its parent's, up to the
    /// top graph); returns the subgraph's position. The subgraph's last checkpoint (no next
    /// node) is not written: the parent's edge writes it.
    pub(super) async fn save_nested(
        &mut self,
        position: Position,
        saved: Saved,
        parallel: Option<Parallel>,
    ) -> Result<Position, GraphError> {
        let graph = self.graph.name().to_owned();
        let Some(nest) = self.nest.as_mut() else {
            return Err(GraphError::NoSession);
        };
        nest.last_run = saved.run.or(nest.last_run);
        let Some(next) = saved.next.clone() else {
            return Ok(Position {
                branch: position.branch,
                step: saved.step,
                next: None,
                state: position.state,
                end_reason: Some(saved.reason),
                parallel: None,
            });
        };
        let Some(checkpoints) = self.checkpoints.clone() else {
            // Nothing to record: the parents' steps still count the subgraph's.
            let mut level = Some(&mut **nest);
            while let Some(at) = level {
                at.step += 1;
                level = at.outer.as_deref_mut();
            }
            let saved = Saved {
                next: Some(next),
                ..saved
            };
            return Ok(Position::unsaved(
                position.branch,
                position.state,
                saved,
                parallel,
            ));
        };
        let record_of = parallel.as_ref().map(super::drive::record);
        let parallel = parallel.filter(Parallel::in_progress);
        let child = Position {
            branch: position.branch,
            step: saved.step,
            next: Some(next),
            state: position.state.clone(),
            end_reason: None,
            parallel,
        };
        let parallel = record_of;
        let record = SubRun {
            node: nest.node.clone(),
            graph,
            step: saved.step,
            next: saved.next,
            reason: saved.reason.clone(),
            state: Value::Object(position.state),
            parallel,
        };
        let (branch, top, state, wrapped) = wrap_up(nest, record, &saved.reason, saved.run);
        self.write_top(&*checkpoints, branch, top, state, wrapped)
            .await?;
        Ok(child)
    }

    /// Writes the top graph's checkpoint of a subgraph's step.
    async fn write_top(
        &self,
        checkpoints: &dyn Checkpointer,
        branch: u32,
        saved: Saved,
        state: Value,
        parallel: Value,
    ) -> Result<(), GraphError> {
        let checkpoint = checkpoints
            .write(Checkpoint {
                branch,
                step: saved.step,
                node: saved.node,
                run: saved.run,
                next: saved.next,
                reason: saved.reason,
                state,
                parallel: Some(parallel),
            })
            .await?;
        self.emit(|| GraphEvent::CheckpointSaved {
            branch: checkpoint.branch,
            step: checkpoint.step,
            next: checkpoint.next.clone(),
        });
        Ok(())
    }
}

impl SubRun {
    /// The subgraph's position this record leaves, on the parent's `branch`.
    fn position(self, branch: u32) -> Position {
        Position {
            branch,
            step: self.step,
            next: self.next,
            state: match self.state {
                Value::Object(state) => state,
                _ => Map::new(),
            },
            end_reason: None,
            parallel: Parallel::read(self.parallel),
        }
    }
}

/// Wraps `record` (a subgraph's step, saved for `reason` by store run `run`) in the record of
/// each enclosing level up to the top graph, counting the step at every level; returns the top
/// graph's branch, its checkpoint, its state and the wrapped record.
fn wrap_up(
    nest: &mut Nest,
    mut record: SubRun,
    reason: &str,
    run: Option<i64>,
) -> (u32, Saved, Value, Value) {
    let mut level: &mut Nest = nest;
    loop {
        level.step += 1;
        let reason = format!("subgraph `{}`: {reason}", record.graph);
        let wrapped = json!({ "subgraph": record });
        let Some(outer) = level.outer.as_deref_mut() else {
            let top = Saved {
                step: level.step,
                node: level.node.clone(),
                run,
                next: Some(level.node.clone()),
                reason,
            };
            return (
                level.branch,
                top,
                Value::Object(level.state.clone()),
                wrapped,
            );
        };
        record = SubRun {
            node: outer.node.clone(),
            graph: level.graph.clone(),
            step: level.step,
            next: Some(level.node.clone()),
            reason,
            state: Value::Object(level.state.clone()),
            parallel: Some(wrapped),
        };
        level = outer;
    }
}
