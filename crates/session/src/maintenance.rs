//! Session upkeep outside a turn: compacting every workspace of a session on demand
//! (`agentctl sessions compact`), through the same providers runs use.

use crate::builder::RuntimeBuilder;
use crate::error::SessionError;
use agentctl_context::{CompactionPolicy, ProviderSummarizer, compact_session};
use agentctl_core::{RunError, ToolRegistry, resolve_model};
use agentctl_runtime::model_context_window;
use agentctl_store::{ContextSummary, SessionStore};

/// Summarises the older messages of every workspace of `session` with `model` (else
/// `agents.defaultModel`), whatever their size; returns the summaries written.
pub async fn compact_now(
    builder: &RuntimeBuilder,
    store: &dyn SessionStore,
    session: &str,
    model: Option<&str>,
) -> Result<Vec<ContextSummary>, SessionError> {
    let settings = builder.settings();
    let name = model
        .map(str::to_owned)
        .or_else(|| settings.agents.default_model.clone())
        .ok_or_else(|| {
            SessionError::Run(RunError::NoModel {
                agent: "compaction".into(),
            })
        })?;
    let model = resolve_model(&name, settings, None).map_err(|source| {
        SessionError::Run(RunError::Model {
            agent: "compaction".into(),
            source,
        })
    })?;
    let runtime = builder.build(ToolRegistry::new())?;
    let provider = runtime.provider_for(&model)?;
    let summarizer = ProviderSummarizer::new(provider, model.model.clone());
    let policy = CompactionPolicy {
        force: true,
        ..CompactionPolicy::for_context_window(model_context_window(&model.model))
    };
    Ok(compact_session(store, &summarizer, session, &policy).await?)
}
