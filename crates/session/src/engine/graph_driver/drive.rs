//! The driver of one graph run: from a starting checkpoint, node after node, until `END`, no
//! edge, a failure or the step limit. What a node is, where events go and where checkpoints
//! are written is the [`Host`](super::host::Host)'s and the
//! [`Checkpointer`](super::host::Checkpointer)'s: in a session (`graph_turn`) each node is an
//! agent turn of the session engine, its events framed as the node's, and every store read and
//! write goes through the session's store thread.

use super::driver::{Driver, Position, Saved};
use super::host::{Checkpoint, EngineHost, StoreCheckpoints};
use super::lanes::{Fanout, Parallel};
use super::node::{Last, NodeJob, NodeRun, state_update};
use super::parts::{INPUT_KEY, edge_reason, write_key};
use crate::engine::TurnCtx;
use crate::error::GraphError;
use crate::graph_run::{GraphOutcome, StartAt};
use agentctl_core::{
    AgentDefinition, GRAPH_END, GraphEvent, GraphNode, GraphStart, RunResult, SpanDetail,
    TraceContext,
};
use agentctl_routing::{Transition, graph_variables};
use agentctl_store::Source;
use agentctl_trace::OpenSpan;
use serde_json::{Map, Value};
use std::sync::Arc;

/// A graph turn: runs `agent`'s graph from `at` in the turn's session, its events through the
/// turn's sink; returns how it ended and its last node's run result.
pub(crate) async fn graph_turn(
    ctx: &mut TurnCtx,
    agent: &AgentDefinition,
    at: StartAt,
    trace: Option<TraceContext>,
) -> Result<(GraphOutcome, RunResult), GraphError> {
    let engine = Arc::clone(&ctx.engine);
    let graph = engine.shared.graph(agent)?;
    let Some(store) = engine.store.as_ref() else {
        return Err(GraphError::NoSession);
    };
    let checkpoints = Arc::new(StoreCheckpoints {
        session: store.session.clone().with_source(Source::GRAPH),
        writer: store.writer.clone(),
    });
    let mut host = EngineHost {
        model: ctx.options.model.clone(),
        flag: ctx.options.context_mode,
        definition: agent.clone(),
        store: Arc::clone(&checkpoints),
        ctx,
    };
    let mut driver = Driver {
        host: &mut host,
        checkpoints: Some(checkpoints),
        graph,
        nest: None,
    };
    let (outcome, last) = driver.drive(at, trace).await?;
    let result = last.result.ok_or_else(|| GraphError::Finished {
        graph: outcome.graph.clone(),
        session: outcome.session_id.clone(),
        branch: outcome.branch,
        step: outcome.step,
        reason: outcome.reason.clone(),
    })?;
    Ok((outcome, result))
}

impl Driver<'_> {
    /// Runs the graph from `at`; every failure is also a `graph_failed` event.
    pub(super) async fn drive(
        &mut self,
        at: StartAt,
        parent: Option<TraceContext>,
    ) -> Result<(GraphOutcome, Last), GraphError> {
        let mut span = self.host.begin_trace(self.graph.name(), parent.as_ref());
        let result = self.run(at, &mut span).await;
        if let Err(error) = &result {
            self.emit(|| GraphEvent::GraphFailed {
                node: error.node().map(str::to_owned),
                error: error.to_string(),
            });
        }
        if let Some(span) = span {
            span.end(result.as_ref().err().map(ToString::to_string).as_deref());
        }
        result
    }

    /// The session the run is recorded in (empty without a store).
    pub(super) fn session_id(&self) -> &str {
        self.checkpoints
            .as_ref()
            .map_or("", |checkpoints| checkpoints.session_id())
    }

    async fn run(
        &mut self,
        at: StartAt,
        span: &mut Option<OpenSpan>,
    ) -> Result<(GraphOutcome, Last), GraphError> {
        let (position, start) = self.start(at).await?;
        if let Some(SpanDetail::Graph { branch, .. }) = span.as_mut().map(OpenSpan::detail_mut) {
            *branch = position.branch;
        }
        let trace = span.as_ref().map(OpenSpan::context);
        let Some(next) = position.next.clone() else {
            return Err(self.finished_error(&position));
        };
        self.emit(|| GraphEvent::GraphStarted {
            graph: self.graph.name().to_owned(),
            session_id: self.session_id().to_owned(),
            branch: position.branch,
            from_step: position.step,
            next,
            start,
        });
        let (position, last) = self.walk(position, trace.as_ref()).await?;
        let reason = position.end_reason.clone().unwrap_or_default();
        let Some(last) = last else {
            return Err(self.finished_error(&position));
        };
        let state = Value::Object(position.state);
        self.emit(|| GraphEvent::GraphFinished {
            reason: reason.clone(),
            last_node: last.node.clone(),
            output: last.output.clone(),
            state: state.clone(),
        });
        let outcome = GraphOutcome {
            graph: self.graph.name().to_owned(),
            session_id: self.session_id().to_owned(),
            branch: position.branch,
            step: position.step,
            reason,
            last_node: last.node.clone(),
            text: last.text.clone(),
            output: last.output.clone(),
            state,
        };
        Ok((outcome, last))
    }

    /// Runs nodes from `position` until the graph ends (no next node); returns where it
    /// ended and the last node run (`None` when none ran).
    pub(super) async fn walk(
        &mut self,
        mut position: Position,
        trace: Option<&TraceContext>,
    ) -> Result<(Position, Option<Last>), GraphError> {
        let mut last: Option<Last> = None;
        loop {
            let mut map = None;
            let mut sub = None;
            match position.parallel.take() {
                Some(Parallel::Fanout(fanout)) => {
                    let (at_join, done) = self.run_branches(position, fanout, trace).await?;
                    position = at_join;
                    last = done.or(last);
                    continue;
                }
                Some(Parallel::Map(run)) => map = Some(run),
                Some(Parallel::Subgraph(run)) => sub = Some(run),
                None => {}
            }
            let Some(name) = position.next.clone() else {
                break;
            };
            if position.step >= self.graph.max_steps() {
                return Err(GraphError::StepLimit {
                    graph: self.graph.name().to_owned(),
                    limit: self.graph.max_steps(),
                    path: self.path(position.branch).await?,
                });
            }
            let graph = Arc::clone(&self.graph);
            let node = graph.node(&name).ok_or_else(|| GraphError::UnknownNode {
                graph: graph.name().to_owned(),
                node: name.clone(),
            })?;
            if node.graph.is_some() {
                let (after, done) = self.run_subgraph(position, node, sub, trace).await?;
                position = after;
                last = Some(done);
                continue;
            }
            if node.map.is_some() {
                let (after, done) = self.run_map(position, node, map, trace).await?;
                position = after;
                last = done.or(last);
                continue;
            }
            let step = position.step + 1;
            let job = NodeJob::new(&graph, &name, step, position.state.clone(), trace)?;
            let (done, run) = self.host.run_node(job).await?;
            position = self
                .advance(node, step, position, &done.output, run)
                .await?;
            last = Some(done);
        }
        Ok((position, last))
    }

    /// After a node: its output into the state, the edge taken, the checkpoint written.
    pub(super) async fn advance(
        &mut self,
        node: &GraphNode,
        step: u32,
        mut position: Position,
        answer: &Value,
        run: NodeRun,
    ) -> Result<Position, GraphError> {
        let key = node.output_key();
        let output = state_update(key, answer);
        write_key(
            &mut position.state,
            key,
            output.clone(),
            self.graph.reducer(key),
        );
        self.emit(|| GraphEvent::NodeFinished {
            step,
            node: node.name.clone(),
            agents: run.agents.clone(),
            output_key: key.to_owned(),
            output: output.clone(),
        });
        let transition = self
            .transition(&position.state, &node.name, step, &output)
            .await?;
        let reason = edge_reason(&transition);
        let fanout = match transition.edge.and_then(|edge| self.graph.join_of(edge)) {
            Some(join) if !transition.parallel.is_empty() => {
                Some(Fanout::new(&node.name, join, &transition.parallel))
            }
            _ => None,
        };
        self.emit(|| GraphEvent::EdgeTaken {
            from: node.name.clone(),
            to: match (&fanout, &transition.to) {
                (Some(_), _) => format!("[{}]", transition.parallel.join(", ")),
                (None, Some(to)) => to.clone(),
                (None, None) => GRAPH_END.to_owned(),
            },
            condition: transition.condition.clone(),
            reason: reason.clone(),
        });
        let saved = Saved {
            step,
            node: node.name.clone(),
            run: None,
            next: match &fanout {
                Some(fanout) => Some(fanout.join.clone()),
                None => transition.to,
            },
            reason,
        };
        self.save(position, saved.with_run(run), fanout.map(Parallel::Fanout))
            .await
    }

    /// Writes the checkpoint of `saved` with the position's state (and the records of what
    /// runs side by side, `parallel`); returns the position it leaves. Without a
    /// checkpointer nothing is written and nothing is read back.
    pub(super) async fn save(
        &mut self,
        position: Position,
        saved: Saved,
        parallel: Option<Parallel>,
    ) -> Result<Position, GraphError> {
        if self.nest.is_some() {
            return self.save_nested(position, saved, parallel).await;
        }
        let Some(checkpoints) = &self.checkpoints else {
            return Ok(Position::unsaved(
                position.branch,
                position.state,
                saved,
                parallel,
            ));
        };
        let checkpoint = checkpoints
            .write(Checkpoint {
                branch: position.branch,
                step: saved.step,
                node: saved.node,
                run: saved.run,
                next: saved.next,
                reason: saved.reason,
                state: Value::Object(position.state),
                parallel: parallel.as_ref().map(record),
            })
            .await?;
        self.emit(|| GraphEvent::CheckpointSaved {
            branch: checkpoint.branch,
            step: checkpoint.step,
            next: checkpoint.next.clone(),
        });
        Ok(Position::of(checkpoint))
    }

    /// The checkpoint the run starts from, written for a new run or a fork. Without a
    /// checkpointer a run can only start anew.
    async fn start(&self, at: StartAt) -> Result<(Position, GraphStart), GraphError> {
        let graph = self.graph.name().to_owned();
        let entry = self.graph.entry().name.clone();
        let Some(checkpoints) = &self.checkpoints else {
            let StartAt::New(input) = at else {
                return Err(GraphError::NotCheckpointed { graph });
            };
            let mut state = Map::new();
            state.insert(INPUT_KEY.to_owned(), Value::String(input));
            let position = Position {
                branch: 0,
                step: 0,
                next: Some(entry),
                state,
                end_reason: None,
                parallel: None,
            };
            return Ok((position, GraphStart::New));
        };
        let (checkpoint, start) = checkpoints.start(graph, entry, at).await?;
        Ok((Position::of(checkpoint), start))
    }

    /// Where the graph goes after `node` wrote `output`: its edges tried with the variables
    /// conditions read — the host's outside state (the session's) overlaid with the graph
    /// state — built only when one of them has a condition.
    pub(super) async fn transition(
        &self,
        state: &Map<String, Value>,
        node: &str,
        step: u32,
        output: &Value,
    ) -> Result<Transition, GraphError> {
        let variables = if self.graph.reads_state(node) {
            let mut merged = self.host.outside_state().await?;
            merged.extend(
                state
                    .iter()
                    .map(|(key, value)| (key.clone(), value.clone())),
            );
            graph_variables(&merged, node, step, Some(output))
        } else {
            Map::new()
        };
        self.graph
            .next(node, &variables)
            .map_err(|source| GraphError::Condition {
                graph: self.graph.name().to_owned(),
                source,
            })
    }

    /// The nodes the branch ran, in order, for the step-limit message (none recorded without
    /// a checkpointer).
    async fn path(&self, branch: u32) -> Result<Vec<String>, GraphError> {
        match &self.checkpoints {
            Some(checkpoints) => checkpoints.path(branch).await,
            None => Ok(Vec::new()),
        }
    }

    fn finished_error(&self, position: &Position) -> GraphError {
        GraphError::Finished {
            graph: self.graph.name().to_owned(),
            session: self.session_id().to_owned(),
            branch: position.branch,
            step: position.step,
            reason: position.end_reason.clone().unwrap_or_default(),
        }
    }

    /// Emits the event `event` builds, when the host reads events.
    pub(super) fn emit(&self, event: impl FnOnce() -> GraphEvent) {
        if self.host.wants_events() {
            self.host.emit(event());
        }
    }
}

/// The `parallel` column's record of `parallel`.
pub(super) fn record(parallel: &Parallel) -> Value {
    serde_json::to_value(parallel).unwrap_or(Value::Null)
}
