//! Sub-agents (`task` children) inside the session: a child runs with its own kit (its
//! declared tools and MCP servers, not its caller's), the turn's gate (its questions reach the
//! turn that started it, and "always" answers hold for it as for its caller) and this runner
//! for its own tasks; a graph agent runs its graph.

use super::approvals::TurnGate;
use super::ctx::TurnCtx;
use super::events::Sink;
use super::graph_driver::graph_turn;
use super::kits::with_instructions;
use super::protocol::{TurnId, TurnOptions};
use super::state::Engine;
use super::worktree::{Worktree, wants_worktree};
use crate::graph_run::{GraphError, StartAt};
use crate::memory_folder::with_memory_section;
use crate::skills::{skills_of, with_skills};
use agentctl_core::{
    AgentDefinition, ModelRef, RunError, RunEvent, RunOptions, RunResult, RunStream, SubAgentRunner,
};
use agentctl_runtime::RunHandle;
use futures_util::Stream;
use futures_util::future::BoxFuture;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::task::{Context, Poll};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// Starts the sub-agents of one turn.
pub(crate) struct SubAgents {
    /// Weak: the runner lives inside the runs of a turn the engine drives.
    engine: Weak<Engine>,
    gate: Arc<TurnGate>,
}

impl SubAgents {
    pub(crate) fn new(engine: &Arc<Engine>, gate: Arc<TurnGate>) -> Self {
        Self {
            engine: Arc::downgrade(engine),
            gate,
        }
    }
}

impl SubAgentRunner for SubAgents {
    fn resolve_model(
        &self,
        agent: &AgentDefinition,
        options: &RunOptions,
    ) -> Result<ModelRef, RunError> {
        let engine = self.engine.upgrade().ok_or_else(gone)?;
        if agent.spec.graph.is_some() {
            // A graph's nodes resolve their own models when they run.
            return Ok(ModelRef {
                provider: "graph".into(),
                model: agent.name().to_owned(),
            });
        }
        engine.runtime.resolve_model(agent, options)
    }

    fn start(
        &self,
        agent: &AgentDefinition,
        prompt: &str,
        mut options: RunOptions,
    ) -> Box<dyn RunStream> {
        let cancel = match &options.cancel {
            Some(parent) => parent.child_token(),
            None => CancellationToken::new(),
        };
        options.cancel = Some(cancel.clone());
        let run_id = options.run_id.clone().unwrap_or_else(|| {
            static NEXT: AtomicU64 = AtomicU64::new(0);
            format!(
                "sub-{}-{}",
                agent.name(),
                NEXT.fetch_add(1, Ordering::Relaxed)
            )
        });
        options.run_id = Some(run_id.clone());
        let Some(engine) = self.engine.upgrade() else {
            return Box::new(Child::failed(run_id, cancel, gone()));
        };
        let agent = agent.clone();
        let prompt = prompt.to_owned();
        if agent.spec.graph.is_some() {
            let gate = self.gate.for_agent(&agent);
            let run = async move { run_graph_child(&engine, gate, &agent, &prompt, options).await };
            return Box::new(Child {
                run_id,
                cancel,
                state: State::Graph(Box::pin(run)),
            });
        }
        // The child's permission mode held to its parent's; its own sub-agents to the child's.
        let gate = self.gate.for_agent(&agent);
        let run_id_for_tree = run_id.clone();
        let runner = Arc::new(SubAgents {
            engine: Arc::downgrade(&engine),
            gate: Arc::clone(&gate),
        });
        let start = async move {
            // `isolation: worktree`: the child works in a worktree of its own.
            let worktree = if wants_worktree(&agent) {
                let root = engine.shared.builder.root().to_path_buf();
                let worktree = Worktree::add(&root, agent.name(), &run_id_for_tree)
                    .await
                    .map_err(RunError::Aborted)?;
                options.working_dir = Some(worktree.path().to_path_buf());
                Some(worktree)
            } else {
                None
            };
            // The child's own tools; its definition is the one the task gave (its prompt ends
            // with the task's capability context), with its skills and the project
            // instructions as every agent's (unless its file says `instructions: none`).
            let (kit, _warnings) = engine.kit(&agent).await;
            let skills = skills_of(&agent, &engine.shared.skills);
            let agent = with_memory_section(
                with_instructions(
                    with_skills(agent, &skills),
                    engine.shared.instructions.as_deref(),
                ),
                kit.memory.as_deref(),
            );
            let scope = gate
                .scope(&agent)
                .tools(kit.toolbox.clone())
                .sub_agents(runner as _);
            let handle = engine.runtime.run_in(&agent, &prompt, options, scope);
            Ok((handle, worktree.map(|tree| (tree, agent.name().to_owned()))))
        };
        Box::new(Child {
            run_id,
            cancel,
            state: State::Starting(Box::pin(start)),
        })
    }
}

fn gone() -> RunError {
    RunError::Aborted("the session has ended".into())
}

/// A sub-agent run: being started (its kit assembled), running, a graph, or failed.
struct Child {
    run_id: String,
    cancel: CancellationToken,
    state: State,
}

/// A child's worktree and its agent's name, finished when the child's run is.
type Tree = Option<(Worktree, String)>;

enum State {
    Starting(BoxFuture<'static, Result<(RunHandle, Tree), RunError>>),
    Running(RunHandle, Tree),
    /// The run finished; its worktree's changes are being committed.
    Finishing(BoxFuture<'static, RunResult>),
    /// A graph child: no run events of its own (its nodes record their own runs), its last
    /// node's result at the end.
    Graph(BoxFuture<'static, Result<RunResult, RunError>>),
    /// Ended: the result, once, after its `run_finished` or `run_failed` event.
    Ended(Option<Box<Result<RunResult, RunError>>>, bool),
}

impl Child {
    fn failed(run_id: String, cancel: CancellationToken, error: RunError) -> Self {
        Self {
            run_id,
            cancel,
            state: State::Ended(Some(Box::new(Err(error))), false),
        }
    }
}

impl Stream for Child {
    type Item = RunEvent;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<RunEvent>> {
        let this = &mut *self;
        loop {
            match &mut this.state {
                State::Starting(start) => match start.as_mut().poll(cx) {
                    Poll::Pending => return Poll::Pending,
                    Poll::Ready(Ok((handle, tree))) => this.state = State::Running(handle, tree),
                    Poll::Ready(Err(error)) => {
                        this.state = State::Ended(Some(Box::new(Err(error))), false)
                    }
                },
                State::Running(handle, tree) => match Pin::new(handle).poll_next(cx) {
                    Poll::Ready(Some(RunEvent::RunFinished { result })) if tree.is_some() => {
                        let Some((worktree, agent)) = tree.take() else {
                            continue;
                        };
                        this.state =
                            State::Finishing(Box::pin(with_branch(worktree, agent, *result)));
                    }
                    poll => return poll,
                },
                State::Finishing(finish) => match finish.as_mut().poll(cx) {
                    Poll::Pending => return Poll::Pending,
                    Poll::Ready(result) => {
                        this.state = State::Ended(Some(Box::new(Ok(result))), false)
                    }
                },
                State::Graph(run) => match run.as_mut().poll(cx) {
                    Poll::Pending => return Poll::Pending,
                    Poll::Ready(result) => this.state = State::Ended(Some(Box::new(result)), false),
                },
                State::Ended(result, told) => {
                    if *told {
                        return Poll::Ready(None);
                    }
                    *told = true;
                    let event = match result.as_deref() {
                        Some(Ok(result)) => RunEvent::RunFinished {
                            result: Box::new(RunResult {
                                messages: Vec::new(),
                                ..result.clone()
                            }),
                        },
                        Some(Err(error)) => RunEvent::RunFailed {
                            error: error.to_string(),
                        },
                        None => return Poll::Ready(None),
                    };
                    return Poll::Ready(Some(event));
                }
            }
        }
    }
}

impl RunStream for Child {
    fn run_id(&self) -> &str {
        &self.run_id
    }

    fn cancel(&self) {
        self.cancel.cancel();
    }

    fn into_result(self: Box<Self>) -> BoxFuture<'static, Result<RunResult, RunError>> {
        let mut child = *self;
        Box::pin(async move {
            loop {
                match child.state {
                    State::Running(handle, tree) => {
                        let result = handle.result().await?;
                        return Ok(match tree {
                            Some((worktree, agent)) => with_branch(worktree, agent, result).await,
                            None => result,
                        });
                    }
                    State::Finishing(finish) => return Ok(finish.await),
                    State::Ended(result, _) => {
                        return result.map_or_else(
                            || Err(RunError::Aborted("the run's result was taken".into())),
                            |result| *result,
                        );
                    }
                    State::Starting(start) => {
                        child.state = match start.await {
                            Ok((handle, tree)) => State::Running(handle, tree),
                            Err(error) => State::Ended(Some(Box::new(Err(error))), false),
                        };
                    }
                    State::Graph(run) => return run.await,
                }
            }
        })
    }
}

/// `result`, its answer followed by what became of its worktree's changes.
async fn with_branch(worktree: Worktree, agent: String, mut result: RunResult) -> RunResult {
    let note = worktree.finish(&agent).await;
    result.text = format!("{}\n\n{note}", result.text.trim_end());
    result
}

/// A `task` child that is a graph agent: its graph, run on the task's prompt inside the
/// session of the turn that started it (its nodes' questions reach that turn).
async fn run_graph_child(
    engine: &Arc<Engine>,
    gate: Arc<TurnGate>,
    agent: &AgentDefinition,
    prompt: &str,
    options: RunOptions,
) -> Result<RunResult, RunError> {
    let mut ctx = TurnCtx::child(engine, gate, &options);
    let trace = options.trace.clone();
    match graph_turn(&mut ctx, agent, StartAt::New(prompt.to_owned()), trace).await {
        Ok((_, result)) => Ok(result),
        Err(GraphError::Cancelled) => Err(RunError::Cancelled),
        Err(error) => Err(RunError::Aborted(format!(
            "graph `{}`: {error}",
            agent.name()
        ))),
    }
}

impl TurnCtx {
    /// The context of a sub-agent that is a graph: its events go nowhere (as a sub-agent's
    /// do), its questions to the turn that started it (through that turn's `gate`).
    fn child(engine: &Arc<Engine>, gate: Arc<TurnGate>, options: &RunOptions) -> Self {
        // Nobody sends on this channel: the parent's gate carries the questions.
        let (_, questions) = mpsc::unbounded_channel();
        let sub_agents: Arc<dyn SubAgentRunner> =
            Arc::new(SubAgents::new(engine, Arc::clone(&gate)));
        Self {
            engine: Arc::clone(engine),
            sink: Sink::nowhere(TurnId(0)),
            cancel: options.cancel.clone().unwrap_or_default(),
            gate,
            sub_agents,
            questions,
            options: TurnOptions {
                stream: options.stream,
                max_turns: options.max_turns,
                ..TurnOptions::default()
            },
        }
    }
}
