//! Plan mode (seed 003): the session's todo list, kept by the agent that orchestrates —
//! `todo_write` replaces it, `todo_read` reads it — stored in the session's state under
//! [`PLAN_STATE_KEY`] (so a resumed session, `sessions show` and conditions see it), shown
//! live as a [`RunEvent::PlanUpdated`], and advanced when a `task` naming one of its items
//! succeeds (that item completed, the next pending one in progress).
//!
//! Sub-agents do not plan (seed 003's "Sub-agent Plan Mode Constraint"): at a sub-agent's
//! depth both tools refuse, so planning never recurses.

use agentctl_core::{
    AgentDefinition, PlanItem, PlanStatus, RiskLevel, RunEvent, ToolContext, ToolError, ToolOutput,
    ToolRegistry, TypedTool,
};
use agentctl_store::StateLog;
use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use std::sync::{Arc, Mutex, PoisonError};

/// The session-state key of the plan.
pub const PLAN_STATE_KEY: &str = "plan";
/// The name of the tool that writes the plan.
pub const TODO_WRITE: &str = "todo_write";
/// The name of the tool that reads the plan.
pub const TODO_READ: &str = "todo_read";
/// The most items a plan holds.
pub const MAX_PLAN_ITEMS: usize = 100;
/// The longest an item's text may be, in characters.
const MAX_ITEM_CHARS: usize = 500;

/// The plan of one session and its two tools. Cheap to clone: clones share the plan.
#[derive(Clone)]
pub struct PlanTools {
    shared: Arc<Shared>,
}

struct Shared {
    store: Option<(Arc<dyn StateLog>, String)>,
    items: Mutex<Vec<PlanItem>>,
}

impl PlanTools {
    /// The plan of `session` in `store` (where `todo_write` saves it), starting from `items`
    /// (what [`saved`](Self::saved) read of a resumed session); without a store, a plan kept
    /// in memory.
    pub fn new(store: Option<(Arc<dyn StateLog>, String)>, items: Vec<PlanItem>) -> Self {
        Self {
            shared: Arc::new(Shared {
                store,
                items: Mutex::new(items),
            }),
        }
    }

    /// The plan `session`'s state holds in `store`: none when there is none, or it cannot be
    /// read (planning starts over).
    pub fn saved(store: &dyn StateLog, session: &str) -> Vec<PlanItem> {
        store
            .session_state(session)
            .ok()
            .and_then(|state| state.get(PLAN_STATE_KEY).cloned())
            .and_then(|value| serde_json::from_value(value).ok())
            .unwrap_or_default()
    }

    /// Whether `agent` plans: it says `planMode: true`, or its allow list names `todo_write`
    /// or `todo_read` (Claude Code's `TodoWrite`).
    pub fn wanted_by(agent: &AgentDefinition) -> bool {
        agent.spec.plan_mode == Some(true)
            || agent.spec.tools.allow.as_ref().is_some_and(|allow| {
                allow
                    .iter()
                    .any(|name| name == TODO_WRITE || name == TODO_READ)
            })
    }

    /// Registers `todo_write` and `todo_read`.
    pub fn register(&self, registry: &mut ToolRegistry) {
        registry.register_typed(TodoWrite(self.clone()));
        registry.register_typed(TodoRead(self.clone()));
    }

    /// The plan as it stands.
    pub fn items(&self) -> Vec<PlanItem> {
        self.lock().clone()
    }

    /// Marks item `id` completed and the next pending item in progress, saves the plan and
    /// says so on `ctx`'s run; nothing when no item has that id or it is done already.
    pub async fn complete(&self, id: &str, ctx: &ToolContext) {
        let changed = {
            let mut items = self.lock();
            let Some(index) = items
                .iter()
                .position(|item| item.id == id && item.status != PlanStatus::Completed)
            else {
                return;
            };
            items[index].status = PlanStatus::Completed;
            if !items
                .iter()
                .any(|item| item.status == PlanStatus::InProgress)
                && let Some(next) = items
                    .iter_mut()
                    .find(|item| item.status == PlanStatus::Pending)
            {
                next.status = PlanStatus::InProgress;
            }
            items.clone()
        };
        // A plan that cannot be saved still steers this conversation.
        let _ = self.save(&changed, ctx).await;
        ctx.emit(RunEvent::PlanUpdated { items: changed });
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<PlanItem>> {
        self.shared
            .items
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Writes `items` to the session's state, off the async threads.
    async fn save(&self, items: &[PlanItem], ctx: &ToolContext) -> Result<(), ToolError> {
        let Some((store, session)) = self.shared.store.clone() else {
            return Ok(());
        };
        let value = serde_json::to_value(items)
            .map_err(|error| ToolError::failed(format!("plan: {error}")))?;
        let agent = ctx.agent().to_owned();
        tokio::task::spawn_blocking(move || {
            store.set_session_state(&session, PLAN_STATE_KEY, &value, &agent)
        })
        .await
        .map_err(|error| ToolError::failed(format!("plan: {error}")))?
        .map_err(|error| ToolError::failed(format!("plan not saved: {error}")))
    }
}

/// Refuses a sub-agent's planning.
fn top_level(ctx: &ToolContext, tool: &str) -> Result<(), ToolError> {
    if ctx.depth() > 0 {
        return Err(ToolError::failed(format!(
            "{tool} refused: sub-agents do not plan (plan mode is off for sub-agents); work on \
             the task you were given and report back"
        )));
    }
    Ok(())
}

/// The plan as the model reads it.
fn render(items: &[PlanItem]) -> String {
    if items.is_empty() {
        return "The plan is empty.".to_owned();
    }
    items
        .iter()
        .map(|item| {
            let mark = match item.status {
                PlanStatus::Pending => "[ ]",
                PlanStatus::InProgress => "[~]",
                PlanStatus::Completed => "[x]",
            };
            format!("{mark} {}. {}", item.id, item.content)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// One item as `todo_write` takes it.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct TodoInput {
    /// Its id; by default its position (`1`, `2`, …). Name it in a `task`'s `todo` so the
    /// task's success completes it.
    #[serde(default)]
    pub id: Option<String>,
    /// What is to be done, in one line.
    pub content: String,
    /// `pending`, `in_progress` (one item at a time) or `completed`.
    pub status: PlanStatus,
}

/// The arguments of `todo_write`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct TodoWriteArgs {
    /// The whole plan, in order: it replaces the one before.
    pub todos: Vec<TodoInput>,
}

/// `todo_write`: replaces the session's plan.
struct TodoWrite(PlanTools);

/// The items of `todos`, checked.
fn checked(todos: Vec<TodoInput>) -> Result<Vec<PlanItem>, String> {
    if todos.len() > MAX_PLAN_ITEMS {
        return Err(format!(
            "{} items; a plan holds at most {MAX_PLAN_ITEMS}",
            todos.len()
        ));
    }
    let mut items: Vec<PlanItem> = Vec::with_capacity(todos.len());
    for (index, todo) in todos.into_iter().enumerate() {
        let content = todo
            .content
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        if content.is_empty() {
            return Err(format!("item {} has no content", index + 1));
        }
        if content.chars().count() > MAX_ITEM_CHARS {
            return Err(format!(
                "item {} is longer than {MAX_ITEM_CHARS} characters",
                index + 1
            ));
        }
        let id = todo
            .id
            .map(|id| id.trim().to_owned())
            .filter(|id| !id.is_empty())
            .unwrap_or_else(|| (index + 1).to_string());
        if items.iter().any(|item| item.id == id) {
            return Err(format!("two items have the id `{id}`"));
        }
        items.push(PlanItem {
            id,
            content,
            status: todo.status,
        });
    }
    let working = items
        .iter()
        .filter(|item| item.status == PlanStatus::InProgress)
        .count();
    if working > 1 {
        return Err(format!(
            "{working} items are in_progress; keep one at a time in progress"
        ));
    }
    Ok(items)
}

#[async_trait]
impl TypedTool for TodoWrite {
    type Args = TodoWriteArgs;

    fn name(&self) -> &str {
        TODO_WRITE
    }

    fn description(&self) -> &str {
        "Write the plan of this conversation: the whole todo list, in order, each item \
         `pending`, `in_progress` (one at a time) or `completed`. It replaces the plan before. \
         Give a `task` the `todo` id of the item it carries out: when the task succeeds, the \
         item is completed and the next one started."
    }

    fn risk(&self) -> RiskLevel {
        RiskLevel::Safe
    }

    fn is_mutating(&self) -> bool {
        true
    }

    async fn call(&self, args: TodoWriteArgs, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        top_level(ctx, self.name())?;
        let items = checked(args.todos).map_err(|message| ToolError::InvalidArguments {
            tool: TODO_WRITE.into(),
            message,
        })?;
        *self.0.lock() = items.clone();
        self.0.save(&items, ctx).await?;
        let text = render(&items);
        ctx.emit(RunEvent::PlanUpdated { items });
        Ok(ToolOutput::text(format!("Plan saved:\n{text}")))
    }
}

/// The arguments of `todo_read` (none).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct TodoReadArgs {}

/// `todo_read`: the session's plan.
struct TodoRead(PlanTools);

#[async_trait]
impl TypedTool for TodoRead {
    type Args = TodoReadArgs;

    fn name(&self) -> &str {
        TODO_READ
    }

    fn description(&self) -> &str {
        "Read the plan of this conversation: each item's id, status and content."
    }

    fn risk(&self) -> RiskLevel {
        RiskLevel::Safe
    }

    async fn call(&self, _args: TodoReadArgs, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        top_level(ctx, self.name())?;
        Ok(ToolOutput::text(render(&self.0.items())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn todo(id: Option<&str>, content: &str, status: PlanStatus) -> TodoInput {
        TodoInput {
            id: id.map(str::to_owned),
            content: content.to_owned(),
            status,
        }
    }

    #[test]
    fn items_get_ids_and_one_at_a_time_is_in_progress() {
        let items = checked(vec![
            todo(None, "read  the code", PlanStatus::InProgress),
            todo(Some("fix"), "fix it", PlanStatus::Pending),
        ])
        .unwrap();
        assert_eq!(items[0].id, "1");
        assert_eq!(items[0].content, "read the code");
        assert_eq!(items[1].id, "fix");
        assert_eq!(render(&items), "[~] 1. read the code\n[ ] fix. fix it");
        let two = checked(vec![
            todo(None, "a", PlanStatus::InProgress),
            todo(None, "b", PlanStatus::InProgress),
        ])
        .unwrap_err();
        assert!(two.contains("one at a time"), "{two}");
        assert!(
            checked(vec![
                todo(Some("x"), "a", PlanStatus::Pending),
                todo(Some("x"), "b", PlanStatus::Pending)
            ])
            .is_err()
        );
        assert!(checked(vec![todo(None, "  ", PlanStatus::Pending)]).is_err());
    }

    /// A context at sub-agent `depth` (a runtime only to carry the depth).
    fn context(depth: u32) -> ToolContext {
        let runtime = agentctl_runtime::Runtime::new(
            agentctl_core::Settings::default(),
            |_: &agentctl_core::ModelRef, _: &agentctl_core::Settings| {
                Err(agentctl_core::ProviderError::Script("no model here".into()))
            },
            ToolRegistry::new(),
        );
        ToolContext::new(
            "run-1",
            "planner",
            "c1",
            std::path::Path::new("."),
            tokio_util::sync::CancellationToken::new(),
        )
        .with_sub_agents(Arc::new(runtime), depth)
    }

    fn write(items: serde_json::Value) -> TodoWriteArgs {
        serde_json::from_value(serde_json::json!({ "todos": items })).unwrap()
    }

    #[tokio::test]
    async fn a_sub_agent_cannot_plan_and_a_flood_is_refused_whole() {
        let plan = PlanTools::new(None, Vec::new());
        let tool = TodoWrite(plan.clone());
        let one = serde_json::json!([{"content": "fix it", "status": "pending"}]);
        tool.call(write(one.clone()), &context(0)).await.unwrap();
        // A sub-agent told to "replace the plan" is refused, and the plan stands.
        let refused = tool.call(write(serde_json::json!([])), &context(1)).await;
        assert!(
            matches!(refused, Err(ToolError::Failed(ref m)) if m.contains("sub-agents do not plan"))
        );
        assert!(
            TodoRead(plan.clone())
                .call(TodoReadArgs {}, &context(2))
                .await
                .is_err()
        );
        assert_eq!(plan.items().len(), 1);
        // More items than a plan holds, or one huge item, changes nothing.
        let flood: Vec<_> = (0..=MAX_PLAN_ITEMS)
            .map(|i| serde_json::json!({"content": format!("step {i}"), "status": "pending"}))
            .collect();
        assert!(tool.call(write(flood.into()), &context(0)).await.is_err());
        let huge = serde_json::json!([{"content": "x".repeat(10_000), "status": "pending"}]);
        assert!(tool.call(write(huge), &context(0)).await.is_err());
        assert_eq!(plan.items()[0].content, "fix it");
    }
}
