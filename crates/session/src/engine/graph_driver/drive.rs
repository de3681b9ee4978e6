//! The driver of one graph run: from a starting checkpoint, node after node, until `END`, no
//! edge, a failure or the step limit. Each node is an agent turn of the session engine (its
//! agent, then whoever it hands off to), its events framed as the node's; every store read and
//! write goes through the session's store thread.

use super::driver::{Driver, Position, Saved};
use super::lanes::{Fanout, Parallel};
use super::node::{Last, NodeJob, NodeRun, state_update};
use super::parts::{INPUT_KEY, branch_of, edge_reason, write_key};
use crate::engine::TurnCtx;
use crate::error::GraphError;
use crate::graph_run::{GraphOutcome, StartAt};
use crate::session::SessionHandle;
use agentctl_core::{
    AgentDefinition, GRAPH_END, GraphEvent, GraphNode, GraphStart, RunResult, SpanDetail,
    TraceContext,
};
use agentctl_routing::graph_variables;
use agentctl_store::{NewCheckpoint, Source, TraceLog};
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
    let graph = crate::graph_run::compile(agent)?;
    let engine = Arc::clone(&ctx.engine);
    let Some(store) = engine.store.as_ref() else {
        return Err(GraphError::NoSession);
    };
    let mut driver = Driver {
        session: store.session.clone().with_source(Source::GRAPH),
        writer: store.writer.clone(),
        model: ctx.options.model.clone(),
        flag: ctx.options.context_mode,
        definition: agent.clone(),
        graph,
        ctx,
        nest: None,
    };
    driver.drive(at, trace).await
}

impl Driver<'_> {
    /// Runs the graph from `at`; every failure is also a `graph_failed` event.
    async fn drive(
        &mut self,
        at: StartAt,
        parent: Option<TraceContext>,
    ) -> Result<(GraphOutcome, RunResult), GraphError> {
        let mut span = self.begin_trace(parent.as_ref());
        let result = self.run(at, &mut span).await;
        if let Err(error) = &result {
            self.emit(GraphEvent::GraphFailed {
                node: error.node().map(str::to_owned),
                error: error.to_string(),
            });
        }
        if let Some(span) = span {
            span.end(result.as_ref().err().map(ToString::to_string).as_deref());
        }
        result
    }

    /// The graph run's span: under `parent` (a sub-agent's call), else its own root when
    /// traced — by the graph definition's `tracing:`, else the settings.
    fn begin_trace(&self, parent: Option<&TraceContext>) -> Option<OpenSpan> {
        let detail = SpanDetail::Graph {
            graph: self.graph.name().to_owned(),
            branch: 0,
        };
        if let Some(parent) = parent {
            return Some(OpenSpan::start(parent, Some(self.graph.name()), detail));
        }
        let store = Arc::clone(self.session.store()) as Arc<dyn TraceLog>;
        self.ctx.engine.shared.tracing.begin(
            self.definition.spec.tracing.as_ref(),
            Some((store, self.session.id())),
            detail,
        )
    }

    /// Runs `job` with the session on the store thread.
    async fn store<T: Send + 'static>(
        &self,
        job: impl FnOnce(&SessionHandle) -> Result<T, GraphError> + Send + 'static,
    ) -> Result<T, GraphError> {
        let session = self.session.clone();
        self.writer.call(move |_| job(&session)).await
    }

    async fn run(
        &mut self,
        at: StartAt,
        span: &mut Option<OpenSpan>,
    ) -> Result<(GraphOutcome, RunResult), GraphError> {
        let (position, start) = self.start(at).await?;
        if let Some(SpanDetail::Graph { branch, .. }) = span.as_mut().map(OpenSpan::detail_mut) {
            *branch = position.branch;
        }
        let trace = span.as_ref().map(OpenSpan::context);
        let Some(next) = position.next.clone() else {
            return Err(self.finished_error(&position));
        };
        self.emit(GraphEvent::GraphStarted {
            graph: self.graph.name().to_owned(),
            session_id: self.session.id().to_owned(),
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
        self.emit(GraphEvent::GraphFinished {
            reason: reason.clone(),
            last_node: last.node.clone(),
            output: last.output.clone(),
            state: state.clone(),
        });
        let outcome = GraphOutcome {
            graph: self.graph.name().to_owned(),
            session_id: self.session.id().to_owned(),
            branch: position.branch,
            step: position.step,
            reason,
            last_node: last.node,
            text: last.text,
            output: last.output,
            state,
        };
        Ok((outcome, last.result))
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
            let node = self
                .graph
                .node(&name)
                .ok_or_else(|| GraphError::UnknownNode {
                    graph: self.graph.name().to_owned(),
                    node: name.clone(),
                })?
                .clone();
            if node.graph.is_some() {
                let (after, done) = self.run_subgraph(position, &node, sub, trace).await?;
                position = after;
                last = Some(done);
                continue;
            }
            if node.map.is_some() {
                let (after, done) = self.run_map(position, &node, map, trace).await?;
                position = after;
                last = done.or(last);
                continue;
            }
            let step = position.step + 1;
            let job = NodeJob {
                graph: self.graph.name().to_owned(),
                node: node.clone(),
                step,
                state: position.state.clone(),
                trace: trace.cloned(),
                model: self.model.clone(),
                flag: self.flag,
            };
            let (done, run) = job.run(self.ctx).await?;
            position = self
                .advance(&node, step, position, &done.output, run)
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
        self.emit(GraphEvent::NodeFinished {
            step,
            node: node.name.clone(),
            agents: run.agents.clone(),
            output_key: key.to_owned(),
            output: output.clone(),
        });
        let variables = self
            .variables(&position.state, &node.name, step, &output)
            .await?;
        let transition =
            self.graph
                .next(&node.name, &variables)
                .map_err(|source| GraphError::Condition {
                    graph: self.graph.name().to_owned(),
                    source,
                })?;
        let reason = edge_reason(&transition);
        let fanout = match transition.edge.and_then(|edge| self.graph.join_of(edge)) {
            Some(join) if !transition.parallel.is_empty() => {
                Some(Fanout::new(&node.name, join, &transition.parallel))
            }
            _ => None,
        };
        let to = match (&fanout, &transition.to) {
            (Some(_), _) => format!("[{}]", transition.parallel.join(", ")),
            (None, Some(to)) => to.clone(),
            (None, None) => GRAPH_END.to_owned(),
        };
        self.emit(GraphEvent::EdgeTaken {
            from: node.name.clone(),
            to,
            condition: transition.condition.clone(),
            reason: reason.clone(),
        });
        let saved = Saved {
            step,
            node: node.name.clone(),
            run: None,
            next: match &fanout {
                Some(fanout) => Some(fanout.join.clone()),
                None => transition.to.clone(),
            },
            reason,
        };
        let record = fanout.map(|fanout| serde_json::json!({ "fanout": fanout }));
        self.save(position, saved.with_run(run), record).await
    }

    /// Writes the checkpoint of `saved` with the position's state (and the branches'
    /// statuses while `parallel` ones run); returns the position it leaves.
    pub(super) async fn save(
        &mut self,
        position: Position,
        saved: Saved,
        parallel: Option<Value>,
    ) -> Result<Position, GraphError> {
        if self.nest.is_some() {
            return self.save_nested(position, saved, parallel).await;
        }
        let state = Value::Object(position.state);
        let branch = position.branch;
        let checkpoint = self
            .store(move |session| {
                Ok(session.store().write_checkpoint(&NewCheckpoint {
                    session: session.id(),
                    branch,
                    step: saved.step,
                    node: &saved.node,
                    run: saved.run,
                    next: saved.next.as_deref(),
                    reason: Some(&saved.reason),
                    state: &state,
                    parallel: parallel.as_ref(),
                })?)
            })
            .await?;
        self.emit(GraphEvent::CheckpointSaved {
            branch: checkpoint.branch,
            step: checkpoint.step,
            next: checkpoint.next.clone(),
        });
        Ok(Position::of(checkpoint))
    }

    /// The checkpoint the run starts from, written for a new run or a fork.
    async fn start(&self, at: StartAt) -> Result<(Position, GraphStart), GraphError> {
        let graph = self.graph.name().to_owned();
        let entry = self.graph.entry().name.clone();
        self.store(move |session| {
            let store = session.store();
            let id = session.id();
            match at {
                StartAt::New(input) => {
                    let mut state = Map::new();
                    state.insert(INPUT_KEY.to_owned(), Value::String(input));
                    let checkpoint =
                        store.start_graph(id, &graph, &Value::Object(state), &entry)?;
                    Ok((Position::of(checkpoint), GraphStart::New))
                }
                StartAt::Resume(branch) => {
                    let branch = branch_of(session, &graph, branch)?;
                    // The run of a killed process can never finish: mark it before running again.
                    store.interrupt_stale_runs(id)?;
                    let checkpoint = store.latest_checkpoint(id, branch)?.ok_or_else(|| {
                        GraphError::NoCheckpoint {
                            session: id.to_owned(),
                        }
                    })?;
                    Ok((Position::of(checkpoint), GraphStart::Resumed))
                }
                StartAt::Fork(branch, step) => {
                    let branch = branch_of(session, &graph, branch)?;
                    let checkpoint = store.fork_graph(id, branch, step)?;
                    Ok((Position::of(checkpoint), GraphStart::Forked))
                }
            }
        })
        .await
    }

    /// The variables edge conditions read: the session state, overlaid with the graph state.
    pub(super) async fn variables(
        &self,
        state: &Map<String, Value>,
        node: &str,
        step: u32,
        output: &Value,
    ) -> Result<Map<String, Value>, GraphError> {
        let mut merged: Map<String, Value> = self
            .store(|session| Ok(session.store().session_state(session.id())?))
            .await?
            .into_iter()
            .collect();
        merged.extend(
            state
                .iter()
                .map(|(key, value)| (key.clone(), value.clone())),
        );
        Ok(graph_variables(&merged, node, step, Some(output)))
    }

    /// The nodes the branch ran, in order, for the step-limit message.
    async fn path(&self, branch: u32) -> Result<Vec<String>, GraphError> {
        let history = self
            .store(move |session| Ok(session.store().graph_history(session.id(), branch)?))
            .await?;
        Ok(history
            .into_iter()
            .filter_map(|checkpoint| checkpoint.node)
            .collect())
    }

    fn finished_error(&self, position: &Position) -> GraphError {
        GraphError::Finished {
            graph: self.graph.name().to_owned(),
            session: self.session.id().to_owned(),
            branch: position.branch,
            step: position.step,
            reason: position.end_reason.clone().unwrap_or_default(),
        }
    }

    pub(super) fn emit(&self, event: GraphEvent) {
        self.ctx.sink.emit(crate::engine::EventMsg::Graph(event));
    }
}
