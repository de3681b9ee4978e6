//! Session upkeep outside a turn: compacting every workspace of a session on demand
//! (`agentctl sessions compact`), through the same providers runs use.

use crate::builder::RuntimeBuilder;
use crate::engine::{EventMsg, Notice, Sink, TurnId};
use crate::error::SessionError;
use crate::hooks::SessionHooks;
use crate::project::Project;
use crate::shared::project_hook_runner;
use agentctl_context::{CompactionPolicy, ProviderSummarizer, compact_session};
use agentctl_core::{ModelRef, PermissionMode, RunError, Settings, ToolRegistry, resolve_model};
use agentctl_runtime::model_context_window;
use agentctl_store::{ContextSummary, SessionStore};
use std::sync::Arc;

/// What [`compact_now`] did.
#[derive(Debug)]
#[non_exhaustive]
pub struct Compaction {
    /// The summaries written.
    pub summaries: Vec<ContextSummary>,
    /// What the project's `PreCompact` hooks met (a hook that failed, a declaration that
    /// cannot be used), for the user.
    pub notices: Vec<Notice>,
}

/// Summarises the older messages of every workspace of `session` of `project` with `model`
/// (else `agents.defaultModel`), whatever their size, after the project's `PreCompact` hooks
/// (`trigger: manual`): one that blocks refuses it
/// ([`SessionError::CompactionRefused`]).
pub async fn compact_now(
    project: &Project,
    builder: &RuntimeBuilder,
    store: &dyn SessionStore,
    session: &str,
    model: Option<&str>,
) -> Result<Compaction, SessionError> {
    let model = compaction_model(builder.settings(), model)?;
    let runtime = builder.build(ToolRegistry::new())?;
    let provider = runtime.provider_for(&model)?;
    let summarizer = ProviderSummarizer::new(provider, model.model.clone());
    let policy = CompactionPolicy {
        force: true,
        ..CompactionPolicy::for_context_window(model_context_window(&model.model))
    };
    let notices = pre_compact(project, builder, session).await?;
    let summaries = compact_session(store, &summarizer, session, &policy).await?;
    Ok(Compaction { summaries, notices })
}

/// The model that summarises a whole session: `name`, else `agents.defaultModel`.
pub(crate) fn compaction_model(
    settings: &Settings,
    name: Option<&str>,
) -> Result<ModelRef, SessionError> {
    let name = name
        .map(str::to_owned)
        .or_else(|| settings.agents.default_model.clone())
        .ok_or_else(|| {
            SessionError::Run(RunError::NoModel {
                agent: "compaction".into(),
            })
        })?;
    resolve_model(&name, settings, None).map_err(|source| {
        SessionError::Run(RunError::Model {
            agent: "compaction".into(),
            source,
        })
    })
}

/// Runs the `PreCompact` hooks of a compaction asked for; what they met, or their refusal.
async fn pre_compact(
    project: &Project,
    builder: &RuntimeBuilder,
    session: &str,
) -> Result<Vec<Notice>, SessionError> {
    let (sender, mut events) = tokio::sync::mpsc::unbounded_channel();
    let runner = Arc::new(project_hook_runner(project, builder));
    let hooks = SessionHooks::new(runner, session.to_owned(), Sink::all(TurnId(0), sender));
    let held = hooks
        .pre_compact("", PermissionMode::Default, "manual", "")
        .await;
    drop(hooks);
    held.map_err(SessionError::CompactionRefused)?;
    let mut notices = Vec::new();
    while let Ok(event) = events.try_recv() {
        if let EventMsg::Notice(notice) = event.msg {
            notices.push(notice);
        }
    }
    Ok(notices)
}
