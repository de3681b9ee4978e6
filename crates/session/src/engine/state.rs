//! What a session owns for its whole life, grouped by concern: the project's agents and servers
//! ([`Shared`]), the one runtime, the approvals (gate and desk), the store (open session and its
//! store thread), the tools (built-in set, `task`, per-agent kits), the conversation's state,
//! the running turns and the event stream.

use super::approvals::Desk;
use super::kits::{Kit, KitParts, KitWarning, Kits};
use super::locking::lock;
use super::protocol::{SessionEvent, Target, TurnId};
use super::writer::StoreWriter;
use crate::hooks::HookRunner;
use crate::plan::PlanTools;
use crate::session::SessionHandle;
use crate::shared::Shared;
use crate::task::TaskTool;
use crate::toolset::{AgentTools, BuiltinTools, McpTools};
use agentctl_core::{AgentDefinition, ContextMode, Message};
use agentctl_runtime::Runtime;
use agentctl_tools::Gate;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};
use tokio_util::sync::CancellationToken;

/// The state of a session.
pub(crate) struct Engine {
    pub(crate) shared: Shared,
    /// Providers, guardrails and the redactor, for every run of the session.
    pub(crate) runtime: Runtime,
    pub(crate) approvals: Approvals,
    /// The open session and its store thread; `None` when nothing is recorded.
    pub(crate) store: Option<Store>,
    pub(crate) tools: Tools,
    pub(crate) conversation: Conversation,
    pub(crate) turns: Turns,
    pub(crate) hub: Hub,
    /// The hooks of the settings, and where and how they run.
    pub(crate) hooks: Arc<HookRunner>,
    /// Where turns are spawned.
    pub(crate) handle: tokio::runtime::Handle,
    /// The start of the `autoStart` MCP servers, which shutting down waits for.
    pub(crate) starting: std::sync::Mutex<Option<tokio::task::JoinHandle<()>>>,
}

/// The gate (with the answers given "always") and the questions waiting.
pub(crate) struct Approvals {
    pub gate: Arc<Gate>,
    pub desk: Arc<Desk>,
}

/// The open session of the store and the thread every read and write goes through.
pub(crate) struct Store {
    pub session: SessionHandle,
    pub writer: StoreWriter,
}

/// The tools of the session's agents.
pub(crate) struct Tools {
    /// The built-in tools, one set for every agent.
    pub builtin: BuiltinTools,
    /// The session's `task` tool (only in a recorded session).
    pub task: Option<TaskTool>,
    /// The session's plan and its tools, for the agents that plan.
    pub plan: PlanTools,
    pub kits: Kits,
}

/// The session's conversation: who it talks to, and what it said when nothing records it.
pub(crate) struct Conversation {
    /// Where [`Target::Active`] goes: an agent, or (`None`) the main conversation.
    pub active: Mutex<Option<String>>,
    /// Each agent's conversation so far, when no store records it.
    pub memory: Mutex<HashMap<String, Vec<Message>>>,
    /// Context modes set with `SetContextMode`, when no store records them.
    pub modes: Mutex<HashMap<String, ContextMode>>,
}

/// The turns running, each with the token that cancels it.
#[derive(Default)]
pub(crate) struct Turns {
    next: AtomicU64,
    running: Mutex<HashMap<TurnId, CancellationToken>>,
    /// Woken when the last running turn ends.
    ended: tokio::sync::Notify,
    /// Fired by `Shutdown`: cancels every turn, present and future.
    pub closed: CancellationToken,
}

/// The session's event stream.
pub(crate) struct Hub {
    pub sender: UnboundedSender<SessionEvent>,
    pub receiver: Mutex<Option<UnboundedReceiver<SessionEvent>>>,
}

impl Engine {
    /// The kit of `agent` (its own tools), assembled on first use with the warnings met.
    pub(crate) async fn kit(&self, agent: &AgentDefinition) -> (Arc<Kit>, Vec<KitWarning>) {
        let parts = KitParts {
            shared: &self.shared,
            builtin: &self.tools.builtin,
            session: self.store.as_ref().map(|store| &store.session),
            task: self.tools.task.as_ref(),
            plan: &self.tools.plan,
        };
        self.tools.kits.get(agent, parts).await
    }

    /// The tools a run of `agent` is offered in this session, assembled afresh with the MCP
    /// tools `which` says.
    pub(crate) async fn agent_tools(&self, agent: &AgentDefinition, which: McpTools) -> AgentTools {
        let parts = KitParts {
            shared: &self.shared,
            builtin: &self.tools.builtin,
            session: self.store.as_ref().map(|store| &store.session),
            task: self.tools.task.as_ref(),
            plan: &self.tools.plan,
        };
        super::kits::assemble_tools(agent, &parts, which).await
    }

    /// The open session, if the session is recorded.
    pub(crate) fn session(&self) -> Option<&SessionHandle> {
        self.store.as_ref().map(|store| &store.session)
    }

    /// The target [`Target::Active`] stands for now.
    pub(crate) fn active(&self) -> Target {
        match lock(&self.conversation.active).clone() {
            Some(agent) => Target::Agent(agent),
            None => Target::Main,
        }
    }

    /// The agent a later [`Target::Active`] turn goes to.
    pub(crate) fn set_active(&self, agent: &str) {
        *lock(&self.conversation.active) = Some(agent.to_owned());
    }
}

impl Turns {
    /// A new turn: its id and the token that cancels it (a child of `parent` when given).
    pub(crate) fn open(&self, parent: Option<&CancellationToken>) -> (TurnId, CancellationToken) {
        let id = TurnId(self.next.fetch_add(1, Ordering::Relaxed) + 1);
        let cancel = match parent {
            Some(parent) => parent.child_token(),
            None => CancellationToken::new(),
        };
        if self.closed.is_cancelled() {
            cancel.cancel();
        }
        lock(&self.running).insert(id, cancel.clone());
        (id, cancel)
    }

    /// A submission that is not a turn: only an id.
    pub(crate) fn id(&self) -> TurnId {
        TurnId(self.next.fetch_add(1, Ordering::Relaxed) + 1)
    }

    /// The turn ended.
    pub(crate) fn close(&self, id: TurnId) {
        let mut running = lock(&self.running);
        running.remove(&id);
        if running.is_empty() {
            self.ended.notify_waiters();
        }
    }

    /// Waits until no turn runs.
    pub(crate) async fn idle(&self) {
        loop {
            // Registered before the check: a turn ending in between still wakes it.
            let ended = self.ended.notified();
            if lock(&self.running).is_empty() {
                return;
            }
            ended.await;
        }
    }

    /// Cancels `turn` (every turn when `None`); false when no such turn runs.
    pub(crate) fn interrupt(&self, turn: Option<TurnId>) -> bool {
        let running = lock(&self.running);
        match turn {
            Some(id) => running.get(&id).map(CancellationToken::cancel).is_some(),
            None => {
                running.values().for_each(CancellationToken::cancel);
                !running.is_empty()
            }
        }
    }
}
