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

/// What a map node runs over: the list at `over` in the state, and the name each element
/// takes in its run's state.
struct MapInput {
    over: String,
    item: String,
    list: Vec<Value>,
}

impl MapInput {
    /// The input of map node `node` of `graph` in `state`; an error when `over` names no list.
    fn read(graph: &str, node: &GraphNode, state: &Map<String, Value>) -> Result<Self, GraphError> {
        let (over, item) = node
            .map
            .as_ref()
            .map(|map| (map.over.clone(), map.item.clone()))
            .unwrap_or_default();
        match lookup(state, &over) {
            Some(Value::Array(list)) => Ok(Self {
                list: list.clone(),
                over,
                item,
            }),
            other => Err(GraphError::MapOver {
                graph: graph.to_owned(),
                node: node.name.clone(),
                over,
                found: other.map_or("nothing", json_kind).to_owned(),
            }),
        }
    }
}

/// The elements of a map in flight: their record, those not started yet, the running ones
/// and their trace spans.
struct Lanes {
    run: MapRun,
    queue: VecDeque<usize>,
    running: Running,
    spans: LaneSpans,
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
        let input = MapInput::read(self.graph.name(), node, &position.state)?;
        let count = input.list.len();
        let run = record
            .filter(|run| run.node == node.name && run.items.len() == count)
            .unwrap_or_else(|| MapRun::new(&node.name, count));
        let mut lanes = Lanes {
            queue: (0..count)
                .filter(|&i| run.items[i].status != Status::Done)
                .collect(),
            run,
            running: Running::default(),
            spans: LaneSpans::new(self.graph.name(), &node.name, count),
        };
        let mut last = None;
        while lanes.run.done() < count {
            self.start_elements(node, &input, &mut lanes, &position, trace)
                .await?;
            let Some((i, _, result)) = self.next_finished(&mut lanes.running).await else {
                break;
            };
            lanes.running.cancels.remove(&i);
            let error = result.as_ref().err().map(ToString::to_string);
            lanes.spans.end(i, error.as_deref());
            let (done, node_run) = match result {
                Ok(done) => done,
                Err(error) => {
                    lanes.running.stop().await;
                    return Err(error);
                }
            };
            lanes.run.items[i] = Item {
                status: Status::Done,
                output: Some(state_update(node.output_key(), &done.output)),
            };
            lanes.run.latest = Some(i);
            if lanes.run.done() == count {
                let (after, last) = self
                    .finish_map(node, position, &mut lanes.run, done, node_run)
                    .await?;
                return Ok((after, Some(last)));
            }
            let saved = Saved {
                step: position.step + 1,
                node: node.name.clone(),
                run: None,
                next: Some(node.name.clone()),
                reason: format!(
                    "map: {} of {count} elements of `{}` done",
                    lanes.run.done(),
                    input.over
                ),
            };
            let record = self
                .checkpoints
                .is_some()
                .then(|| Parallel::Map(lanes.run.clone()));
            position = self
                .save(position, saved.with_run(node_run), record)
                .await?;
            last = Some(done);
        }
        if count == 0 {
            let none = super::node::NodeRun {
                run_id: None,
                agents: Vec::new(),
            };
            let step = position.step + 1;
            position = self
                .advance(node, step, position, &Value::Array(Vec::new()), none)
                .await?;
        }
        Ok((position, last))
    }

    /// Starts elements of the map until `agents.maxParallel` run at once; refuses to go past
    /// the graph's `maxSteps` (each element is a step).
    async fn start_elements(
        &mut self,
        node: &GraphNode,
        input: &MapInput,
        lanes: &mut Lanes,
        position: &Position,
        trace: Option<&TraceContext>,
    ) -> Result<(), GraphError> {
        let limit = self.host.max_parallel();
        while lanes.running.futures.len() < limit
            && let Some(i) = lanes.queue.pop_front()
        {
            let in_flight = u32::try_from(lanes.running.futures.len()).unwrap_or(u32::MAX);
            let step = position.step.saturating_add(in_flight).saturating_add(1);
            if step > self.graph.max_steps() {
                lanes.running.stop().await;
                return Err(GraphError::StepLimit {
                    graph: self.graph.name().to_owned(),
                    limit: self.graph.max_steps(),
                    path: vec![node.name.clone()],
                });
            }
            let mut state = position.state.clone();
            state.insert(input.item.clone(), input.list[i].clone());
            let lane = lanes.spans.context(trace, i, &node.name);
            let job = NodeJob::new(&self.graph, &node.name, step, state, lane.as_ref())?;
            lanes.run.items[i].status = Status::Running;
            lanes
                .running
                .start(i, node.name.clone(), job, &mut *self.host);
        }
        Ok(())
    }

    /// The map's last element is in: its outputs, in the list's order, are the node's output;
    /// the graph goes on from the node.
    async fn finish_map(
        &mut self,
        node: &GraphNode,
        position: Position,
        run: &mut MapRun,
        done: Last,
        node_run: super::node::NodeRun,
    ) -> Result<(Position, Last), GraphError> {
        let outputs: Vec<Value> = run
            .items
            .iter_mut()
            .map(|item| item.output.take().unwrap_or(Value::Null))
            .collect();
        let output = Value::Array(outputs);
        let text = output.to_string();
        let step = position.step + 1;
        let position = self
            .advance(node, step, position, &output, node_run)
            .await?;
        let last = Last {
            node: node.name.clone(),
            text,
            output,
            result: done.result,
        };
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
