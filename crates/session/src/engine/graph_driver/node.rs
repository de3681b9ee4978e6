//! One node's run: its agent (and whoever it hands off to) asked the graph's input and the
//! state, its answer masked and parsed. The same job runs a node of the main line on the
//! turn's context and a node of a parallel branch on a context of its own.

use super::parts::node_prompt;
use crate::engine::{AgentOutcome, EventMsg, Frame, Lead, TurnCtx};
use crate::error::{GraphError, SessionError};
use agentctl_core::{
    ContextMode, GraphEvent, GraphNode, Redactor, RunError, RunResult, SpanDetail, TraceContext,
};
use agentctl_guardrails::extract_json;
use agentctl_routing::Graph;
use agentctl_store::Source;
use agentctl_trace::OpenSpan;
use serde_json::{Map, Value};
use std::sync::Arc;

/// A node to run, with everything it needs (owned, so a branch's job can move into its own
/// future): what a graph's host runs for every node visit.
pub struct NodeCall {
    pub(super) graph: Arc<Graph>,
    /// The node's index in the graph's nodes.
    pub(super) node: usize,
    pub(super) step: u32,
    /// The state the node sees.
    pub(super) state: Map<String, Value>,
    /// The span the node's own goes under.
    pub(super) trace: Option<TraceContext>,
}

/// The executor's name for a node to run.
pub(super) type NodeJob = NodeCall;

impl NodeCall {
    /// The node `name` of `graph` at `step`, seeing `state`.
    pub(super) fn new(
        graph: &Arc<Graph>,
        name: &str,
        step: u32,
        state: Map<String, Value>,
        trace: Option<&TraceContext>,
    ) -> Result<Self, GraphError> {
        let node = graph
            .nodes()
            .iter()
            .position(|node| node.name == name)
            .ok_or_else(|| GraphError::UnknownNode {
                graph: graph.name().to_owned(),
                node: name.to_owned(),
            })?;
        Ok(Self {
            graph: Arc::clone(graph),
            node,
            step,
            state,
            trace: trace.cloned(),
        })
    }

    /// The graph's name.
    pub fn graph(&self) -> &str {
        self.graph.name()
    }

    /// The node: its name, the agent it names, its output key …
    pub fn node(&self) -> &GraphNode {
        // `new` found the index in this graph's nodes.
        &self.graph.nodes()[self.node]
    }

    /// Node visits since the run's input, this one included.
    pub fn step(&self) -> u32 {
        self.step
    }

    /// The graph state the node sees: the input under `input`, each earlier node's output
    /// under its key (a branch's own writes, a map's element under its `as` name).
    pub fn state(&self) -> &Map<String, Value> {
        &self.state
    }

    /// The state, owned.
    pub fn into_state(self) -> Map<String, Value> {
        self.state
    }
}

/// The last node run: its name, answer, output and run result.
pub(super) struct Last {
    pub node: String,
    pub text: String,
    pub output: Value,
    /// The agent run's result (none for a node that is not an agent turn).
    pub result: Option<RunResult>,
}

/// A node's run: its first store run and the agents that worked on it.
pub(super) struct NodeRun {
    pub run_id: Option<i64>,
    pub agents: Vec<String>,
}

impl NodeJob {
    /// Runs the node's agent on `ctx` (every node's `model` and context mode `flag` over its
    /// agent's), inside a span of its own under the graph's.
    pub(super) async fn run(
        self,
        ctx: &mut TurnCtx,
        model: Option<String>,
        flag: Option<ContextMode>,
    ) -> Result<(Last, NodeRun), GraphError> {
        let node = self.node();
        let span = self.trace.as_ref().map(|trace| {
            let detail = SpanDetail::Node {
                graph: self.graph().to_owned(),
                node: node.name.clone(),
                agent: node.agent.clone(),
                step: self.step,
            };
            OpenSpan::start(trace, Some(&node.agent), detail)
        });
        let result = self.run_traced(ctx, span.as_ref(), model, flag).await;
        if let Some(span) = span {
            span.end(result.as_ref().err().map(ToString::to_string).as_deref());
        }
        result
    }

    async fn run_traced(
        &self,
        ctx: &mut TurnCtx,
        span: Option<&OpenSpan>,
        model: Option<String>,
        flag: Option<ContextMode>,
    ) -> Result<(Last, NodeRun), GraphError> {
        let node = self.node();
        if node.graph.is_some() {
            // The main line runs subgraph nodes itself, and validation refuses one in a branch.
            return Err(GraphError::SubgraphInBranch {
                graph: self.graph().to_owned(),
                node: node.name.clone(),
            });
        }
        let setup = |error| GraphError::NodeSetup {
            node: node.name.clone(),
            source: Box::new(error),
        };
        let agent = ctx
            .engine
            .shared
            .require_agent(&node.agent)
            .map_err(setup)?;
        ctx.sink.emit(EventMsg::Graph(GraphEvent::NodeStarted {
            step: self.step,
            node: node.name.clone(),
            agent: node.agent.clone(),
        }));
        // A node is a function of the request and the state: without a mode of its own, its
        // agent starts fresh each time (`run`), so a revisit, a fork or a parallel branch
        // never sees turns of another branch.
        let flag = match agent.spec.context_mode {
            None => flag.or(Some(ContextMode::Run)),
            Some(_) => flag,
        };
        let lead = Lead {
            prompt: node_prompt(self.graph(), node, self.step, &self.state),
            agent,
            main: false,
            flag,
            model,
            frame: Frame::Node(node.name.clone()),
            trace: span.map(OpenSpan::context),
            source: Some(Source::GRAPH),
        };
        let AgentOutcome {
            result,
            agents,
            first_run,
        } = ctx.agent_turn(lead).await;
        let result = result.map_err(|error| node_error(node, error))?;
        let (text, output) = masked_answer(ctx.engine.shared.builder.secrets(), &result.text);
        let last = Last {
            node: node.name.clone(),
            text,
            output,
            result: Some(result),
        };
        let run = NodeRun {
            run_id: first_run,
            agents,
        };
        Ok((last, run))
    }
}

/// A node's failed turn as the graph reports it.
fn node_error(node: &GraphNode, error: SessionError) -> GraphError {
    match error {
        SessionError::Run(RunError::Cancelled) => GraphError::Cancelled,
        SessionError::Run(source) => GraphError::NodeFailed {
            node: node.name.clone(),
            agent: node.agent.clone(),
            source: Box::new(source),
        },
        SessionError::NotSaved(error) => GraphError::Store(error),
        other => GraphError::NodeSetup {
            node: node.name.clone(),
            source: Box::new(other),
        },
    }
}

/// A node's answer as the state keeps it: its text, and its output (the JSON it holds, else
/// the text), both masked here, once — the state feeds the events, the checkpoints and the
/// next node's prompt, and none of them may carry a secret the answer echoed.
fn masked_answer(secrets: &Redactor, answer: &str) -> (String, Value) {
    let text = secrets.redact(answer).into_owned();
    let mut output = match extract_json(&text) {
        Ok((value, _)) => value,
        Err(_) => Value::String(text.clone()),
    };
    secrets.redact_json(&mut output);
    (text, output)
}

/// What a node's answer sets under its output `key`: the answer, or — when it is an object
/// with `key` as its only field, a LangGraph-style state update such as `{"analysis": {…}}` —
/// that field's value.
pub(super) fn state_update(key: &str, answer: &Value) -> Value {
    match answer {
        Value::Object(fields) if fields.len() == 1 => {
            fields.get(key).cloned().unwrap_or_else(|| answer.clone())
        }
        _ => answer.clone(),
    }
}
