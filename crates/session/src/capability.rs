//! Capability context: a pool of executors (agents) with the capabilities their tools give
//! them, a Markdown section for an orchestrator's system prompt, and dispatch that stops with
//! a structured report when no available executor has what a task needs.

use globset::Glob;
use serde::Serialize;
use std::collections::BTreeSet;
use std::fmt;

/// Capabilities and the tools that give them. MCP tools `mcp.<server>.<tool>` give
/// `mcp:<server>`.
pub const CAPABILITY_TOOLS: &[(&str, &[&str])] = &[
    ("read_code", &["read_file", "read_many_files"]),
    ("search_code", &["grep", "glob"]),
    ("write_code", &["write_file", "edit_file", "delete_file"]),
    ("run_commands", &["bash"]),
];

/// Whether an executor can take work.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ExecutorStatus {
    /// Idle.
    Available,
    /// Running a task.
    Busy,
    /// Failed and not usable until reset.
    Error,
}

impl fmt::Display for ExecutorStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ExecutorStatus::Available => "available",
            ExecutorStatus::Busy => "busy",
            ExecutorStatus::Error => "error",
        })
    }
}

/// An agent of the pool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Executor {
    /// Agent name.
    pub name: String,
    /// Its tools (names or patterns, as in the agent file's allow list).
    pub tools: Vec<String>,
    /// Its status.
    pub status: ExecutorStatus,
}

impl Executor {
    /// An available executor.
    pub fn new(
        name: impl Into<String>,
        tools: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        Self {
            name: name.into(),
            tools: tools.into_iter().map(Into::into).collect(),
            status: ExecutorStatus::Available,
        }
    }

    /// The capabilities its tools give it, sorted.
    pub fn capabilities(&self) -> BTreeSet<String> {
        let mut capabilities = BTreeSet::new();
        for tool in &self.tools {
            if let Some(server) = tool
                .strip_prefix("mcp.")
                .and_then(|rest| rest.split('.').next())
            {
                capabilities.insert(format!("mcp:{server}"));
                continue;
            }
            let matcher = Glob::new(tool).ok().map(|glob| glob.compile_matcher());
            for (capability, tools) in CAPABILITY_TOOLS {
                let gives = tools.iter().any(|name| match &matcher {
                    Some(matcher) => matcher.is_match(name),
                    None => name == tool,
                });
                if gives {
                    capabilities.insert((*capability).to_owned());
                }
            }
        }
        capabilities
    }
}

/// A task to dispatch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TaskSpec {
    /// What to do.
    pub description: String,
    /// Capabilities the executor needs.
    pub required_capabilities: Vec<String>,
}

/// Why a task could not be dispatched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StopReport {
    /// The task.
    pub task: String,
    /// Required capabilities no available executor has.
    pub missing_capabilities: Vec<String>,
    /// Executors that have them but are busy or failed.
    pub unavailable_executors: Vec<String>,
    /// One-line explanation.
    pub reason: String,
}

impl fmt::Display for StopReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.reason)
    }
}

impl std::error::Error for StopReport {}

/// The executors an orchestrator can dispatch to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ResourcePool {
    executors: Vec<Executor>,
}

/// One row of the capability table: a capability, its tools and who has it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CapabilityRow {
    /// The capability.
    pub capability: String,
    /// Tools that give it.
    pub tools: Vec<String>,
    /// Executors that have it.
    pub executors: Vec<String>,
}

/// What [`ResourcePool::build_agent_context`] renders into a system prompt section.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AgentCapabilityContext {
    /// The pool with each executor's status and capabilities.
    pub executors: Vec<(Executor, Vec<String>)>,
    /// The capability table.
    pub capabilities: Vec<CapabilityRow>,
    /// The current task, if any.
    pub task: Option<TaskSpec>,
    /// Why the current task cannot be dispatched, if it cannot.
    pub stop: Option<StopReport>,
}

impl ResourcePool {
    /// A pool of executors.
    pub fn new(executors: Vec<Executor>) -> Self {
        Self { executors }
    }

    /// The executors.
    pub fn executors(&self) -> &[Executor] {
        &self.executors
    }

    /// Sets an executor's status; false if there is none by that name.
    pub fn set_status(&mut self, name: &str, status: ExecutorStatus) -> bool {
        match self
            .executors
            .iter_mut()
            .find(|executor| executor.name == name)
        {
            Some(executor) => {
                executor.status = status;
                true
            }
            None => false,
        }
    }

    /// The first available executor with every capability the task needs, or a stop report
    /// naming what is missing.
    ///
    /// ```
    /// use agentctl_session::{Executor, ResourcePool, TaskSpec};
    /// let pool = ResourcePool::new(vec![Executor::new("reader", ["read_file", "grep"])]);
    /// let task = TaskSpec {
    ///     description: "fix the bug".into(),
    ///     required_capabilities: vec!["read_code".into(), "write_code".into()],
    /// };
    /// let stop = pool.dispatch(&task).unwrap_err();
    /// assert_eq!(stop.missing_capabilities, ["write_code"]);
    /// ```
    pub fn dispatch(&self, task: &TaskSpec) -> Result<&Executor, StopReport> {
        let required: BTreeSet<&str> = task
            .required_capabilities
            .iter()
            .map(String::as_str)
            .collect();
        let has_all = |executor: &Executor| {
            let capabilities = executor.capabilities();
            required.iter().all(|needed| capabilities.contains(*needed))
        };
        if let Some(executor) = self
            .executors
            .iter()
            .find(|executor| executor.status == ExecutorStatus::Available && has_all(executor))
        {
            return Ok(executor);
        }
        let available: BTreeSet<String> = self
            .executors
            .iter()
            .filter(|executor| executor.status == ExecutorStatus::Available)
            .flat_map(Executor::capabilities)
            .collect();
        let missing: Vec<String> = required
            .iter()
            .filter(|needed| !available.contains(**needed))
            .map(|needed| (*needed).to_owned())
            .collect();
        let unavailable: Vec<String> = self
            .executors
            .iter()
            .filter(|executor| executor.status != ExecutorStatus::Available && has_all(executor))
            .map(|executor| format!("{} ({})", executor.name, executor.status))
            .collect();
        let reason = if missing.is_empty() {
            format!(
                "task `{}` stopped: no single available executor has all of {}",
                task.description,
                task.required_capabilities.join(", ")
            )
        } else {
            format!(
                "task `{}` stopped: no available executor has the capability {}",
                task.description,
                missing.join(", ")
            )
        };
        Err(StopReport {
            task: task.description.clone(),
            missing_capabilities: missing,
            unavailable_executors: unavailable,
            reason,
        })
    }

    /// The pool, the capability table and the task's dispatch outcome, for the prompt.
    pub fn build_agent_context(&self, task: Option<&TaskSpec>) -> AgentCapabilityContext {
        let executors: Vec<(Executor, Vec<String>)> = self
            .executors
            .iter()
            .map(|executor| {
                (
                    executor.clone(),
                    executor.capabilities().into_iter().collect(),
                )
            })
            .collect();
        let mut names: BTreeSet<String> = CAPABILITY_TOOLS
            .iter()
            .map(|(capability, _)| (*capability).to_owned())
            .collect();
        names.extend(executors.iter().flat_map(|(_, caps)| caps.iter().cloned()));
        let capabilities = names
            .into_iter()
            .map(|capability| CapabilityRow {
                tools: CAPABILITY_TOOLS
                    .iter()
                    .find(|(name, _)| *name == capability)
                    .map_or_else(
                        || vec![format!("{}.*", capability.replacen(':', ".", 1))],
                        |(_, tools)| tools.iter().map(|tool| (*tool).to_owned()).collect(),
                    ),
                executors: executors
                    .iter()
                    .filter(|(_, caps)| caps.contains(&capability))
                    .map(|(executor, _)| executor.name.clone())
                    .collect(),
                capability,
            })
            .collect();
        AgentCapabilityContext {
            executors,
            capabilities,
            task: task.cloned(),
            stop: task.and_then(|task| self.dispatch(task).err()),
        }
    }
}

impl AgentCapabilityContext {
    /// The dynamic system prompt section, in Markdown.
    pub fn render_markdown(&self) -> String {
        let mut out =
            String::from("## Agent pool\n\n| Agent | Status | Capabilities |\n|---|---|---|\n");
        for (executor, capabilities) in &self.executors {
            out.push_str(&format!(
                "| {} | {} | {} |\n",
                executor.name,
                executor.status,
                if capabilities.is_empty() {
                    "—".to_owned()
                } else {
                    capabilities.join(", ")
                }
            ));
        }
        out.push_str("\n## Capabilities\n\n| Capability | Tools | Agents |\n|---|---|---|\n");
        for row in &self.capabilities {
            out.push_str(&format!(
                "| {} | {} | {} |\n",
                row.capability,
                row.tools.join(", "),
                if row.executors.is_empty() {
                    "—".to_owned()
                } else {
                    row.executors.join(", ")
                }
            ));
        }
        out.push_str("\n## Current task\n\n");
        match &self.task {
            Some(task) => out.push_str(&format!(
                "{}\n\nRequired capabilities: {}\n",
                task.description,
                if task.required_capabilities.is_empty() {
                    "none".to_owned()
                } else {
                    task.required_capabilities.join(", ")
                }
            )),
            None => out.push_str("None.\n"),
        }
        out.push_str("\n## Orchestrator note\n\n");
        match &self.stop {
            Some(stop) => out.push_str(&format!(
                "Do not dispatch this task: {}. Report the missing capability to the user.\n",
                stop.reason
            )),
            None => out.push_str(
                "Dispatch each task to an available agent that has every capability it needs; \
                 do not dispatch to busy or failed agents.\n",
            ),
        }
        out
    }
}
