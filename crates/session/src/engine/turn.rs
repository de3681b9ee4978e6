//! One turn, from its target to its outcome: the session decides who answers — the active
//! agent, a named agent or graph, the main conversation, or the agent the prompt routes to —
//! and whether that is an agent (its runs and handoffs) or a graph (node by node). Every front
//! end reaches agents and graphs through here.

use super::approvals::TurnGate;
use super::ctx::TurnCtx;
use super::events::{Frame, Sink};
use super::graph_driver::graph_turn;
use super::lead::{AgentOutcome, Lead};
use super::protocol::{EventMsg, Notice, Target, TurnOptions, TurnOutcome};
use super::state::Engine;
use super::sub_agents::SubAgents;
use crate::error::SessionError;
use crate::graph_run::{GraphError, StartAt, find_branch};
use crate::hooks::SessionHooks;
use crate::main_agent::main_agent;
use agentctl_context::expand_file_references;
use agentctl_core::{AgentDefinition, RunError, SubAgentRunner};
use std::sync::Arc;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// What a turn is asked to do.
#[derive(Debug)]
pub(crate) enum Request {
    /// Answer `prompt`.
    Prompt { target: Target, prompt: String },
    /// Continue (or fork) a graph run of the session.
    ResumeGraph {
        branch: Option<u32>,
        from_step: Option<u32>,
    },
}

impl TurnCtx {
    /// The context of a new turn.
    pub(crate) fn new(
        engine: &Arc<Engine>,
        sink: Sink,
        cancel: CancellationToken,
        options: TurnOptions,
    ) -> Self {
        let (sender, questions) = mpsc::unbounded_channel();
        let approvals = &engine.approvals;
        let session_id = engine.session().map(|s| s.id().to_owned());
        let hooks = Arc::new(SessionHooks::new(
            Arc::clone(&engine.hooks),
            session_id.unwrap_or_default(),
            sink.clone(),
        ));
        let gate = Arc::new(TurnGate::new(
            Arc::clone(&approvals.gate),
            Arc::clone(&approvals.desk),
            sender,
            hooks,
        ));
        let sub_agents: Arc<dyn SubAgentRunner> =
            Arc::new(SubAgents::new(engine, Arc::clone(&gate)));
        Self {
            engine: Arc::clone(engine),
            sink,
            cancel,
            gate,
            sub_agents,
            questions,
            options,
        }
    }

    /// Runs the turn to its end.
    pub(crate) async fn run(&mut self, request: Request) -> TurnOutcome {
        match request {
            Request::Prompt { target, prompt } => self.prompt(target, prompt).await,
            Request::ResumeGraph { branch, from_step } => self.resume(branch, from_step).await,
        }
    }

    async fn prompt(&mut self, target: Target, prompt: String) -> TurnOutcome {
        let active = target == Target::Active;
        let target = match target {
            Target::Active => self.engine.active(),
            other => other,
        };
        let (agent, main) = match self.choose(&target, &prompt) {
            Ok(chosen) => chosen,
            Err(error) => return failed(error),
        };
        let prompt = match self.expand(prompt).await {
            Ok(prompt) => prompt,
            Err(error) => return failed(error),
        };
        let resumed = self
            .engine
            .session()
            .is_some_and(|session| session.resumed());
        // The hooks read the permission mode the agent's calls will be judged in.
        let mode = self.gate.for_agent(&agent).mode();
        let hooks = self.gate.hooks();
        let prompt = match hooks.session_start(agent.name(), mode, resumed).await {
            Some(context) => format!("{prompt}\n\n{context}"),
            None => prompt,
        };
        let prompt = match hooks.user_prompt(agent.name(), mode, &prompt).await {
            Ok(Some(context)) => format!("{prompt}\n\n{context}"),
            Ok(None) => prompt,
            Err(reason) => return failed(SessionError::PromptRefused(reason)),
        };
        if agent.spec.graph.is_some() {
            return self.graph(&agent, StartAt::New(prompt)).await;
        }
        let lead = Lead {
            agent,
            prompt,
            main,
            flag: self.options.context_mode,
            model: self.options.model.clone(),
            frame: Frame::Turn,
            trace: None,
            source: None,
        };
        let AgentOutcome { result, agents, .. } = self.agent_turn(lead).await;
        if active
            && !main
            && let Some(last) = agents.last()
        {
            // The conversation goes on with the agent that had the last word.
            self.engine.set_active(last);
        }
        TurnOutcome {
            result,
            agents,
            graph: None,
        }
    }

    /// The agent `target` names (whether the main conversation).
    fn choose(
        &self,
        target: &Target,
        prompt: &str,
    ) -> Result<(AgentDefinition, bool), SessionError> {
        let shared = &self.engine.shared;
        match target {
            Target::Main | Target::Active => Ok((main_agent(shared.builder.settings()), true)),
            Target::Agent(name) => Ok((shared.require_agent(name)?, false)),
            Target::Graph(name) => {
                let agent = shared.require_agent(name)?;
                crate::graph_run::compile(&agent)
                    .map_err(|error| SessionError::Graph(Box::new(error)))?;
                Ok((agent, false))
            }
            Target::Auto => {
                let decision = shared.route(prompt);
                self.sink
                    .emit(EventMsg::Notice(Notice::Routed(decision.clone())));
                let selected = decision.selected.ok_or(SessionError::NoRoute)?;
                Ok((shared.require_agent(&selected.agent)?, false))
            }
        }
    }

    /// The prompt with its `@file:` references expanded (reading files off the async
    /// workers); each reference that could not be expanded is a notice.
    async fn expand(&self, prompt: String) -> Result<String, SessionError> {
        if !prompt.contains('@') {
            return Ok(prompt);
        }
        let root = self.engine.shared.builder.root().to_path_buf();
        let expansion = tokio::task::spawn_blocking(move || expand_file_references(&root, &prompt))
            .await
            .map_err(|error| SessionError::Run(RunError::Aborted(error.to_string())))?;
        for warning in expansion.warnings {
            self.sink
                .emit(EventMsg::Notice(Notice::FileReference(warning)));
        }
        Ok(expansion.text)
    }

    /// Continues (or forks) the newest graph run of the session, or `branch`'s.
    async fn resume(&mut self, branch: Option<u32>, from_step: Option<u32>) -> TurnOutcome {
        let Some(store) = &self.engine.store else {
            return failed(SessionError::Graph(Box::new(GraphError::NoSession)));
        };
        let session = store.session.clone();
        let recorded = store
            .writer
            .call(move |_| find_branch(&session, branch, None))
            .await;
        let agent = recorded
            .map_err(|error| SessionError::Graph(Box::new(error)))
            .and_then(|found| self.engine.shared.require_agent(&found.graph));
        let agent = match agent {
            Ok(agent) => agent,
            Err(error) => return failed(error),
        };
        let at = match from_step {
            Some(step) => StartAt::Fork(branch, step),
            None => StartAt::Resume(branch),
        };
        self.graph(&agent, at).await
    }

    /// A graph turn.
    async fn graph(&mut self, agent: &AgentDefinition, at: StartAt) -> TurnOutcome {
        self.sink.emit(EventMsg::TurnStarted {
            agent: agent.name().to_owned(),
            title: agent.spec.title.clone(),
            graph: true,
            context: None,
            session_id: self.engine.session().map(|session| session.id().to_owned()),
        });
        match graph_turn(self, agent, at, None).await {
            Ok((outcome, result)) => TurnOutcome {
                result: Ok(result),
                agents: vec![agent.name().to_owned()],
                graph: Some(outcome),
            },
            Err(error) => TurnOutcome {
                result: Err(SessionError::Graph(Box::new(error))),
                agents: vec![agent.name().to_owned()],
                graph: None,
            },
        }
    }
}

/// A turn that could not start.
fn failed(error: SessionError) -> TurnOutcome {
    TurnOutcome::failed(error)
}
