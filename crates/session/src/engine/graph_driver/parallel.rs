//! Parallel branches: after an edge `to: [a, b, c]`, each branch runs its nodes on its own
//! turn context (its own cancel token, the turn's sink and gate), at most `agents.maxParallel`
//! nodes at once, until it reaches the join node; the join runs once `join:` says enough
//! branches arrived.
//!
//! **Checkpoints stay exact.** Every node a branch finishes writes a checkpoint whose
//! `parallel` record holds every branch's status (pending, running, done, cancelled), where
//! it is (its next node), the nodes it ran and what they wrote. The state itself stays the one
//! at the fan-out until the join: then the branches' writes are merged in declaration order
//! (never completion order), through the graph's reducers. A resume from any of these
//! checkpoints re-runs only the branches that had not finished, from the node they were at.

use super::driver::{Driver, Position, Saved};
use super::lanes::{Fanout, Finished, Parallel, Running, Status};
use super::node::{Last, NodeJob, NodeRun, state_update};
use super::parts::edge_reason;
use super::spans::LaneSpans;
use crate::error::GraphError;
use agentctl_core::{GRAPH_END, GraphEvent, TraceContext};
use futures_util::StreamExt as _;
use serde_json::{Map, Value};
use std::collections::VecDeque;
use std::sync::Arc;

impl Driver<'_> {
    /// Runs the unfinished branches of `fanout` until the join may run; returns the position
    /// at the join (its checkpoint written), or why the branches stopped.
    pub(super) async fn run_branches(
        &mut self,
        mut position: Position,
        mut fanout: Fanout,
        trace: Option<&TraceContext>,
    ) -> Result<(Position, Option<Last>), GraphError> {
        let limit = self.host.max_parallel();
        let mut queue: VecDeque<usize> = VecDeque::new();
        for (b, branch) in fanout.branches.iter_mut().enumerate() {
            if matches!(branch.status, Status::Pending | Status::Running) {
                branch.status = Status::Pending;
                queue.push_back(b);
            }
        }
        let mut running = Running::default();
        let mut last = None;
        let mut spans = LaneSpans::new(self.graph.name(), &fanout.from, fanout.branches.len());
        while fanout.arrived() < fanout.needed {
            while running.futures.len() < limit
                && let Some(b) = queue.pop_front()
            {
                let start = fanout.branches[b].start.clone();
                let lane = spans.context(trace, b, &start);
                if let Err(error) =
                    self.start_branch(&position, &mut fanout, b, lane.as_ref(), &mut running)
                {
                    running.stop().await;
                    return Err(error);
                }
            }
            let Some(finished) = self.next_finished(&mut running).await else {
                break;
            };
            let (b, name, result) = finished;
            running.cancels.remove(&b);
            let (done, run) = match result {
                Ok(done) => done,
                Err(error) => {
                    spans.end(b, Some(&error.to_string()));
                    running.stop().await;
                    return Err(error);
                }
            };
            let saved = self
                .branch_node_done(
                    &mut position,
                    &mut fanout,
                    (b, &name),
                    (&done, &run),
                    &mut running,
                )
                .await?;
            if fanout.branches[b].status == Status::Pending {
                // The branch goes on: its next node before other branches' first.
                queue.push_front(b);
            } else {
                spans.end(b, None);
            }
            // Only a checkpoint needs the record: the branches' progress is `fanout`'s.
            let record = self
                .checkpoints
                .is_some()
                .then(|| Parallel::Fanout(fanout.clone()));
            position = self.save(position, saved.with_run(run), record).await?;
            last = Some(done);
        }
        // Branches the join ran without.
        spans.end_all("cancelled: the join ran without this branch");
        if fanout.arrived() < fanout.needed {
            return Err(GraphError::JoinIncomplete {
                graph: self.graph.name().to_owned(),
                join: fanout.join.clone(),
                arrived: fanout.arrived(),
                needed: fanout.needed,
            });
        }
        Ok((position, last))
    }

    /// Starts the next node of branch `b`.
    fn start_branch(
        &mut self,
        position: &Position,
        fanout: &mut Fanout,
        b: usize,
        trace: Option<&TraceContext>,
        running: &mut Running,
    ) -> Result<(), GraphError> {
        let in_flight = u32::try_from(running.futures.len()).unwrap_or(u32::MAX);
        let step = position.step.saturating_add(in_flight).saturating_add(1);
        if step > self.graph.max_steps() {
            return Err(GraphError::StepLimit {
                graph: self.graph.name().to_owned(),
                limit: self.graph.max_steps(),
                path: fanout.branches[b].path.clone(),
            });
        }
        let name = fanout.branches[b].next.clone().unwrap_or_default();
        let state = fanout.branch_state(&position.state, b, &self.graph);
        let job = NodeJob::new(&self.graph, &name, step, state, trace)?;
        fanout.branches[b].status = Status::Running;
        running.start(b, name, job, &mut *self.host);
        Ok(())
    }

    /// The next branch node to finish, passing on the questions of the branches' runs while
    /// waiting; `None` when none runs.
    pub(super) async fn next_finished(&mut self, running: &mut Running) -> Option<Finished> {
        if running.futures.is_empty() {
            return None;
        }
        loop {
            tokio::select! {
                finished = running.futures.next() => return finished,
                () = self.host.relay() => {}
            }
        }
    }

    /// After branch `b`'s node `name`: its write, its next node (or its arrival), and — when
    /// that completes the join — the other branches stopped and their writes merged.
    async fn branch_node_done(
        &mut self,
        position: &mut Position,
        fanout: &mut Fanout,
        (b, name): (usize, &str),
        (done, run): (&Last, &NodeRun),
        running: &mut Running,
    ) -> Result<Saved, GraphError> {
        let graph = Arc::clone(&self.graph);
        let node = graph.node(name).ok_or_else(|| GraphError::UnknownNode {
            graph: graph.name().to_owned(),
            node: name.to_owned(),
        })?;
        let key = node.output_key();
        let output = state_update(key, &done.output);
        let step = position.step + 1;
        self.emit(|| GraphEvent::NodeFinished {
            step,
            node: name.to_owned(),
            agents: run.agents.clone(),
            output_key: key.to_owned(),
            output: output.clone(),
        });
        let branch = &mut fanout.branches[b];
        branch.path.push(name.to_owned());
        branch.writes.push((key.to_owned(), output));
        // The branch's state is built only for conditions that read it.
        let state = if graph.reads_state(name) {
            fanout.branch_state(&position.state, b, &graph)
        } else {
            Map::new()
        };
        let output = fanout.branches[b]
            .writes
            .last()
            .map_or(&Value::Null, |(_, output)| output);
        let transition = self.transition(&state, name, step, output).await?;
        let reason = edge_reason(&transition);
        let to = transition.to.clone();
        let branch = &mut fanout.branches[b];
        branch.arrived = to.as_deref() == Some(fanout.join.as_str());
        match &to {
            Some(next) if !branch.arrived => {
                branch.status = Status::Pending;
                branch.next = Some(next.clone());
            }
            _ => {
                branch.status = Status::Done;
                branch.next = None;
            }
        }
        self.emit(|| GraphEvent::EdgeTaken {
            from: name.to_owned(),
            to: to.clone().unwrap_or_else(|| GRAPH_END.to_owned()),
            condition: transition.condition.clone(),
            reason: reason.clone(),
        });
        if fanout.arrived() >= fanout.needed {
            for stopped in running.stop().await {
                fanout.branches[stopped].status = Status::Cancelled;
            }
            for branch in &mut fanout.branches {
                if branch.status == Status::Pending {
                    branch.status = Status::Cancelled;
                }
            }
            fanout.joined = true;
            position.state = fanout.merged(&position.state, &self.graph);
        }
        Ok(Saved {
            step,
            node: name.to_owned(),
            run: None,
            next: Some(fanout.join.clone()),
            reason,
        })
    }
}
