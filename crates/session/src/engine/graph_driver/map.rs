//! A node run over a list (`map: {over: analysis.files, as: file}`): one run of the node per
//! element, at most `agents.maxParallel` at once, each seeing the state with its element under
//! the `as` name; the outputs are collected in the list's order (never completion order) under
//! the node's output key, and the graph goes on from the node as after any other.
//!
//! Every element that finishes writes a checkpoint whose `parallel` record holds each
//! element's status and output; the state stays the one before the map until the last element
//! is in, so a resume re-reads the same list and runs only the elements not done.

use super::driver::{Driver, Position, Saved};
use super::lanes::{Item, MapRun, Parallel, Running, Status};
use super::node::{Last, NodeJob, state_update};
use super::spans::LaneSpans;
use crate::error::GraphError;
use agentctl_core::{GraphNode, TraceContext};
use serde_json::{Map, Value};
use std::collections::VecDeque;

/// The value at dotted `path` in `state` (`analysis.files`).
fn lookup<'a>(state: &'a Map<String, Value>, path: &str) -> Option<&'a Value> {
    let mut parts = path.split('.');
    let mut value = state.get(parts.next()?)?;
    for part in parts {
        value = value.get(part)?;
    }
    Some(value)
}

impl Driver<'_> {
    /// Runs map node `node` over its list from `position` (continuing `record` when the run
    /// was resumed inside the map); returns the position after the node (its edge taken, its
    /// checkpoint written) and its last element's run.
    pub(super) async fn run_map(
        &mut self,
        mut position: Position,
        node: &GraphNode,
        record: Option<MapRun>,
        trace: Option<&TraceContext>,
    ) -> Result<(Position, Option<Last>), GraphError> {
        let over = node
            .map
            .as_ref()
            .map(|map| map.over.clone())
            .unwrap_or_default();
        let item_name = node
            .map
            .as_ref()
            .map(|map| map.item.clone())
            .unwrap_or_default();
        let list = match lookup(&position.state, &over) {
            Some(Value::Array(list)) => list.clone(),
            other => {
                return Err(GraphError::MapOver {
                    graph: self.graph.name().to_owned(),
                    node: node.name.clone(),
                    over,
                    found: other.map_or("nothing", json_kind).to_owned(),
                });
            }
        };
        let mut run = record
            .filter(|run| run.node == node.name && run.items.len() == list.len())
            .unwrap_or_else(|| MapRun::new(&node.name, list.len()));
        let limit = self.host.max_parallel();
        let mut queue: VecDeque<usize> = (0..list.len())
            .filter(|&i| run.items[i].status != Status::Done)
            .collect();
        let mut running = Running::default();
        let mut last = None;
        let mut spans = LaneSpans::new(self.graph.name(), &node.name, list.len());
        while run.done() < list.len() {
            while running.futures.len() < limit
                && let Some(i) = queue.pop_front()
            {
                let in_flight = u32::try_from(running.futures.len()).unwrap_or(u32::MAX);
                let step = position.step.saturating_add(in_flight).saturating_add(1);
                if step > self.graph.max_steps() {
                    running.stop().await;
                    return Err(GraphError::StepLimit {
                        graph: self.graph.name().to_owned(),
                        limit: self.graph.max_steps(),
                        path: vec![node.name.clone()],
                    });
                }
                let mut state = position.state.clone();
                state.insert(item_name.clone(), list[i].clone());
                let lane = spans.context(trace, i, &node.name);
                let job = NodeJob::new(&self.graph, &node.name, step, state, lane.as_ref())?;
                run.items[i].status = Status::Running;
                running.start(i, node.name.clone(), job, &mut *self.host);
            }
            let Some((i, _, result)) = self.next_finished(&mut running).await else {
                break;
            };
            running.cancels.remove(&i);
            spans.end(i, result.as_ref().err().map(ToString::to_string).as_deref());
            let (done, node_run) = match result {
                Ok(done) => done,
                Err(error) => {
                    running.stop().await;
                    return Err(error);
                }
            };
            run.items[i] = Item {
                status: Status::Done,
                output: Some(state_update(node.output_key(), &done.output)),
            };
            run.latest = Some(i);
            let step = position.step + 1;
            if run.done() == list.len() {
                let outputs: Vec<Value> = run
                    .items
                    .iter_mut()
                    .map(|item| item.output.take().unwrap_or(Value::Null))
                    .collect();
                let output = Value::Array(outputs);
                let text = output.to_string();
                position = self
                    .advance(node, step, position, &output, node_run)
                    .await?;
                last = Some(Last {
                    node: node.name.clone(),
                    text,
                    output,
                    result: done.result,
                });
                return Ok((position, last));
            }
            let saved = Saved {
                step,
                node: node.name.clone(),
                run: None,
                next: Some(node.name.clone()),
                reason: format!(
                    "map: {} of {} elements of `{over}` done",
                    run.done(),
                    list.len()
                ),
            };
            let record = self
                .checkpoints
                .is_some()
                .then(|| Parallel::Map(run.clone()));
            position = self
                .save(position, saved.with_run(node_run), record)
                .await?;
            last = Some(done);
        }
        if list.is_empty() {
            let output = Value::Array(Vec::new());
            let step = position.step + 1;
            let none = super::node::NodeRun {
                run_id: None,
                agents: Vec::new(),
            };
            position = self.advance(node, step, position, &output, none).await?;
        }
        Ok((position, last))
    }
}

/// The JSON kind of `value`, for messages.
fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}
