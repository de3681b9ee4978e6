//! Capability context (seed 004): a pool of executors (agents) with the capabilities their
//! tools give them and a status each (`available`, `busy`, `error`), the context an agent is
//! given about it — as data ([`AgentCapabilityContext`]: timestamp, counts, available
//! capabilities, capability → executors, the current task, the orchestrator's note) and as a
//! Markdown section for a system prompt — and dispatch that stops with a structured
//! [`StopReport`] when no available executor has what a task needs.
//!
//! The `task` tool keeps one pool per tool (one per conversation) and changes it as tasks run:
//! see [`TaskTool`](crate::TaskTool) for when an executor is busy, failed and available again.

mod render;

use agentctl_core::{AgentDefinition, ToolFilter, ToolPolicy};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// Capabilities and the tools that give them (seed 004's capability → tool table, with this
/// project's tool names). MCP tools `mcp.<server>.<tool>` give `mcp:<server>`.
pub const CAPABILITY_TOOLS: &[(&str, &[&str])] = &[
    ("read_code", &["read_file", "read_many_files"]),
    ("search_code", &["grep", "glob"]),
    ("write_code", &["write_file", "edit_file", "delete_file"]),
    ("run_commands", &["bash"]),
    ("web_search", &["web_search"]),
    ("web_fetch", &["web_fetch"]),
];

/// Seed 004's capability names, accepted wherever a capability is named (a `task`'s
/// `capabilities`): each stands for the project's own capabilities listed with it.
pub const CAPABILITY_ALIASES: &[(&str, &[&str])] = &[
    ("file_ops", &["read_code", "write_code"]),
    ("code_generation", &["write_code"]),
    ("shell_exec", &["run_commands"]),
    ("report_generation", &["write_code"]),
];

/// The capabilities `name` stands for: itself when it is known (one of [`CAPABILITY_TOOLS`] or `mcp:<server>`),
/// the project's own for one of seed 004's names ([`CAPABILITY_ALIASES`]), else `None`.
///
/// ```
/// use agentctl_session::resolve_capability;
/// assert_eq!(resolve_capability("shell_exec"), Some(vec!["run_commands"]));
/// assert_eq!(resolve_capability("file_ops"), Some(vec!["read_code", "write_code"]));
/// assert_eq!(resolve_capability("mcp:github"), Some(vec!["mcp:github"]));
/// assert_eq!(resolve_capability("telepathy"), None);
/// ```
pub fn resolve_capability(name: &str) -> Option<Vec<&str>> {
    if let Some((_, canonical)) = CAPABILITY_ALIASES.iter().find(|(alias, _)| *alias == name) {
        return Some(canonical.to_vec());
    }
    is_known_capability(name).then(|| vec![name])
}

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
    /// Tools it may never use (its deny list), which give it nothing.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub denied: Vec<String>,
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
            denied: Vec::new(),
            status: ExecutorStatus::Available,
        }
    }

    /// An available executor for an agent: its allow list (every tool without one) and its
    /// deny list.
    pub fn from_agent(agent: &AgentDefinition) -> Self {
        let policy = &agent.spec.tools;
        Self {
            denied: policy.deny.clone(),
            ..Self::new(
                agent.name(),
                policy.allow.clone().unwrap_or_else(|| vec!["*".into()]),
            )
        }
    }

    /// The capabilities its tools give it, sorted. Patterns count (`read_*` gives
    /// `read_code`); a denied tool gives nothing; tool lists that do not compile give nothing.
    pub fn capabilities(&self) -> BTreeSet<String> {
        let policy = ToolPolicy {
            allow: Some(self.tools.clone()),
            deny: self.denied.clone(),
        };
        let Ok(filter) = ToolFilter::new(&policy) else {
            return BTreeSet::new();
        };
        let mut capabilities: BTreeSet<String> = CAPABILITY_TOOLS
            .iter()
            .filter(|(_, tools)| tools.iter().any(|tool| filter.allows(tool)))
            .map(|(capability, _)| (*capability).to_owned())
            .collect();
        for tool in &self.tools {
            // `mcp.github.*` or `mcp.github.create_issue`, unless denied as written.
            if let Some(server) = tool
                .strip_prefix("mcp.")
                .and_then(|rest| rest.split('.').next())
                .filter(|server| !server.is_empty() && !server.contains(['*', '?', '[', '{']))
                && filter.allows(tool)
            {
                capabilities.insert(format!("mcp:{server}"));
            }
        }
        capabilities
    }
}

/// A task to dispatch (seed 004's `task`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskSpec {
    /// Its id (the `task` tool uses the id of the call).
    pub id: String,
    /// What to do.
    pub description: String,
    /// Capabilities the executor needs.
    pub required_capabilities: Vec<String>,
    /// The id of the task in an issue tracker (seed 004's `bdTaskId`, e.g. a beads id), carried
    /// from the dispatch to the executor's context and the task's result.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bd_task_id: Option<String>,
}

/// Why a task could not be dispatched (seed 004's STOP): what is missing, who has it but
/// cannot take it, and the catalog lines of the capabilities the task needs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StopReport {
    /// The task's id.
    pub task_id: String,
    /// The task.
    pub task: String,
    /// Capabilities it needs.
    pub required_capabilities: Vec<String>,
    /// Required capabilities no available executor has (for a task naming its agent: those
    /// that agent lacks).
    pub missing_capabilities: Vec<String>,
    /// Executors that have them (or the named one) but are busy or failed: `name (status)`.
    pub unavailable_executors: Vec<String>,
    /// The capability catalog's rows of the required capabilities.
    pub catalog: Vec<CapabilityRow>,
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

/// Counts of the pool by status (seed 004's `resourcePool`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct PoolSummary {
    /// Executors in the pool.
    pub total: usize,
    /// Idle ones.
    pub available: usize,
    /// Running a task.
    pub busy: usize,
    /// Failed.
    pub error: usize,
}

/// One executor as the context shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ExecutorEntry {
    /// Agent name.
    pub name: String,
    /// Its status.
    pub status: ExecutorStatus,
    /// The capabilities its tools give it.
    pub capabilities: Vec<String>,
}

/// One row of the capability catalog: a capability, its tools and who has it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CapabilityRow {
    /// The capability.
    pub capability: String,
    /// Tools that give it.
    pub tools: Vec<String>,
    /// Available executors that have it.
    pub available: Vec<String>,
    /// Busy or failed executors that have it: `name (status)`.
    pub unavailable: Vec<String>,
}

impl CapabilityRow {
    /// Executors that have it, whatever their status.
    pub fn total(&self) -> usize {
        self.available.len() + self.unavailable.len()
    }
}

/// Seed 004's `AgentContext`: what an agent is told about the pool, built fresh for each
/// dispatch by [`ResourcePool::build_agent_context`] and rendered into its system prompt by
/// [`render_markdown`](AgentCapabilityContext::render_markdown). Serialises camelCase, as the
/// seed writes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentCapabilityContext {
    /// When it was built, RFC 3339 UTC (`2025-01-01T12:00:00Z`).
    pub timestamp: String,
    /// Counts by status.
    pub resource_pool: PoolSummary,
    /// Each executor with its status and capabilities.
    pub executors: Vec<ExecutorEntry>,
    /// Capabilities at least one available executor has, sorted.
    pub available_capabilities: Vec<String>,
    /// Each capability some executor has → those executors (any status).
    pub capability_to_resources: BTreeMap<String, Vec<String>>,
    /// The capability catalog: every known capability and every one an executor has.
    pub capabilities: Vec<CapabilityRow>,
    /// The current task, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskSpec>,
    /// The executor the task went to, if it was dispatched.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub assigned_to: Option<String>,
    /// The orchestrator's instruction (settings `agents.orchestratorNote`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub orchestrator_note: Option<String>,
    /// Why the current task cannot be dispatched, if it cannot.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop: Option<StopReport>,
}

impl ResourcePool {
    /// A pool of executors.
    pub fn new(executors: Vec<Executor>) -> Self {
        Self { executors }
    }

    /// A pool of the given agents, all available.
    pub fn from_agents<'a>(agents: impl IntoIterator<Item = &'a AgentDefinition>) -> Self {
        Self::new(agents.into_iter().map(Executor::from_agent).collect())
    }

    /// The executors.
    pub fn executors(&self) -> &[Executor] {
        &self.executors
    }

    /// The executor called `name`.
    pub fn executor(&self, name: &str) -> Option<&Executor> {
        self.executors.iter().find(|executor| executor.name == name)
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

    /// Makes every failed executor available again; returns their names.
    pub fn reset_errors(&mut self) -> Vec<String> {
        self.executors
            .iter_mut()
            .filter(|executor| executor.status == ExecutorStatus::Error)
            .map(|executor| {
                executor.status = ExecutorStatus::Available;
                executor.name.clone()
            })
            .collect()
    }

    /// Counts by status.
    pub fn summary(&self) -> PoolSummary {
        let count = |status| {
            self.executors
                .iter()
                .filter(|executor| executor.status == status)
                .count()
        };
        PoolSummary {
            total: self.executors.len(),
            available: count(ExecutorStatus::Available),
            busy: count(ExecutorStatus::Busy),
            error: count(ExecutorStatus::Error),
        }
    }

    /// Capabilities at least one available executor has, sorted.
    pub fn available_capabilities(&self) -> Vec<String> {
        self.executors
            .iter()
            .filter(|executor| executor.status == ExecutorStatus::Available)
            .flat_map(Executor::capabilities)
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect()
    }

    /// The first available executor with every capability the task needs, or a stop report
    /// naming what is missing (boxed: it is large, and the rare case).
    ///
    /// ```
    /// use agentctl_session::{Executor, ResourcePool, TaskSpec};
    /// let pool = ResourcePool::new(vec![Executor::new("reader", ["read_file", "grep"])]);
    /// let task = TaskSpec {
    ///     id: "task-1".into(),
    ///     description: "fix the bug".into(),
    ///     required_capabilities: vec!["read_code".into(), "write_code".into()],
    ///     bd_task_id: None,
    /// };
    /// let stop = pool.dispatch(&task).unwrap_err();
    /// assert_eq!(stop.missing_capabilities, ["write_code"]);
    /// assert!(stop.render().starts_with("STOP: task `task-1` was not dispatched"));
    /// ```
    pub fn dispatch(&self, task: &TaskSpec) -> Result<&Executor, Box<StopReport>> {
        self.dispatch_among(task, |_| true)
    }

    /// [`dispatch`](ResourcePool::dispatch) among the executors `eligible` accepts.
    pub fn dispatch_among(
        &self,
        task: &TaskSpec,
        eligible: impl Fn(&Executor) -> bool,
    ) -> Result<&Executor, Box<StopReport>> {
        let required = required(task);
        let has_all = |executor: &Executor| {
            let capabilities = executor.capabilities();
            required.iter().all(|needed| capabilities.contains(*needed))
        };
        if let Some(executor) = self.executors.iter().find(|executor| {
            executor.status == ExecutorStatus::Available && eligible(executor) && has_all(executor)
        }) {
            return Ok(executor);
        }
        let available: BTreeSet<String> = self.available_capabilities().into_iter().collect();
        let missing: Vec<String> = required
            .iter()
            .filter(|needed| !available.contains(**needed))
            .map(|needed| (*needed).to_owned())
            .collect();
        let unavailable: Vec<String> = self
            .executors
            .iter()
            .filter(|executor| executor.status != ExecutorStatus::Available && has_all(executor))
            .map(labelled)
            .collect();
        let reason = if !missing.is_empty() {
            format!(
                "no available agent has the capability {}",
                missing.join(", ")
            )
        } else if required.is_empty() {
            "no agent is available".to_owned()
        } else {
            format!(
                "no single available agent has all of {}",
                task.required_capabilities.join(", ")
            )
        };
        Err(self.stop(task, missing, unavailable, reason))
    }

    /// The executor called `name` if it is available and has every capability the task
    /// needs, else a stop report saying why not; `None` when the pool has no such executor.
    pub fn dispatch_to(
        &self,
        name: &str,
        task: &TaskSpec,
    ) -> Option<Result<&Executor, Box<StopReport>>> {
        let executor = self.executor(name)?;
        let capabilities = executor.capabilities();
        let lacking: Vec<String> = required(task)
            .into_iter()
            .filter(|needed| !capabilities.contains(*needed))
            .map(str::to_owned)
            .collect();
        let report = if !lacking.is_empty() {
            let others: Vec<String> = self
                .dispatch_among(task, |other| other.name != name)
                .map(|other| other.name.clone())
                .into_iter()
                .collect();
            let mut reason = format!("agent `{name}` lacks the capability {}", lacking.join(", "));
            if let Some(other) = others.first() {
                reason.push_str(&format!("; `{other}` is available and has them all"));
            }
            self.stop(task, lacking, Vec::new(), reason)
        } else if executor.status != ExecutorStatus::Available {
            let reason = match executor.status {
                ExecutorStatus::Busy => format!("agent `{name}` is busy with another task"),
                _ => format!("agent `{name}` failed earlier in this turn (error)"),
            };
            self.stop(task, Vec::new(), vec![labelled(executor)], reason)
        } else {
            return Some(Ok(executor));
        };
        Some(Err(report))
    }

    fn stop(
        &self,
        task: &TaskSpec,
        missing: Vec<String>,
        unavailable: Vec<String>,
        reason: String,
    ) -> Box<StopReport> {
        let rows = self.catalog();
        // In the task's order; a capability nobody has gets its (empty) row too.
        let catalog = task
            .required_capabilities
            .iter()
            .map(|capability| {
                rows.iter()
                    .find(|row| &row.capability == capability)
                    .cloned()
                    .unwrap_or_else(|| CapabilityRow {
                        capability: capability.clone(),
                        tools: capability_tools(capability),
                        available: Vec::new(),
                        unavailable: Vec::new(),
                    })
            })
            .collect();
        Box::new(StopReport {
            task_id: task.id.clone(),
            task: task.description.clone(),
            required_capabilities: task.required_capabilities.clone(),
            missing_capabilities: missing,
            unavailable_executors: unavailable,
            catalog,
            reason,
        })
    }

    /// Every known capability and every one an executor has, with its tools and who has it.
    pub fn catalog(&self) -> Vec<CapabilityRow> {
        let executors: Vec<(&Executor, BTreeSet<String>)> = self
            .executors
            .iter()
            .map(|executor| (executor, executor.capabilities()))
            .collect();
        let mut names: BTreeSet<String> = CAPABILITY_TOOLS
            .iter()
            .map(|(capability, _)| (*capability).to_owned())
            .collect();
        names.extend(executors.iter().flat_map(|(_, caps)| caps.iter().cloned()));
        names
            .into_iter()
            .map(|capability| {
                let having = executors
                    .iter()
                    .filter(|(_, caps)| caps.contains(&capability))
                    .map(|(executor, _)| *executor);
                let (available, unavailable): (Vec<&Executor>, Vec<&Executor>) =
                    having.partition(|executor| executor.status == ExecutorStatus::Available);
                CapabilityRow {
                    tools: capability_tools(&capability),
                    available: available.iter().map(|e| e.name.clone()).collect(),
                    unavailable: unavailable.into_iter().map(labelled).collect(),
                    capability,
                }
            })
            .collect()
    }

    /// Seed 004's `buildAgentContext`: the pool now (counts, available capabilities, the
    /// catalog), the task and, when it cannot be dispatched, why. Set
    /// [`orchestrator_note`](AgentCapabilityContext::orchestrator_note) and
    /// [`assigned_to`](AgentCapabilityContext::assigned_to) on the result as needed.
    pub fn build_agent_context(&self, task: Option<&TaskSpec>) -> AgentCapabilityContext {
        let executors: Vec<ExecutorEntry> = self
            .executors
            .iter()
            .map(|executor| ExecutorEntry {
                name: executor.name.clone(),
                status: executor.status,
                capabilities: executor.capabilities().into_iter().collect(),
            })
            .collect();
        let mut capability_to_resources: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for executor in &executors {
            for capability in &executor.capabilities {
                capability_to_resources
                    .entry(capability.clone())
                    .or_default()
                    .push(executor.name.clone());
            }
        }
        AgentCapabilityContext {
            timestamp: now_rfc3339(),
            resource_pool: self.summary(),
            executors,
            available_capabilities: self.available_capabilities(),
            capability_to_resources,
            capabilities: self.catalog(),
            task: task.cloned(),
            assigned_to: None,
            orchestrator_note: None,
            stop: task
                .and_then(|task| self.dispatch(task).err())
                .map(|stop| *stop),
        }
    }
}

/// Whether `capability` can be asked for: a known one, or `mcp:<server>`.
pub(crate) fn is_known_capability(capability: &str) -> bool {
    CAPABILITY_TOOLS.iter().any(|(name, _)| *name == capability)
        || capability
            .strip_prefix("mcp:")
            .is_some_and(|server| !server.is_empty() && !server.contains(char::is_whitespace))
}

/// The tools that give `capability` (`mcp.<server>.*` for `mcp:<server>`).
fn capability_tools(capability: &str) -> Vec<String> {
    CAPABILITY_TOOLS
        .iter()
        .find(|(name, _)| *name == capability)
        .map_or_else(
            || vec![format!("{}.*", capability.replacen(':', ".", 1))],
            |(_, tools)| tools.iter().map(|tool| (*tool).to_owned()).collect(),
        )
}

fn required(task: &TaskSpec) -> BTreeSet<&str> {
    task.required_capabilities
        .iter()
        .map(String::as_str)
        .collect()
}

/// `name (status)`.
fn labelled(executor: &Executor) -> String {
    format!("{} ({})", executor.name, executor.status)
}

/// Now, RFC 3339 UTC to the second.
fn now_rfc3339() -> String {
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| {
            i64::try_from(elapsed.as_millis()).unwrap_or(i64::MAX)
        });
    agentctl_store::utc_timestamp(ms)
}
