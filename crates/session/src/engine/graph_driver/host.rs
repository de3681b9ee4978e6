//! The two seams the graph executor runs over, and the session engine's side of them.
//!
//! * [`Host`]: what runs a node and hears about the run — the session engine runs each node as
//!   an agent turn ([`EngineHost`]); an embedder runs a function
//!   ([`GraphExecutor`](super::GraphExecutor)).
//! * [`Checkpointer`]: where checkpoints go — the session store through the session's store
//!   thread ([`StoreCheckpoints`]); absent for a run embedded without a store, which then
//!   cannot be resumed.
//!
//! The executor itself (scheduling, edges and conditions, fan-out and join, reducers, maps,
//! subgraphs, state merges, checkpoint records) is one piece of code over these two traits.

use super::node::{Last, NodeJob, NodeRun};
use crate::engine::{StoreWriter, TurnCtx};
use crate::error::GraphError;
use crate::graph_run::StartAt;
use crate::session::SessionHandle;
use agentctl_core::{
    AgentDefinition, ContextMode, GraphEvent, GraphStart, SpanDetail, TraceContext,
};
use agentctl_routing::Graph;
use agentctl_store::{GraphCheckpoint, NewCheckpoint, TraceLog};
use agentctl_trace::OpenSpan;
use futures_util::future::BoxFuture;
use serde_json::{Map, Value};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// How a node's run ended.
pub(crate) type NodeResult = Result<(Last, NodeRun), GraphError>;

/// What runs a graph's nodes and hears about the run.
pub(crate) trait Host: Send + Sync {
    /// Runs `job` on the graph's main line.
    fn run_node<'a>(&'a mut self, job: NodeJob) -> BoxFuture<'a, NodeResult>;
    /// Starts `job` side by side with others (a branch's node, a map element): its run, and
    /// the token that cancels it.
    fn spawn_node(&mut self, job: NodeJob) -> (BoxFuture<'static, NodeResult>, CancellationToken);
    /// Most nodes that run side by side at once.
    fn max_parallel(&self) -> usize;
    /// Passes on one thing the side-by-side nodes ask while they run (a question for the
    /// person); never resolves when nothing can be asked.
    fn relay(&mut self) -> BoxFuture<'_, ()>;
    /// Whether anyone reads the run's events: when not, the executor builds none.
    fn wants_events(&self) -> bool;
    /// An event of the run.
    fn emit(&self, event: GraphEvent);
    /// The graph `name` that subgraph node `node` runs, compiled.
    fn subgraph(&self, node: &str, name: &str) -> Result<Arc<Graph>, GraphError>;
    /// Variables conditions see besides the graph state (the session's state), read fresh.
    fn outside_state(&self) -> BoxFuture<'static, Result<Map<String, Value>, GraphError>>;
    /// The span of the whole run, when it is traced.
    fn begin_trace(&self, graph: &str, parent: Option<&TraceContext>) -> Option<OpenSpan>;
}

/// A checkpoint to write: where, what the node did, the state after it and the records of
/// what runs side by side.
pub(crate) struct Checkpoint {
    pub(crate) branch: u32,
    pub(crate) step: u32,
    pub(crate) node: String,
    pub(crate) run: Option<i64>,
    pub(crate) next: Option<String>,
    pub(crate) reason: String,
    pub(crate) state: Value,
    pub(crate) parallel: Option<Value>,
}

/// Where a graph run's checkpoints go.
pub(crate) trait Checkpointer: Send + Sync {
    /// The session the checkpoints belong to.
    fn session_id(&self) -> &str;
    /// The checkpoint a run starts from: written for a new run or a fork, read for a resume.
    fn start(
        &self,
        graph: String,
        entry: String,
        at: StartAt,
    ) -> BoxFuture<'static, Result<(GraphCheckpoint, GraphStart), GraphError>>;
    /// Writes `checkpoint`; returns it as stored.
    fn write(
        &self,
        checkpoint: Checkpoint,
    ) -> BoxFuture<'static, Result<GraphCheckpoint, GraphError>>;
    /// The nodes branch `branch` ran, in order (for the step-limit message).
    fn path(&self, branch: u32) -> BoxFuture<'static, Result<Vec<String>, GraphError>>;
}

/// Checkpoints in the session store, written on the session's store thread.
pub(crate) struct StoreCheckpoints {
    pub(crate) session: SessionHandle,
    pub(crate) writer: StoreWriter,
}

impl StoreCheckpoints {
    /// Runs `job` with the session on the store thread.
    fn call<T: Send + 'static>(
        &self,
        job: impl FnOnce(&SessionHandle) -> Result<T, GraphError> + Send + 'static,
    ) -> BoxFuture<'static, Result<T, GraphError>> {
        let session = self.session.clone();
        let writer = self.writer.clone();
        Box::pin(async move { writer.call(move |_| job(&session)).await })
    }
}

impl Checkpointer for StoreCheckpoints {
    fn session_id(&self) -> &str {
        self.session.id()
    }

    fn start(
        &self,
        graph: String,
        entry: String,
        at: StartAt,
    ) -> BoxFuture<'static, Result<(GraphCheckpoint, GraphStart), GraphError>> {
        self.call(move |session| {
            let store = session.store();
            let id = session.id();
            match at {
                StartAt::New(input) => {
                    let mut state = Map::new();
                    state.insert(super::parts::INPUT_KEY.to_owned(), Value::String(input));
                    let checkpoint =
                        store.start_graph(id, &graph, &Value::Object(state), &entry)?;
                    Ok((checkpoint, GraphStart::New))
                }
                StartAt::Resume(branch) => {
                    let branch = super::parts::branch_of(session, &graph, branch)?;
                    // The run of a killed process can never finish: mark it before running again.
                    store.interrupt_stale_runs(id)?;
                    let checkpoint = store.latest_checkpoint(id, branch)?.ok_or_else(|| {
                        GraphError::NoCheckpoint {
                            session: id.to_owned(),
                        }
                    })?;
                    Ok((checkpoint, GraphStart::Resumed))
                }
                StartAt::Fork(branch, step) => {
                    let branch = super::parts::branch_of(session, &graph, branch)?;
                    let checkpoint = store.fork_graph(id, branch, step)?;
                    Ok((checkpoint, GraphStart::Forked))
                }
            }
        })
    }

    fn write(
        &self,
        checkpoint: Checkpoint,
    ) -> BoxFuture<'static, Result<GraphCheckpoint, GraphError>> {
        self.call(move |session| {
            Ok(session.store().write_checkpoint(&NewCheckpoint {
                session: session.id(),
                branch: checkpoint.branch,
                step: checkpoint.step,
                node: &checkpoint.node,
                run: checkpoint.run,
                next: checkpoint.next.as_deref(),
                reason: Some(&checkpoint.reason),
                state: &checkpoint.state,
                parallel: checkpoint.parallel.as_ref(),
            })?)
        })
    }

    fn path(&self, branch: u32) -> BoxFuture<'static, Result<Vec<String>, GraphError>> {
        self.call(move |session| {
            let history = session.store().graph_history(session.id(), branch)?;
            Ok(history
                .into_iter()
                .filter_map(|checkpoint| checkpoint.node)
                .collect())
        })
    }
}

/// The session engine as a graph's host: every node an agent turn on the turn's context (a
/// branch's on a context of its own), events through the turn's sink.
pub(crate) struct EngineHost<'c> {
    pub(crate) ctx: &'c mut TurnCtx,
    /// The graph agent's definition (its `tracing:`).
    pub(crate) definition: AgentDefinition,
    /// The session and its store thread.
    pub(crate) store: Arc<StoreCheckpoints>,
    /// Every node's model, over its agent's (`--model`).
    pub(crate) model: Option<String>,
    /// Every node's context mode, over its agent's (`--context`).
    pub(crate) flag: Option<ContextMode>,
}

impl Host for EngineHost<'_> {
    fn run_node<'a>(&'a mut self, job: NodeJob) -> BoxFuture<'a, NodeResult> {
        let (model, flag) = (self.model.clone(), self.flag);
        Box::pin(job.run(self.ctx, model, flag))
    }

    fn spawn_node(&mut self, job: NodeJob) -> (BoxFuture<'static, NodeResult>, CancellationToken) {
        let mut ctx = self.ctx.branch();
        let cancel = ctx.cancel.clone();
        let (model, flag) = (self.model.clone(), self.flag);
        let run = Box::pin(async move { job.run(&mut ctx, model, flag).await });
        (run, cancel)
    }

    fn max_parallel(&self) -> usize {
        self.ctx.engine.shared.max_parallel()
    }

    fn relay(&mut self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            match self.ctx.questions.recv().await {
                Some(question) => self.ctx.sink.question(question),
                None => std::future::pending().await,
            }
        })
    }

    fn wants_events(&self) -> bool {
        true
    }

    fn emit(&self, event: GraphEvent) {
        self.ctx.sink.emit(crate::engine::EventMsg::Graph(event));
    }

    fn subgraph(&self, node: &str, name: &str) -> Result<Arc<Graph>, GraphError> {
        let shared = &self.ctx.engine.shared;
        let agent = shared
            .require_agent(name)
            .map_err(|error| GraphError::NodeSetup {
                node: node.to_owned(),
                source: Box::new(error),
            })?;
        shared.graph(&agent)
    }

    fn outside_state(&self) -> BoxFuture<'static, Result<Map<String, Value>, GraphError>> {
        self.store.call(|session| {
            Ok(session
                .store()
                .session_state(session.id())?
                .into_iter()
                .collect())
        })
    }

    /// Under `parent` (a sub-agent's call), else its own root when traced — by the graph
    /// definition's `tracing:`, else the settings.
    fn begin_trace(&self, graph: &str, parent: Option<&TraceContext>) -> Option<OpenSpan> {
        let detail = SpanDetail::Graph {
            graph: graph.to_owned(),
            branch: 0,
        };
        if let Some(parent) = parent {
            return Some(OpenSpan::start(parent, Some(graph), detail));
        }
        let session = &self.store.session;
        let store = Arc::clone(session.store()) as Arc<dyn TraceLog>;
        self.ctx.engine.shared.tracing.begin(
            self.definition.spec.tracing.as_ref(),
            Some((store, session.id())),
            detail,
        )
    }
}
