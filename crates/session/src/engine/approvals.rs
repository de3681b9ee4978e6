//! Approvals as events. The session keeps one [`Gate`] for its whole life — the policy chain
//! and the answers the user gave "always" to — so an answer survives a handoff, an `@agent`
//! turn, a sub-agent and the next turn. When the chain says a person must answer, the turn's
//! [`TurnGate`] sends the question to the turn's driver (which emits it as
//! [`EventMsg::ApprovalRequested`](crate::EventMsg::ApprovalRequested) after every event the
//! run emitted before it) and waits on the [`Desk`] for the matching
//! [`Op::Approve`](crate::Op::Approve).

use super::locking::lock;
use crate::commands::Narrowing;
use crate::hooks::{AgentHooks, SessionHooks};
use agentctl_core::{
    AgentDefinition, CallGate, DecidedBy, Decision, PendingCall, PermissionMode, RiskLevel,
};
use agentctl_runtime::RunScope;
use agentctl_tools::{ApprovalAnswer, ApprovalRequest, Gate};
use async_trait::async_trait;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio::sync::{mpsc, oneshot};

/// Who answers the questions of a session's gate.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Questions {
    /// Nobody: a call that needs a person is refused at once, with a hint saying what would
    /// let it run (the default — safe calls run, as the settings' levels say, nothing else).
    #[default]
    Refuse,
    /// The front end: each question is an
    /// [`EventMsg::ApprovalRequested`](crate::EventMsg::ApprovalRequested), answered with
    /// [`Op::Approve`](crate::Op::Approve).
    Ask,
}

/// The questions waiting for an answer, by call id.
#[derive(Debug, Default)]
pub(crate) struct Desk {
    pending: Mutex<HashMap<String, oneshot::Sender<ApprovalAnswer>>>,
}

impl Desk {
    /// Opens a question about `call_id`: the id it is asked under (the call's, unless another
    /// pending question has it) and where its answer comes.
    fn open(self: &Arc<Self>, call_id: &str) -> (Opened, oneshot::Receiver<ApprovalAnswer>) {
        let (sender, receiver) = oneshot::channel();
        let mut pending = lock(&self.pending);
        let mut id = call_id.to_owned();
        let mut n = 1;
        while pending.contains_key(&id) {
            n += 1;
            id = format!("{call_id}~{n}");
        }
        pending.insert(id.clone(), sender);
        let opened = Opened {
            desk: Arc::clone(self),
            id,
        };
        (opened, receiver)
    }

    /// Answers the question `call_id`; false when none is pending under it.
    pub(crate) fn answer(&self, call_id: &str, answer: ApprovalAnswer) -> bool {
        let sender = lock(&self.pending).remove(call_id);
        sender.is_some_and(|sender| sender.send(answer).is_ok())
    }
}

/// A pending question, withdrawn when its call is answered, cancelled or dropped.
struct Opened {
    desk: Arc<Desk>,
    id: String,
}

impl Drop for Opened {
    fn drop(&mut self) {
        lock(&self.desk.pending).remove(&self.id);
    }
}

/// The gate of one turn's runs (its agents, the agents its handoffs start, its sub-agents):
/// the session's gate, with questions going to the turn.
///
/// It carries the turn's hooks too: every run that meets this gate — the turn's agent, a
/// handoff's target, a graph's nodes, a sub-agent at any depth — gets its scope from
/// [`scope`](Self::scope), so hooks, deny rules, levels and questions reach each alike.
pub(crate) struct TurnGate {
    gate: Arc<Gate>,
    desk: Arc<Desk>,
    questions: mpsc::UnboundedSender<ApprovalRequest>,
    hooks: Arc<SessionHooks>,
    /// The hooks of the run this gate judges the calls of (set by [`scope`](Self::scope)):
    /// its `PermissionRequest` hooks answer for the person.
    run_hooks: Option<Arc<AgentHooks>>,
    /// The turn's `allowed-tools` patterns (a command's), for every run it starts.
    narrowing: Option<Arc<Narrowing>>,
    /// The permission mode the calls meeting this gate are judged in.
    mode: PermissionMode,
    /// The loosest mode a run this gate starts may have: its starter's mode (none for the
    /// turn's own gate), so a sub-agent never runs looser than its parent.
    ceiling: PermissionMode,
}

impl TurnGate {
    /// The gate of a turn whose driver reads `questions`.
    pub(crate) fn new(
        gate: Arc<Gate>,
        desk: Arc<Desk>,
        questions: mpsc::UnboundedSender<ApprovalRequest>,
        hooks: Arc<SessionHooks>,
    ) -> Self {
        Self {
            gate,
            desk,
            questions,
            hooks,
            run_hooks: None,
            narrowing: None,
            mode: PermissionMode::Default,
            ceiling: PermissionMode::BypassPermissions,
        }
    }

    /// This gate for the runs of `agent`: its calls judged in the agent's permission mode
    /// held to this gate's ceiling, and that mode the ceiling of whatever it starts (its
    /// sub-agents and theirs). `bypassPermissions` counts as `default` unless `bypass`
    /// (the user's own settings allow it).
    pub(crate) fn for_agent(self: &Arc<Self>, agent: &AgentDefinition) -> Arc<TurnGate> {
        let own = agent_mode(agent, self.gate.bypass_allowed());
        let mode = own.within(self.ceiling);
        if mode == self.mode && mode == self.ceiling {
            return Arc::clone(self);
        }
        Arc::new(TurnGate {
            gate: Arc::clone(&self.gate),
            desk: Arc::clone(&self.desk),
            questions: self.questions.clone(),
            hooks: Arc::clone(&self.hooks),
            run_hooks: None,
            narrowing: self.narrowing.clone(),
            mode,
            ceiling: mode,
        })
    }

    /// This gate with the turn's `allowed-tools` patterns, for the run it judges and every
    /// run that one starts.
    pub(crate) fn narrowed(self: &Arc<Self>, narrowing: Option<Narrowing>) -> Arc<TurnGate> {
        let Some(narrowing) = narrowing else {
            return Arc::clone(self);
        };
        Arc::new(TurnGate {
            gate: Arc::clone(&self.gate),
            desk: Arc::clone(&self.desk),
            questions: self.questions.clone(),
            hooks: Arc::clone(&self.hooks),
            run_hooks: self.run_hooks.clone(),
            narrowing: Some(Arc::new(narrowing)),
            mode: self.mode,
            ceiling: self.ceiling,
        })
    }

    /// The permission mode the calls meeting this gate are judged in.
    pub(crate) fn mode(&self) -> PermissionMode {
        self.mode
    }

    /// The turn's hooks.
    pub(crate) fn hooks(&self) -> &Arc<SessionHooks> {
        &self.hooks
    }

    /// The policy part of a run of `agent`'s scope: this gate and the hooks of the settings
    /// and of `agent` (which answer this run's permission questions too).
    pub(crate) fn scope(self: &Arc<Self>, agent: &AgentDefinition) -> RunScope {
        let Some(hooks) = self.hooks.for_agent(agent, self.mode) else {
            return RunScope::new().gate(Arc::clone(self) as _);
        };
        let gate = TurnGate {
            gate: Arc::clone(&self.gate),
            desk: Arc::clone(&self.desk),
            questions: self.questions.clone(),
            hooks: Arc::clone(&self.hooks),
            run_hooks: Some(Arc::clone(&hooks)),
            narrowing: self.narrowing.clone(),
            mode: self.mode,
            ceiling: self.ceiling,
        };
        RunScope::new().gate(Arc::new(gate) as _).hooks(hooks as _)
    }

    /// Whether a `PermissionRequest` hook of this gate's run would be asked about `tool`.
    fn hook_answers(&self, tool: &str) -> bool {
        self.run_hooks
            .as_ref()
            .is_some_and(|hooks| hooks.answers_permission(tool))
    }
}

/// The permission mode `agent` asks for, `bypassPermissions` read as `default` unless
/// `bypass_allowed`.
pub(crate) fn agent_mode(agent: &AgentDefinition, bypass_allowed: bool) -> PermissionMode {
    match agent.spec.permission_mode.unwrap_or_default() {
        PermissionMode::BypassPermissions if !bypass_allowed => PermissionMode::Default,
        mode => mode,
    }
}

#[async_trait]
impl CallGate for TurnGate {
    fn decide(&self, call: &PendingCall<'_>) -> Decision {
        let decision = self.gate.judge_in(call, self.mode);
        // A command's `allowed-tools` pattern narrows (a refusal of the chain keeps its reason).
        if let Some(reason) = self.narrowing.as_ref().and_then(|n| n.refusal(call))
            && !matches!(decision, Decision::Deny { .. })
        {
            return Decision::deny(decision.risk(), reason);
        }
        // Without a person, a question a PermissionRequest hook answers still reaches `ask`.
        match decision {
            Decision::Ask { risk, reason }
                if !self.gate.asks() && !self.hook_answers(&call.call.name) =>
            {
                self.gate.refuse_unasked(call, risk, &reason)
            }
            decision => decision,
        }
    }

    async fn ask(&self, call: &PendingCall<'_>, risk: RiskLevel, reason: &str) -> Decision {
        let tool = call.call.name.as_str();
        let asks = self.gate.asks();
        if asks {
            self.hooks.notify(
                call.agent,
                self.mode,
                "permission_prompt",
                format!("agentctl needs your permission to use {tool}"),
            );
        }
        // A PermissionRequest hook answers for the person — with or without a terminal: a
        // deny always, an allow below `high` only (protected paths are rated `high`), as a
        // PreToolUse hook's allow.
        let answered = match &self.run_hooks {
            Some(hooks) => {
                hooks
                    .permission_request(call.agent, tool, &call.call.arguments)
                    .await
            }
            None => None,
        };
        match answered {
            Some(Err(why)) => {
                return Decision::Deny {
                    risk,
                    reason: format!("denied by a PermissionRequest hook: {why}"),
                    by: DecidedBy::Hook,
                    hint: None,
                };
            }
            Some(Ok(why)) if risk < RiskLevel::High => {
                return Decision::Allow {
                    risk,
                    reason: format!("allowed by a PermissionRequest hook: {why}"),
                    by: DecidedBy::Hook,
                };
            }
            _ => {}
        }
        if !asks {
            // Nobody can answer what the hooks left open.
            return self.gate.refuse_unasked(call, risk, reason);
        }
        let mut question = self.gate.question(call, risk, reason);
        let (opened, answer) = self.desk.open(&question.call_id);
        question.call_id.clone_from(&opened.id);
        if self.questions.send(question).is_err() {
            // The turn is over: nobody will see the question.
            return Decision::Deny {
                risk,
                reason: format!(
                    "denied: {} needs approval (risk {risk}: {reason}) and its turn has ended",
                    call.call.name
                ),
                by: DecidedBy::NonTerminal,
                hint: None,
            };
        }
        // A question withdrawn without an answer (the session shut down) is a no, never a yes.
        let answer = answer.await.unwrap_or(ApprovalAnswer::Deny);
        drop(opened);
        self.gate.answer(call, risk, reason, answer)
    }
}
