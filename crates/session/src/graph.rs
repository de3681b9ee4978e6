//! Graphs of agents: [`GraphRunner`] runs a compiled [`Graph`] node by node in a session,
//! checkpointing after every node, and resumes or forks from those checkpoints;
//! [`GraphReplay`] reads a recorded graph run back from the store.
//!
//! **State.** A graph run keeps one JSON object: the user's request under `input` and each
//! node's output (its agent's final answer, parsed when it is JSON) under the node's `output`
//! key. After a node, the first edge whose CEL condition holds over that state (plus the
//! session state keys the graph state does not have) picks the next node; `END`, or no edge
//! taken, ends the run.
//!
//! **Checkpoints.** The state, the node just run, its run id and the next node are written in
//! one transaction after every node (step 0 is the input). A process killed mid-node leaves
//! the previous checkpoint: [`GraphRunner::resume`] re-runs only the node that did not finish.
//! [`GraphRunner::fork`] starts a new branch from an earlier checkpoint and leaves the
//! original branch as it was.

mod drive;
mod error;
mod replay;

pub use error::GraphError;
pub use replay::{GraphReplay, ReplayItem, ReplayNode, ReplayTotals};

use crate::runner::SessionRunner;
use crate::session::SessionHandle;
use agentctl_context::GraphBranch;
use agentctl_core::{GraphEvent, RunOptions};
use agentctl_routing::Graph;
use futures_util::Stream;
use futures_util::future::BoxFuture;
use serde::Serialize;
use serde_json::Value;
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// Runs a graph of agents in a session.
///
/// ```no_run
/// use agentctl_context::SessionChoice;
/// use agentctl_core::RunOptions;
/// use agentctl_routing::Graph;
/// use agentctl_session::{GraphRunner, Project, RuntimeBuilder, SessionRunner};
/// use futures_util::StreamExt;
///
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// let project = Project::load(None)?;
/// let runner = SessionRunner::new(&project, RuntimeBuilder::new(&project));
/// let graph = Graph::from_definition(&runner.require_agent("debug-flow")?)?;
/// let request = "Fix this bug: the dashboard crashes after login";
/// let Some(session) = runner.open_session(SessionChoice::New, Some(request))? else {
///     return Err("graphs need the session store (agents.contextPersistence)".into());
/// };
/// let mut run = GraphRunner::new(&runner, graph, session, RunOptions::new()).run(request);
/// while let Some(event) = run.next().await {
///     println!("{}", serde_json::to_string(&event)?);
/// }
/// let outcome = run.finish().await?;
/// println!("ended after step {}: {}", outcome.step, outcome.reason);
/// # Ok(())
/// # }
/// ```
pub struct GraphRunner<'r> {
    runner: &'r SessionRunner,
    graph: Graph,
    session: SessionHandle,
    options: RunOptions,
}

impl std::fmt::Debug for GraphRunner<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GraphRunner")
            .field("graph", &self.graph.name())
            .field("session", &self.session.id())
            .finish_non_exhaustive()
    }
}

/// Where a graph run starts.
#[derive(Debug, Clone)]
enum StartAt {
    /// At the entry, with this request.
    New(String),
    /// At the last checkpoint of a branch (the newest branch of the graph when `None`).
    Resume(Option<u32>),
    /// At checkpoint `step` of a branch, into a new branch.
    Fork(Option<u32>, u32),
}

impl<'r> GraphRunner<'r> {
    /// A runner of `graph` in `session`; every node's run starts from `options`.
    pub fn new(
        runner: &'r SessionRunner,
        graph: Graph,
        session: SessionHandle,
        options: RunOptions,
    ) -> Self {
        Self {
            runner,
            graph,
            session,
            options,
        }
    }

    /// Runs the graph from its entry on `input`, in a new branch of the session's graph
    /// history.
    pub fn run(self, input: &str) -> GraphRun<'r> {
        self.start(StartAt::New(input.to_owned()))
    }

    /// Continues a branch from its last checkpoint: the node that was running when the
    /// process stopped runs again; finished nodes do not. `None`: the newest branch of this
    /// graph in the session.
    pub fn resume(self, branch: Option<u32>) -> GraphRun<'r> {
        self.start(StartAt::Resume(branch))
    }

    /// Re-runs from checkpoint `step` of `branch` (the newest when `None`) into a new branch;
    /// the original branch stays as it was.
    pub fn fork(self, branch: Option<u32>, step: u32) -> GraphRun<'r> {
        self.start(StartAt::Fork(branch, step))
    }

    fn start(self, at: StartAt) -> GraphRun<'r> {
        let (sender, events) = mpsc::unbounded_channel();
        let cancel = CancellationToken::new();
        let driver = drive::Driver {
            runner: self.runner,
            graph: self.graph,
            session: self.session,
            options: self.options,
            events: sender,
            cancel: cancel.clone(),
        };
        GraphRun {
            events,
            driver: Some(Box::pin(driver.drive(at))),
            outcome: None,
            cancel,
        }
    }
}

/// A branch of the session's graph runs: `branch` when given, else the newest of `graph` (of
/// any graph when `None`). [`GraphError::NoBranch`] names the branches there are;
/// [`GraphError::NoCheckpoint`] says the session has none (of that graph).
pub fn find_branch(
    session: &SessionHandle,
    branch: Option<u32>,
    graph: Option<&str>,
) -> Result<GraphBranch, GraphError> {
    let branches = session.store().graph_branches(session.id())?;
    match branch {
        Some(wanted) => {
            let known: Vec<u32> = branches.iter().map(|b| b.branch).collect();
            branches
                .into_iter()
                .find(|b| b.branch == wanted)
                .ok_or_else(|| GraphError::NoBranch {
                    session: session.id().to_owned(),
                    branch: wanted,
                    known,
                })
        }
        None => branches
            .into_iter()
            .filter(|b| graph.is_none_or(|graph| b.graph == graph))
            .max_by_key(|b| (b.updated_at, b.branch))
            .ok_or_else(|| GraphError::NoCheckpoint {
                session: session.id().to_owned(),
            }),
    }
}

/// A graph run in progress: a stream of its [`GraphEvent`]s, driven as it is polled.
pub struct GraphRun<'r> {
    events: mpsc::UnboundedReceiver<GraphEvent>,
    driver: Option<BoxFuture<'r, Result<GraphOutcome, GraphError>>>,
    outcome: Option<Result<GraphOutcome, GraphError>>,
    cancel: CancellationToken,
}

impl std::fmt::Debug for GraphRun<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GraphRun")
            .field("running", &self.driver.is_some())
            .finish_non_exhaustive()
    }
}

impl GraphRun<'_> {
    /// A token that cancels the run (the active node's run is cancelled; the last checkpoint
    /// stays, so the graph can be resumed).
    pub fn cancellation_token(&self) -> CancellationToken {
        self.cancel.clone()
    }

    /// Runs the graph to its end (discarding events not read yet) and returns how it ended.
    pub async fn finish(mut self) -> Result<GraphOutcome, GraphError> {
        use futures_util::StreamExt as _;
        while self.next().await.is_some() {}
        self.outcome.take().unwrap_or(Err(GraphError::Cancelled))
    }
}

impl Stream for GraphRun<'_> {
    type Item = GraphEvent;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<GraphEvent>> {
        let this = &mut *self;
        if let Some(driver) = this.driver.as_mut()
            && let Poll::Ready(outcome) = driver.as_mut().poll(cx)
        {
            this.outcome = Some(outcome);
            // Dropping the driver drops the sender: the channel ends once drained.
            this.driver = None;
        }
        this.events.poll_recv(cx)
    }
}

/// How a graph run ended.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GraphOutcome {
    /// The graph.
    pub graph: String,
    /// The session.
    pub session_id: String,
    /// The branch written.
    pub branch: u32,
    /// The last step (node visits since the input, across forks).
    pub step: u32,
    /// Why it ended.
    pub reason: String,
    /// The last node run.
    pub last_node: String,
    /// The last node's final answer.
    pub text: String,
    /// The last node's output (the answer parsed when it is JSON).
    pub output: Value,
    /// The final state.
    pub state: Value,
}
