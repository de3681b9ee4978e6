//! Changing the context mode an agent runs with in a session, as `agentctl context NAME
//! --mode` (or any front end) does: refused where a run would refuse it.

use crate::error::SessionError;
use agentctl_context::{ModeInputs, resolve_mode};
use agentctl_core::{AgentsSettings, ContextMode};
use agentctl_store::SessionStore;

/// Sets the context mode of the agent `name` in `session` (`None` clears the override). A
/// mode the agent's runs would refuse (`agents.allowSharedContext: false`) is refused here
/// and nothing is written; `agent_file` is the mode its file declares.
///
/// # Errors
///
/// [`SessionError::Store`] for a refused mode or a store that fails.
pub fn set_context_mode(
    store: &dyn SessionStore,
    session: &str,
    name: &str,
    agent_file: Option<ContextMode>,
    mode: Option<ContextMode>,
    settings: &AgentsSettings,
) -> Result<(), SessionError> {
    if let Some(mode) = mode {
        resolve_mode(
            name,
            ModeInputs {
                session_override: Some(mode),
                agent_file,
                ..ModeInputs::default()
            },
            settings,
        )?;
    }
    store.set_mode_override(session, name, mode)?;
    Ok(())
}
