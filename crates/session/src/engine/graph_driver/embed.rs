//! The graph executor embedded on its own: every node a function instead of an agent turn,
//! checkpoints in a session's store or none at all. The same executor as a session's graph
//! runs (scheduling, edges and conditions, fan-out and join, reducers, maps, subgraphs,
//! checkpoint records), over a host that calls the function.

use super::driver::Driver;
use super::host::{Checkpointer, Host, NodeResult, StoreCheckpoints};
use super::node::{Last, NodeCall, NodeRun};
use crate::engine::StoreWriter;
use crate::error::GraphError;
use crate::graph_run::{GraphOutcome, StartAt};
use crate::session::SessionHandle;
use agentctl_core::{GraphEvent, TraceContext};
use agentctl_routing::Graph;
use agentctl_trace::OpenSpan;
use futures_util::future::BoxFuture;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// What a node function answers: the node's output, or why it failed.
pub type NodeAnswer = Result<Value, String>;

type NodeFn = dyn Fn(NodeCall) -> BoxFuture<'static, NodeAnswer> + Send + Sync;
type EventFn = dyn Fn(&GraphEvent) + Send + Sync;

/// Runs a compiled [`Graph`] whose nodes are functions: the graph engine without agents, for
/// embedding it and for measuring what the engine itself costs. Without
/// [`checkpoints`](Self::checkpoints) a run keeps no checkpoints (and so cannot be resumed);
/// with them, it writes the same checkpoints a session's graph run does.
///
/// ```
/// use agentctl_core::GraphSpec;
/// use agentctl_routing::Graph;
/// use agentctl_session::GraphExecutor;
/// use serde_json::json;
///
/// let spec: GraphSpec = serde_json::from_value(json!({
///     "entry": "a",
///     "nodes": [{"name": "a", "agent": "x"}, {"name": "b", "agent": "x"}],
///     "edges": [{"from": "a", "to": "b", "condition": "a.go"}]
/// }))?;
/// let graph = Graph::compile("pair", &spec)?;
/// let executor = GraphExecutor::new(graph, |call| async move {
///     Ok(json!({"go": true, "node": call.node().name}))
/// });
/// let outcome = tokio::runtime::Runtime::new()?.block_on(executor.run("hello"))?;
/// assert_eq!(outcome.last_node, "b");
/// assert_eq!(outcome.state["a"], json!({"go": true, "node": "a"}));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct GraphExecutor {
    graph: Arc<Graph>,
    nodes: Arc<NodeFn>,
    subgraphs: Arc<HashMap<String, Arc<Graph>>>,
    max_parallel: usize,
    checkpoints: Option<Arc<StoreCheckpoints>>,
    events: Option<Arc<EventFn>>,
}

impl std::fmt::Debug for GraphExecutor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GraphExecutor")
            .field("graph", &self.graph.name())
            .field("max_parallel", &self.max_parallel)
            .field("checkpoints", &self.checkpoints.is_some())
            .finish_non_exhaustive()
    }
}

impl GraphExecutor {
    /// An executor of `graph` whose every node visit calls `nodes` (a node of a parallel
    /// branch or a map element concurrently with the others, at most 4 at once).
    pub fn new<F, Fut>(graph: Graph, nodes: F) -> Self
    where
        F: Fn(NodeCall) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = NodeAnswer> + Send + 'static,
    {
        let nodes: Arc<NodeFn> = Arc::new(move |call| Box::pin(nodes(call)));
        Self {
            graph: Arc::new(graph),
            nodes,
            subgraphs: Arc::new(HashMap::new()),
            max_parallel: 4,
            checkpoints: None,
            events: None,
        }
    }

    /// At most `limit` nodes side by side (at least 1).
    #[must_use]
    pub fn max_parallel(mut self, limit: usize) -> Self {
        self.max_parallel = limit.max(1);
        self
    }

    /// A graph subgraph nodes may run (`graph: NAME`), by its name.
    #[must_use]
    pub fn subgraph(mut self, graph: Graph) -> Self {
        Arc::make_mut(&mut self.subgraphs).insert(graph.name().to_owned(), Arc::new(graph));
        self
    }

    /// Checkpoints every node in `session`'s store, as a session's graph run does (on the
    /// store's thread), so runs can be resumed.
    ///
    /// # Errors
    ///
    /// [`GraphError::Store`] when the store thread cannot start.
    pub fn checkpoints(mut self, session: SessionHandle) -> Result<Self, GraphError> {
        let writer = StoreWriter::start(session.dyn_store())?;
        self.checkpoints = Some(Arc::new(StoreCheckpoints { session, writer }));
        Ok(self)
    }

    /// Calls `observe` with every event of a run (without it, no event is built).
    #[must_use]
    pub fn on_event(mut self, observe: impl Fn(&GraphEvent) + Send + Sync + 'static) -> Self {
        self.events = Some(Arc::new(observe));
        self
    }

    /// Runs the graph from its entry on `input` (the state's `input`).
    ///
    /// # Errors
    ///
    /// Whatever stops the run: a node function's error ([`GraphError::NodeFunction`]), a
    /// condition that cannot be evaluated, the step limit, a store error.
    pub async fn run(&self, input: &str) -> Result<GraphOutcome, GraphError> {
        self.drive(StartAt::New(input.to_owned())).await
    }

    /// Continues the graph's latest run in branch `branch` (the newest when `None`) from its
    /// last checkpoint: only what had not finished runs again.
    ///
    /// # Errors
    ///
    /// [`GraphError::NotCheckpointed`] without [`checkpoints`](Self::checkpoints); otherwise
    /// as [`run`](Self::run), and [`GraphError::Finished`] for a run that ended.
    pub async fn resume(&self, branch: Option<u32>) -> Result<GraphOutcome, GraphError> {
        self.drive(StartAt::Resume(branch)).await
    }

    async fn drive(&self, at: StartAt) -> Result<GraphOutcome, GraphError> {
        let mut host = FnHost {
            nodes: Arc::clone(&self.nodes),
            subgraphs: Arc::clone(&self.subgraphs),
            max_parallel: self.max_parallel,
            events: self.events.clone(),
        };
        let mut driver = Driver {
            host: &mut host,
            checkpoints: self
                .checkpoints
                .clone()
                .map(|checkpoints| checkpoints as Arc<dyn Checkpointer>),
            graph: Arc::clone(&self.graph),
            nest: None,
        };
        let (outcome, _) = driver.drive(at, None).await?;
        Ok(outcome)
    }
}

/// Node functions as a graph's host.
struct FnHost {
    nodes: Arc<NodeFn>,
    subgraphs: Arc<HashMap<String, Arc<Graph>>>,
    max_parallel: usize,
    events: Option<Arc<EventFn>>,
}

/// Calls `nodes` for `job`.
fn call(nodes: &NodeFn, job: NodeCall) -> BoxFuture<'static, NodeResult> {
    let graph = job.graph().to_owned();
    let name = job.node().name.clone();
    let answer = nodes(job);
    Box::pin(async move {
        let output = answer.await.map_err(|message| GraphError::NodeFunction {
            graph,
            node: name.clone(),
            message,
        })?;
        let text = match &output {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        let last = Last {
            node: name,
            text,
            output,
            result: None,
        };
        let run = NodeRun {
            run_id: None,
            agents: Vec::new(),
        };
        Ok((last, run))
    })
}

impl Host for FnHost {
    fn run_node<'a>(&'a mut self, job: NodeCall) -> BoxFuture<'a, NodeResult> {
        call(self.nodes.as_ref(), job)
    }

    fn spawn_node(&mut self, job: NodeCall) -> (BoxFuture<'static, NodeResult>, CancellationToken) {
        (call(self.nodes.as_ref(), job), CancellationToken::new())
    }

    fn max_parallel(&self) -> usize {
        self.max_parallel
    }

    fn relay(&mut self) -> BoxFuture<'_, ()> {
        Box::pin(std::future::pending())
    }

    fn wants_events(&self) -> bool {
        self.events.is_some()
    }

    fn emit(&self, event: GraphEvent) {
        if let Some(observe) = &self.events {
            observe(&event);
        }
    }

    fn subgraph(&self, node: &str, name: &str) -> Result<Arc<Graph>, GraphError> {
        self.subgraphs
            .get(name)
            .cloned()
            .ok_or_else(|| GraphError::NodeFunction {
                graph: name.to_owned(),
                node: node.to_owned(),
                message: format!("no graph `{name}` was given to the executor"),
            })
    }

    fn outside_state(&self) -> BoxFuture<'static, Result<Map<String, Value>, GraphError>> {
        Box::pin(std::future::ready(Ok(Map::new())))
    }

    fn begin_trace(&self, _: &str, _: Option<&TraceContext>) -> Option<OpenSpan> {
        None
    }
}
