//! One agent's part of a turn: its run, then the runs of the agents its handoffs start, as one
//! stream of events. Each run gets its agent's own kit, the turn's gate and sub-agent runner,
//! and its model resolved once; each run's events go to the store thread as they pass and to
//! the turn's sink; a question of the run is sent once everything it emitted before is.

use super::ctx::TurnCtx;
use super::events::Frame;
use super::graph_driver::graph_turn;
use super::handoff::{brief, check_limit};
use super::lead::{AgentOutcome, Lead};
use super::locking::lock;
use super::prepare::{Ready, RunKind};
use super::protocol::{EventMsg, Notice};
use super::sub_agents::SubAgents;
use super::trace::TurnTracing;
use super::writer::{Closing, Recording};
use crate::commands::{Narrowing, narrowed};
use crate::error::SessionError;
use crate::graph_run::{GraphError, StartAt};
use crate::session::run_ending;
use agentctl_core::{
    AgentDefinition, ContextMode, HandoffHistory, HandoffRequest, RunError, RunEvent, RunOptions,
    RunResult, SubAgentRunner, TraceContext,
};
use agentctl_runtime::RunHandle;
use agentctl_store::{ContextError, RunId};
use futures_util::{FutureExt as _, StreamExt as _};
use std::sync::Arc;

/// One run's end.
struct RunEnd {
    outcome: Result<RunResult, RunError>,
    /// The run's store error, when its end is written (the previous run's too, for a run a
    /// handoff started: that one's end is written with this one's start).
    save_error: Option<ContextError>,
    run: Option<RunId>,
    mode: ContextMode,
}

impl TurnCtx {
    /// Runs `lead`, then whoever it hands off to, until an agent answers, fails or the
    /// handoff limit stops the chain.
    pub(crate) async fn agent_turn(&mut self, lead: Lead) -> AgentOutcome {
        let engine = Arc::clone(&self.engine);
        let mut trace = engine.trace_turn(&lead.agent, lead.trace.as_ref(), &lead.prompt);
        let user_prompt = lead.prompt.clone();
        let mut agents = vec![lead.agent.name().to_owned()];
        let mut agent = lead.agent;
        let mut kind = RunKind::First {
            flag: lead.flag,
            main: lead.main,
            prompt: lead.prompt,
            source: lead.source,
        };
        let mut model = lead.model;
        let mut save_error = None;
        let mut first_run = None;
        // A run that handed off: its end is written with the next run's start, in one commit.
        let mut closing = None;
        let result = loop {
            let run = self.run_agent(
                &agent,
                kind,
                model.take(),
                &mut closing,
                &lead.frame,
                &mut trace,
            );
            let end = match run.await {
                Ok(end) => end,
                Err(error) => break Err(error),
            };
            first_run = first_run.or(end.run);
            if let Some(error) = end.save_error {
                save_error.get_or_insert(error);
            }
            let result = match end.outcome {
                Ok(result) if result.handoff.is_some() => result,
                Ok(result) => {
                    self.remember(&agent, end.mode, &result);
                    break Ok(result);
                }
                Err(error) => break Err(SessionError::Run(error)),
            };
            let Some(request) = result.handoff.clone() else {
                break Ok(result);
            };
            let target = match self.next_agent(&agents, &request, &lead.frame, &mut trace) {
                Ok(target) => target,
                Err(error) => break Err(error),
            };
            agents.push(request.to.clone());
            if target.spec.graph.is_some() {
                // A graph reached by a handoff runs its graph, on the brief.
                break self
                    .hand_to_graph(&target, &request, &result.text, &user_prompt, &trace)
                    .await;
            }
            kind = RunKind::Handoff {
                request,
                answer: result.text,
                prompt: user_prompt.clone(),
                parent: end.run,
            };
            agent = target;
        };
        if let Some(closing) = closing
            && let Some(error) = self.close(closing).await
        {
            save_error.get_or_insert(error);
        }
        trace.finish(result.as_ref().err().map(ToString::to_string).as_deref());
        AgentOutcome {
            result: save_error.map_or(result, |error| Err(SessionError::NotSaved(error))),
            agents,
            first_run,
        }
    }

    /// The agent `request` hands off to, unless the chain stops here (the handoff limit, an
    /// unknown agent): then the run's failure is sent and the error returned.
    fn next_agent(
        &self,
        agents: &[String],
        request: &HandoffRequest,
        frame: &Frame,
        trace: &mut TurnTracing,
    ) -> Result<AgentDefinition, SessionError> {
        let shared = &self.engine.shared;
        check_limit(agents, request, shared.max_handoffs())
            .map_err(SessionError::Run)
            .and_then(|()| shared.require_agent(&request.to))
            .map_err(|error| self.stop_chain(&request.to, error, frame, trace))
    }

    /// Writes the end of a run that handed off to no run that started; its store error.
    async fn close(&self, closing: Closing) -> Option<ContextError> {
        let store = self.engine.store.as_ref()?;
        let closed: Result<_, ContextError> = store
            .writer
            .call(move |records| Ok(records.close(closing)))
            .await;
        closed.unwrap_or_else(Some)
    }

    /// The chain stops before `to` could start: the run's failure event, and the error.
    fn stop_chain(
        &self,
        to: &str,
        error: SessionError,
        frame: &Frame,
        trace: &mut TurnTracing,
    ) -> SessionError {
        let error = match error {
            SessionError::Run(error @ RunError::HandoffLimit { .. }) => error,
            other => {
                let error =
                    RunError::Aborted(format!("the handoff to `{to}` could not start it: {other}"));
                trace.handoff_failed(&error.to_string());
                error
            }
        };
        self.sink.emit(frame.wrap(RunEvent::RunFailed {
            error: error.to_string(),
        }));
        SessionError::Run(error)
    }

    /// Runs the graph `target` a handoff named, on its brief; its last node's result is the
    /// turn's.
    async fn hand_to_graph(
        &mut self,
        target: &AgentDefinition,
        request: &HandoffRequest,
        answer: &str,
        prompt: &str,
        trace: &TurnTracing,
    ) -> Result<RunResult, SessionError> {
        self.sink.emit(EventMsg::AgentSwitched {
            from: request.from.clone(),
            to: request.to.clone(),
            reason: request.reason.clone(),
        });
        let input = brief(request, answer, prompt, HandoffHistory::Summary);
        let parent = trace.context().cloned();
        // Boxed: a graph's nodes are agent turns in their turn.
        let run = Box::pin(graph_turn(self, target, StartAt::New(input), parent));
        match run.await {
            Ok((_, result)) => Ok(result),
            Err(GraphError::Cancelled) => Err(SessionError::Run(RunError::Cancelled)),
            Err(error) => Err(SessionError::Graph(Box::new(error))),
        }
    }

    /// Without a store, the agent's conversation so far is what its last run saw and said.
    fn remember(&self, agent: &AgentDefinition, mode: ContextMode, result: &RunResult) {
        if self.engine.store.is_some() || mode == ContextMode::Run {
            return;
        }
        lock(&self.engine.conversation.memory)
            .insert(agent.name().to_owned(), result.messages.clone());
    }

    /// One run of `agent`: its kit, its preparation (with `closing`, the end of the run that
    /// handed off to it, written in the same commit), its events, its recording's end — left
    /// in `closing` when it hands off.
    async fn run_agent(
        &mut self,
        agent: &AgentDefinition,
        kind: RunKind,
        model: Option<String>,
        closing: &mut Option<Closing>,
        frame: &Frame,
        trace: &mut TurnTracing,
    ) -> Result<RunEnd, SessionError> {
        let engine = Arc::clone(&self.engine);
        let (kit, warnings) = engine.kit(agent).await;
        self.warn(warnings);
        let handoff = match &kind {
            RunKind::Handoff { request, .. } => Some(request.clone()),
            RunKind::First { .. } => None,
        };
        // A turn narrowed to some tools (a command's `allowed-tools`) is narrowed for every
        // agent it runs, so a handoff is no way around it.
        let narrowed = match &self.options.allowed_tools {
            Some(allowed) => Some(narrowed(&kit.agent, kit.toolbox.tools(), allowed)?),
            None => None,
        };
        let agent = narrowed.as_ref().unwrap_or(&kit.agent);
        let first = matches!(kind, RunKind::First { .. });
        let mut options = self.run_options(model, first, trace.context().cloned());
        // The agent's permission mode, held to the turn's, and the turn's `allowed-tools`
        // patterns; what it starts is held to both.
        let narrowing = match &self.options.allowed_tools {
            Some(allowed) => Narrowing::new(allowed, engine.shared.builder.root())?,
            None => None,
        };
        let gate = self.gate.for_agent(agent).narrowed(narrowing);
        let mut ready = engine
            .prepare(agent, kind, &mut options, &gate, closing.take())
            .await?;
        self.announce(agent, &ready, handoff.as_ref(), frame);
        trace.next_run(agent.name(), &ready.prompt, 0);
        let sub_agents = if Arc::ptr_eq(&gate, &self.gate) {
            Arc::clone(&self.sub_agents)
        } else {
            Arc::new(SubAgents::new(&engine, Arc::clone(&gate))) as Arc<dyn SubAgentRunner>
        };
        let mut scope = gate
            .scope(agent)
            .tools(kit.toolbox.clone())
            .sub_agents(sub_agents);
        if let Some(model) = ready.model.clone() {
            scope = scope.model(model);
        }
        let handle = engine.runtime.run_in(agent, &ready.prompt, options, scope);
        let outcome = self
            .pump(handle, ready.recording.as_ref(), trace, frame)
            .await;
        let run = ready.recording.as_ref().map(|recording| recording.run().id);
        let mut save_error = ready.closed.take();
        if let Some(recording) = ready.recording {
            let ending = run_ending(ready.mode, &outcome);
            if matches!(&outcome, Ok(result) if result.handoff.is_some()) {
                *closing = Some(recording.closing(ending));
            } else {
                save_error = save_error.or(recording.finish(ending).await);
            }
        }
        Ok(RunEnd {
            outcome,
            save_error,
            run,
            mode: ready.mode,
        })
    }

    /// Tells the front end what the agent's kit and instruction files warned about.
    fn warn(&self, warnings: Vec<super::kits::KitWarning>) {
        for warning in warnings {
            self.sink.emit(EventMsg::Notice(warning.into()));
        }
        let met = std::mem::take(&mut *lock(&self.engine.shared.instruction_warnings));
        for warning in met {
            self.sink
                .emit(EventMsg::Notice(Notice::Instructions(warning)));
        }
    }

    /// The options of one run of the turn: the turn's, its cancellation, the project root as
    /// the tools' folder (never the process's), the trace; `model`, and the turn's effort, for
    /// the first agent only (`first`): agents it hands off to run on their own.
    fn run_options(
        &self,
        model: Option<String>,
        first: bool,
        trace: Option<TraceContext>,
    ) -> RunOptions {
        let turn = &self.options;
        RunOptions {
            effort: turn.effort.filter(|_| first),
            stream: turn.stream,
            max_tokens: turn.max_tokens,
            temperature: turn.temperature,
            max_turns: turn.max_turns,
            token_budget: turn.token_budget,
            cost_budget: turn.cost_budget,
            model,
            cancel: Some(self.cancel.clone()),
            working_dir: Some(self.engine.shared.builder.root().to_path_buf()),
            trace,
            ..RunOptions::default()
        }
    }

    /// Tells the front end who works now: the turn's start, or the handoff's switch.
    fn announce(
        &self,
        agent: &AgentDefinition,
        ready: &Ready,
        handoff: Option<&HandoffRequest>,
        frame: &Frame,
    ) {
        if ready.compacted {
            self.sink.emit(EventMsg::Notice(Notice::Compacted {
                agent: agent.name().to_owned(),
            }));
        }
        match (handoff, frame) {
            (Some(request), _) => self.sink.emit(EventMsg::AgentSwitched {
                from: request.from.clone(),
                to: request.to.clone(),
                reason: request.reason.clone(),
            }),
            (None, Frame::Turn) => self.sink.emit(EventMsg::TurnStarted {
                agent: agent.name().to_owned(),
                title: agent.spec.title.clone(),
                graph: false,
                context: ready.resolved,
                session_id: self.engine.session().map(|s| s.id().to_owned()),
            }),
            (None, Frame::Node(_)) => {}
        }
    }

    /// Passes the run's events on (to the store thread, the trace and the sink) and its
    /// questions once the events before them are out; returns the run's result.
    async fn pump(
        &mut self,
        mut handle: RunHandle,
        recording: Option<&Recording>,
        trace: &mut TurnTracing,
        frame: &Frame,
    ) -> Result<RunResult, RunError> {
        let reads = self.sink.reads_events();
        let mut pass = |event: RunEvent| {
            if let Some(recording) = recording {
                recording.event(&event);
            }
            trace.event(&event);
            if reads {
                self.sink.emit(frame.wrap(event));
            }
        };
        'run: loop {
            tokio::select! {
                biased;
                event = handle.next() => match event {
                    Some(event) => pass(event),
                    None => break,
                },
                Some(question) = self.questions.recv() => {
                    // Everything the run emitted before its question goes first.
                    loop {
                        match handle.next().now_or_never() {
                            Some(Some(event)) => pass(event),
                            Some(None) => {
                                self.sink.question(question);
                                break 'run;
                            }
                            None => break,
                        }
                    }
                    self.sink.question(question);
                }
            }
        }
        handle.result().await
    }
}
