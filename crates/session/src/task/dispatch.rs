//! Which executor runs a task: the pool's check and its status change under one lock (two
//! calls of one turn never both take one executor), the per-task capability context the
//! executor is given, and the lease that gives the executor back when the task ends — also
//! when the call is cancelled or its future dropped, and as `error` when the child panicked.
//!
//! * A task naming an agent of the pool (not the caller) runs only if that agent is
//!   available and has every required capability.
//! * A task naming no agent but some `capabilities` goes to the first available agent of the
//!   pool (not the caller) that has them all, else to the default child (a copy of the
//!   caller) if that has them, else stops.
//! * Otherwise it runs the default child or the caller's copy, which are not pool executors:
//!   copies of oneself are never busy.
//! * Failed executors are reset to `available` when another top-level run dispatches its
//!   first task: an `error` lasts for the rest of the turn it happened in.

use super::Inner;
use crate::capability::{
    AgentCapabilityContext, Executor, ExecutorStatus, ResourcePool, StopReport, TaskSpec,
};
use agentctl_core::{AgentDefinition, ToolContext};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// The pool of a task tool and the top-level run it last served.
#[derive(Debug, Default)]
pub(crate) struct PoolState {
    pub pool: ResourcePool,
    /// Run id of the top-level run whose tasks the pool serves now.
    turn: Option<String>,
}

impl PoolState {
    pub(crate) fn new(pool: ResourcePool) -> Self {
        Self { pool, turn: None }
    }
}

/// Locks the pool. Nothing panics while holding it, but a poisoned lock still holds a usable
/// pool: take it rather than fail every later task.
pub(crate) fn lock(pool: &Mutex<PoolState>) -> MutexGuard<'_, PoolState> {
    pool.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A dispatched task: who runs it (its system prompt ending with the task's capability
/// context), that context, and the lease of its pool executor, if it is one.
pub(crate) struct Assignment {
    pub agent: AgentDefinition,
    pub context: AgentCapabilityContext,
    pub lease: Option<Lease>,
}

/// Picks the executor of `task` and marks it busy, or says why the task stops. `named` is the
/// `agent` argument, `note` the caller's note for this dispatch; `default_child` the definition the call runs without a pool executor
/// (the named agent, the caller's copy or the general sub-agent).
pub(crate) fn assign(
    inner: &Inner,
    task: &TaskSpec,
    note: Option<&str>,
    named: Option<&str>,
    default_child: AgentDefinition,
    ctx: &ToolContext,
) -> Result<Assignment, Box<StopReport>> {
    let caller = ctx.agent();
    let mut state = lock(&inner.pool);
    if ctx.depth() == 0 && state.turn.as_deref() != Some(ctx.run_id()) {
        state.pool.reset_errors();
        state.turn = Some(ctx.run_id().to_owned());
    }
    let chosen: Option<String> = match named {
        Some(name) if name != caller => match state.pool.dispatch_to(name, task) {
            Some(Ok(executor)) => Some(executor.name.clone()),
            Some(Err(stop)) => return Err(stop),
            None => {
                yourself(&default_child, task)?;
                None
            }
        },
        Some(_) => {
            yourself(&default_child, task)?;
            None
        }
        None if task.required_capabilities.is_empty() => None,
        None => match state
            .pool
            .dispatch_among(task, |executor| executor.name != caller)
        {
            Ok(executor) => Some(executor.name.clone()),
            Err(stop) => {
                yourself(&default_child, task).map_err(|_| stop)?;
                None
            }
        },
    };
    let mut agent = chosen
        .as_deref()
        .and_then(|name| inner.agents.iter().find(|agent| agent.name() == name))
        .cloned()
        .unwrap_or(default_child);
    let lease = chosen.map(|name| {
        state.pool.set_status(&name, ExecutorStatus::Busy);
        Lease {
            pool: Arc::clone(&inner.pool),
            name,
            failed: false,
        }
    });
    // The pool as it is now, the executor busy with this task.
    let mut context = state.pool.build_agent_context(Some(task));
    drop(state);
    context.stop = None;
    context.assigned_to = Some(agent.name().to_owned());
    context.orchestrator_note = orchestrator_note(inner.orchestrator_note.as_deref(), note);
    agent.system_prompt = format!(
        "{}\n\n# Task context\n\n{}",
        agent.system_prompt.trim_end(),
        context.render_markdown()
    );
    Ok(Assignment {
        agent,
        context,
        lease,
    })
}

/// Characters of a caller's note kept in the executor's context.
const NOTE_CHARS: usize = 1_000;

/// The note of one dispatch: the settings' note (`agents.orchestratorNote`), then the caller's
/// own for this task (seed 004's per-dispatch `orchestratorNote`) — text a model wrote, so on
/// one line and shortened: it can neither forge a heading nor fill the executor's prompt.
fn orchestrator_note(settings: Option<&str>, dispatch: Option<&str>) -> Option<String> {
    let dispatch = dispatch.map(|note| super::prompt::shorten_to(note, NOTE_CHARS));
    let notes: Vec<&str> = [settings, dispatch.as_deref()]
        .into_iter()
        .flatten()
        .map(str::trim)
        .filter(|note| !note.is_empty())
        .collect();
    (!notes.is_empty()).then(|| notes.join("\n\n"))
}

/// Whether `agent` itself (a copy of the caller, which is never busy) has what `task` needs.
fn yourself(agent: &AgentDefinition, task: &TaskSpec) -> Result<(), Box<StopReport>> {
    let solo = ResourcePool::new(vec![Executor::from_agent(agent)]);
    match solo.dispatch_to(agent.name(), task) {
        Some(Err(stop)) => Err(stop),
        _ => Ok(()),
    }
}

/// A pool executor taken by a running task. Dropping it makes the executor available again,
/// or `error` when the task [`fail`](Lease::fail)ed or the child panicked.
pub(crate) struct Lease {
    pool: Arc<Mutex<PoolState>>,
    name: String,
    failed: bool,
}

impl Lease {
    /// The task failed: the executor is `error` once it is given back.
    pub(crate) fn fail(&mut self) {
        self.failed = true;
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        let status = if self.failed || std::thread::panicking() {
            ExecutorStatus::Error
        } else {
            ExecutorStatus::Available
        };
        lock(&self.pool).pool.set_status(&self.name, status);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::panic::{AssertUnwindSafe, catch_unwind};

    fn lease_of(pool: &Arc<Mutex<PoolState>>) -> Lease {
        lock(pool).pool.set_status("a", ExecutorStatus::Busy);
        Lease {
            pool: Arc::clone(pool),
            name: "a".into(),
            failed: false,
        }
    }

    fn status(pool: &Arc<Mutex<PoolState>>) -> ExecutorStatus {
        lock(pool).pool.executor("a").map(|e| e.status).unwrap()
    }

    #[test]
    fn a_lease_gives_the_executor_back_available_failed_or_after_a_panic() {
        let pool = Arc::new(Mutex::new(PoolState::new(ResourcePool::new(vec![
            Executor::new("a", ["bash"]),
        ]))));
        drop(lease_of(&pool));
        assert_eq!(status(&pool), ExecutorStatus::Available);

        let mut lease = lease_of(&pool);
        lease.fail();
        drop(lease);
        assert_eq!(status(&pool), ExecutorStatus::Error);

        lock(&pool).pool.reset_errors();
        let lease = lease_of(&pool);
        let unwound = catch_unwind(AssertUnwindSafe(move || {
            let _held = lease;
            panic!("the child panicked");
        }));
        assert!(unwound.is_err());
        // Not left busy forever: failed, and the lock still works.
        assert_eq!(status(&pool), ExecutorStatus::Error);
    }
}
