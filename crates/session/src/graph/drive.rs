//! The driver of one graph run: from a starting checkpoint, node after node, until `END`, no
//! edge, a failure or the step limit.

use super::error::GraphError;
use super::{GraphOutcome, StartAt};
use crate::runner::SessionRunner;
use crate::session::SessionHandle;
use agentctl_context::{GraphCheckpoint, NewCheckpoint, Source, TraceLog};
use agentctl_core::{
    ContextMode, GRAPH_END, GraphEvent, GraphNode, GraphStart, RunError, RunOptions, SpanDetail,
    TraceContext,
};
use agentctl_guardrails::extract_json;
use agentctl_routing::{Graph, Transition, graph_variables};
use agentctl_trace::OpenSpan;
use futures_util::StreamExt as _;
use serde_json::{Map, Value};
use std::fmt::Write as _;
use std::sync::Arc;
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

/// The state key of the graph's input.
pub(super) const INPUT_KEY: &str = "input";

/// Everything a graph run needs; consumed by [`Driver::drive`].
pub(super) struct Driver<'r> {
    pub(super) runner: &'r SessionRunner,
    pub(super) graph: Graph,
    pub(super) session: SessionHandle,
    pub(super) options: RunOptions,
    pub(super) events: UnboundedSender<GraphEvent>,
    pub(super) cancel: CancellationToken,
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

impl<'r> Driver<'r> {
    /// Runs the graph from `at`; every failure is also a `graph_failed` event.
    pub(super) async fn drive(self, at: StartAt) -> Result<GraphOutcome, GraphError> {
        let mut span = self.begin_trace();
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

    /// The graph run's root span, when traced: by the graph definition's `tracing:`, else the
    /// settings.
    fn begin_trace(&self) -> Option<OpenSpan> {
        let spec = self
            .runner
            .require_agent(self.graph.name())
            .ok()
            .and_then(|definition| definition.spec.tracing);
        let store = Arc::clone(self.session.store()) as Arc<dyn TraceLog>;
        let detail = SpanDetail::Graph {
            graph: self.graph.name().to_owned(),
            branch: 0,
        };
        self.runner
            .tracing()
            .begin(spec.as_ref(), Some((store, self.session.id())), detail)
    }

    async fn run(
        &self,
        at: StartAt,
        span: &mut Option<OpenSpan>,
    ) -> Result<GraphOutcome, GraphError> {
        let (mut position, start) = self.start(at)?;
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
        let mut last: Option<(String, String, Value)> = None;
        while let Some(name) = position.next.clone() {
            if position.step >= self.graph.max_steps() {
                return Err(GraphError::StepLimit {
                    graph: self.graph.name().to_owned(),
                    limit: self.graph.max_steps(),
                    path: self.path(position.branch)?,
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
            let (text, output, run) = self
                .run_node(&node, step, &position.state, trace.as_ref())
                .await?;
            position
                .state
                .insert(node.output_key().to_owned(), output.clone());
            self.emit(GraphEvent::NodeFinished {
                step,
                node: node.name.clone(),
                agents: run.agents.clone(),
                output_key: node.output_key().to_owned(),
                output: output.clone(),
            });
            let variables = self.variables(&position.state, &node.name, step, &output)?;
            let transition = self.graph.next(&node.name, &variables).map_err(|source| {
                GraphError::Condition {
                    graph: self.graph.name().to_owned(),
                    source,
                }
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
            let state = Value::Object(position.state.clone());
            let checkpoint = self.session.store().write_checkpoint(&NewCheckpoint {
                session: self.session.id(),
                branch: position.branch,
                step,
                node: &node.name,
                run: run.run_id,
                next: transition.to.as_deref(),
                reason: Some(&reason),
                state: &state,
            })?;
            self.emit(GraphEvent::CheckpointSaved {
                branch: checkpoint.branch,
                step: checkpoint.step,
                next: checkpoint.next.clone(),
            });
            position = Position::of(checkpoint);
            last = Some((node.name.clone(), text, output));
        }
        let reason = position.end_reason.clone().unwrap_or_default();
        let (last_node, text, output) = match last {
            Some(last) => last,
            None => return Err(self.finished_error(&position)),
        };
        let state = Value::Object(position.state);
        self.emit(GraphEvent::GraphFinished {
            reason: reason.clone(),
            last_node: last_node.clone(),
            output: output.clone(),
            state: state.clone(),
        });
        Ok(GraphOutcome {
            graph: self.graph.name().to_owned(),
            session_id: self.session.id().to_owned(),
            branch: position.branch,
            step: position.step,
            reason,
            last_node,
            text,
            output,
            state,
        })
    }

    /// The checkpoint the run starts from, written for a new run or a fork.
    fn start(&self, at: StartAt) -> Result<(Position, GraphStart), GraphError> {
        let store = self.session.store();
        let session = self.session.id();
        match at {
            StartAt::New(input) => {
                let mut state = Map::new();
                state.insert(INPUT_KEY.to_owned(), Value::String(input));
                let checkpoint = store.start_graph(
                    session,
                    self.graph.name(),
                    &Value::Object(state),
                    &self.graph.entry().name,
                )?;
                Ok((Position::of(checkpoint), GraphStart::New))
            }
            StartAt::Resume(branch) => {
                let branch = self.branch(branch)?;
                // The run of a killed process can never finish: mark it before running again.
                store.interrupt_stale_runs(session)?;
                let checkpoint = store.latest_checkpoint(session, branch)?.ok_or_else(|| {
                    GraphError::NoCheckpoint {
                        session: session.to_owned(),
                    }
                })?;
                Ok((Position::of(checkpoint), GraphStart::Resumed))
            }
            StartAt::Fork(branch, step) => {
                let branch = self.branch(branch)?;
                let checkpoint = store.fork_graph(session, branch, step)?;
                Ok((Position::of(checkpoint), GraphStart::Forked))
            }
        }
    }

    /// `branch`, checked to be this graph's, or the newest branch of this graph.
    fn branch(&self, branch: Option<u32>) -> Result<u32, GraphError> {
        let found = super::find_branch(&self.session, branch, Some(self.graph.name()))?;
        if found.graph != self.graph.name() {
            return Err(GraphError::OtherGraph {
                session: self.session.id().to_owned(),
                branch: found.branch,
                recorded: found.graph,
                given: self.graph.name().to_owned(),
            });
        }
        Ok(found.branch)
    }

    /// Runs `node`'s agent (and whoever it hands off to) on the input and the state.
    async fn run_node(
        &self,
        node: &GraphNode,
        step: u32,
        state: &Map<String, Value>,
        trace: Option<&TraceContext>,
    ) -> Result<(String, Value, NodeRun), GraphError> {
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
        &self,
        node: &GraphNode,
        step: u32,
        state: &Map<String, Value>,
        span: Option<&OpenSpan>,
    ) -> Result<(String, Value, NodeRun), GraphError> {
        let failed = |source: RunError| match source {
            RunError::Cancelled => GraphError::Cancelled,
            source => GraphError::NodeFailed {
                node: node.name.clone(),
                agent: node.agent.clone(),
                source: Box::new(source),
            },
        };
        let agent =
            self.runner
                .require_agent(&node.agent)
                .map_err(|error| GraphError::NodeSetup {
                    node: node.name.clone(),
                    source: Box::new(error),
                })?;
        self.emit(GraphEvent::NodeStarted {
            step,
            node: node.name.clone(),
            agent: node.agent.clone(),
        });
        let setup = |error| GraphError::NodeSetup {
            node: node.name.clone(),
            source: Box::new(error),
        };
        let mut options = self.options.clone();
        options.trace = span.map(OpenSpan::context);
        if agent.spec.context_mode.is_none() {
            // A node is a function of the request and the state: without a mode of its own,
            // its agent starts fresh each time (`run`), so a revisit or a fork never sees
            // turns of another branch.
            options.context_mode = options.context_mode.or(Some(ContextMode::Run));
        }
        let (mut conversation, warnings) = self
            .runner
            .conversation(
                agent,
                Some(self.session.clone().with_source(Source::GRAPH)),
                options,
            )
            .await
            .map_err(setup)?;
        for warning in warnings {
            self.emit(GraphEvent::Warning {
                node: node.name.clone(),
                message: warning.to_string(),
            });
        }
        let prompt = node_prompt(self.graph.name(), node, step, state);
        let mut turn = conversation.turn(&prompt).await.map_err(setup)?;
        let run_id = turn.run_id().parse().ok();
        let cancel = turn.cancellation_token();
        loop {
            tokio::select! {
                event = turn.next() => match event {
                    Some(event) => self.emit(GraphEvent::Run { node: node.name.clone(), event }),
                    None => break,
                },
                () = self.cancel.cancelled(), if !cancel.is_cancelled() => cancel.cancel(),
            }
        }
        let outcome = turn.finish().await;
        if let Some(error) = outcome.save_error {
            return Err(GraphError::Store(error));
        }
        let result = outcome.result.map_err(failed)?;
        // Masked here, once: the state feeds the events, the checkpoints and the next
        // node's prompt, and none of them may carry a secret the answer echoed.
        let secrets = self.runner.builder().secrets();
        let text = secrets.redact(&result.text).into_owned();
        let mut output = match extract_json(&text) {
            Ok((value, _)) => value,
            Err(_) => Value::String(text.clone()),
        };
        secrets.redact_json(&mut output);
        Ok((
            text,
            output,
            NodeRun {
                run_id,
                agents: outcome.agents,
            },
        ))
    }

    /// The variables edge conditions read: the session state, overlaid with the graph state.
    fn variables(
        &self,
        state: &Map<String, Value>,
        node: &str,
        step: u32,
        output: &Value,
    ) -> Result<Map<String, Value>, GraphError> {
        let mut merged: Map<String, Value> = self
            .session
            .store()
            .session_state(self.session.id())?
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
    fn path(&self, branch: u32) -> Result<Vec<String>, GraphError> {
        Ok(self
            .session
            .store()
            .graph_history(self.session.id(), branch)?
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
        // The receiver is the run's own stream: it is gone only when the run is dropped.
        let _ = self.events.send(event);
    }
}

/// A node's run: its first store run and the agents that worked on it.
struct NodeRun {
    run_id: Option<i64>,
    agents: Vec<String>,
}

/// Why the graph went where it did, as the seed's replay shows it: `analysis.can_auto_fix =
/// true` for a condition that held, `default edge` for an edge without one, else why no edge
/// was taken.
fn edge_reason(transition: &Transition) -> String {
    match (transition.edge, &transition.condition) {
        (Some(_), Some(condition)) => format!("{condition} = true"),
        (Some(_), None) => "default edge".to_owned(),
        (None, _) => transition.reason(),
    }
}

/// What a node's agent is asked: the graph's input, then the state so far (without the
/// input), so each agent sees what the nodes before it concluded.
fn node_prompt(graph: &str, node: &GraphNode, step: u32, state: &Map<String, Value>) -> String {
    let input = state
        .get(INPUT_KEY)
        .and_then(Value::as_str)
        .unwrap_or_default();
    let rest: Map<String, Value> = state
        .iter()
        .filter(|(key, _)| key.as_str() != INPUT_KEY)
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect();
    let mut prompt = input.to_owned();
    if !rest.is_empty() {
        let pretty = serde_json::to_string_pretty(&rest).unwrap_or_default();
        let _ = write!(
            prompt,
            "\n\n---\nGraph `{graph}`, node `{}` (step {step}). The state so far — what the \
             nodes before you concluded:\n```json\n{pretty}\n```",
            node.name
        );
    }
    prompt
}
