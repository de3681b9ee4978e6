//! The driver of one graph run: from a starting checkpoint, node after node, until `END`, no
//! edge, a failure or the step limit. Each node is an agent turn of the session engine (its
//! agent, then whoever it hands off to), its events framed as the node's; every store read and
//! write goes through the session's store thread.

use super::parts::{INPUT_KEY, branch_of, edge_reason, node_prompt};
use crate::engine::{AgentOutcome, Frame, Lead, TurnCtx};
use crate::error::GraphError;
use crate::error::SessionError;
use crate::graph_run::{GraphOutcome, StartAt};
use crate::session::SessionHandle;
use agentctl_core::{
    AgentDefinition, ContextMode, GRAPH_END, GraphEvent, GraphNode, GraphStart, RunError,
    RunResult, SpanDetail, TraceContext,
};
use agentctl_guardrails::extract_json;
use agentctl_routing::{Graph, graph_variables};
use agentctl_store::{GraphCheckpoint, NewCheckpoint, Source, TraceLog};
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
    };
    driver.drive(at, trace).await
}

/// Runs a graph of agents in a session, node by node.
struct Driver<'c> {
    ctx: &'c mut TurnCtx,
    graph: Graph,
    /// The graph agent's definition (its `tracing:`).
    definition: AgentDefinition,
    /// The session, its runs recorded as the graph's.
    session: SessionHandle,
    writer: crate::engine::StoreWriter,
    /// Every node's model, over its agent's (`--model`).
    model: Option<String>,
    /// Every node's context mode, over its agent's (`--context`).
    flag: Option<ContextMode>,
}

/// Where the run is: the last checkpoint it wrote or started from.
struct Position {
    branch: u32,
    step: u32,
    next: Option<String>,
    state: Map<String, Value>,
    end_reason: Option<String>,
}

impl Position {
    fn of(checkpoint: GraphCheckpoint) -> Self {
        let end_reason = match checkpoint.next {
            None => checkpoint.reason,
            Some(_) => None,
        };
        Self {
            branch: checkpoint.branch,
            step: checkpoint.step,
            next: checkpoint.next,
            state: match checkpoint.state {
                Value::Object(state) => state,
                _ => Map::new(),
            },
            end_reason,
        }
    }
}

/// The last node run: its name, answer, output and run result.
struct Last {
    node: String,
    text: String,
    output: Value,
    result: RunResult,
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
        let (mut position, start) = self.start(at).await?;
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
        let mut last: Option<Last> = None;
        while let Some(name) = position.next.clone() {
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
            let step = position.step + 1;
            let (done, run) = self
                .run_node(&node, step, &position.state, trace.as_ref())
                .await?;
            position = self.advance(&node, step, position, &done, run).await?;
            last = Some(done);
        }
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

    /// After a node: its output into the state, the edge taken, the checkpoint written.
    async fn advance(
        &mut self,
        node: &GraphNode,
        step: u32,
        mut position: Position,
        done: &Last,
        run: NodeRun,
    ) -> Result<Position, GraphError> {
        let key = node.output_key();
        let output = state_update(key, &done.output);
        position.state.insert(key.to_owned(), output.clone());
        self.emit(GraphEvent::NodeFinished {
            step,
            node: node.name.clone(),
            agents: run.agents,
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
        self.emit(GraphEvent::EdgeTaken {
            from: node.name.clone(),
            to: transition
                .to
                .clone()
                .unwrap_or_else(|| GRAPH_END.to_owned()),
            condition: transition.condition.clone(),
            reason: reason.clone(),
        });
        let state = Value::Object(position.state);
        let (branch, name) = (position.branch, node.name.clone());
        let next = transition.to.clone();
        let checkpoint = self
            .store(move |session| {
                Ok(session.store().write_checkpoint(&NewCheckpoint {
                    session: session.id(),
                    branch,
                    step,
                    node: &name,
                    run: run.run_id,
                    next: next.as_deref(),
                    reason: Some(&reason),
                    state: &state,
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

    /// Runs `node`'s agent (and whoever it hands off to) on the input and the state.
    async fn run_node(
        &mut self,
        node: &GraphNode,
        step: u32,
        state: &Map<String, Value>,
        trace: Option<&TraceContext>,
    ) -> Result<(Last, NodeRun), GraphError> {
        let span = trace.map(|trace| {
            let detail = SpanDetail::Node {
                graph: self.graph.name().to_owned(),
                node: node.name.clone(),
                agent: node.agent.clone(),
                step,
            };
            OpenSpan::start(trace, Some(&node.agent), detail)
        });
        let result = self.run_node_traced(node, step, state, span.as_ref()).await;
        if let Some(span) = span {
            span.end(result.as_ref().err().map(ToString::to_string).as_deref());
        }
        result
    }

    async fn run_node_traced(
        &mut self,
        node: &GraphNode,
        step: u32,
        state: &Map<String, Value>,
        span: Option<&OpenSpan>,
    ) -> Result<(Last, NodeRun), GraphError> {
        let setup = |error| GraphError::NodeSetup {
            node: node.name.clone(),
            source: Box::new(error),
        };
        let agent = self
            .ctx
            .engine
            .shared
            .require_agent(&node.agent)
            .map_err(setup)?;
        self.emit(GraphEvent::NodeStarted {
            step,
            node: node.name.clone(),
            agent: node.agent.clone(),
        });
        // A node is a function of the request and the state: without a mode of its own, its
        // agent starts fresh each time (`run`), so a revisit or a fork never sees turns of
        // another branch.
        let flag = match agent.spec.context_mode {
            None => self.flag.or(Some(ContextMode::Run)),
            Some(_) => self.flag,
        };
        let lead = Lead {
            prompt: node_prompt(self.graph.name(), node, step, state),
            agent,
            main: false,
            flag,
            model: self.model.clone(),
            frame: Frame::Node(node.name.clone()),
            trace: span.map(OpenSpan::context),
            source: Some(Source::GRAPH),
        };
        let AgentOutcome {
            result,
            agents,
            first_run,
        } = self.ctx.agent_turn(lead).await;
        let result = result.map_err(|error| match error {
            SessionError::Run(RunError::Cancelled) => GraphError::Cancelled,
            SessionError::Run(source) => GraphError::NodeFailed {
                node: node.name.clone(),
                agent: node.agent.clone(),
                source: Box::new(source),
            },
            SessionError::NotSaved(error) => GraphError::Store(error),
            other => setup(other),
        })?;
        // Masked here, once: the state feeds the events, the checkpoints and the next
        // node's prompt, and none of them may carry a secret the answer echoed.
        let secrets = self.ctx.engine.shared.builder.secrets();
        let text = secrets.redact(&result.text).into_owned();
        let mut output = match extract_json(&text) {
            Ok((value, _)) => value,
            Err(_) => Value::String(text.clone()),
        };
        secrets.redact_json(&mut output);
        let last = Last {
            node: node.name.clone(),
            text,
            output,
            result,
        };
        let run = NodeRun {
            run_id: first_run,
            agents,
        };
        Ok((last, run))
    }

    /// The variables edge conditions read: the session state, overlaid with the graph state.
    async fn variables(
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

    fn emit(&self, event: GraphEvent) {
        self.ctx.sink.emit(crate::engine::EventMsg::Graph(event));
    }
}

/// A node's run: its first store run and the agents that worked on it.
struct NodeRun {
    run_id: Option<i64>,
    agents: Vec<String>,
}

/// What a node's answer sets under its output `key`: the answer, or — when it is an object
/// with `key` as its only field, a LangGraph-style state update such as `{"analysis": {…}}` —
/// that field's value.
fn state_update(key: &str, answer: &Value) -> Value {
    match answer {
        Value::Object(fields) if fields.len() == 1 => {
            fields.get(key).cloned().unwrap_or_else(|| answer.clone())
        }
        _ => answer.clone(),
    }
}
