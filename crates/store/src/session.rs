//! Choosing the session a command works in: new, by id, or the latest.

use crate::error::Result;
use crate::record::SessionInfo;
use crate::store::SessionStore;

/// Which session `agentctl run` uses.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum SessionChoice {
    /// A new session (the default of every `run`), titled when a title is given.
    #[default]
    New,
    /// A new session with a title (e.g. the first prompt, shortened).
    NewTitled(String),
    /// `--session ID`.
    Resume(String),
    /// `--continue`: the latest session, or a new one when there is none.
    Continue,
    /// What a front end asks for when the user named no session: the project's current
    /// session. The session engine resolves it by the settings (`agents.continueSession`) to
    /// [`Continue`](Self::Continue) or [`New`](Self::New); a store opens it as `Continue`.
    Current,
}

/// Opens the chosen session. A resumed session's runs left `running` by a process that is gone
/// (killed, crashed) are marked `interrupted` first, so the session is consistent before
/// anything is appended; runs of processes still working in the session stay `running`.
pub fn open_session(store: &dyn SessionStore, choice: &SessionChoice) -> Result<SessionInfo> {
    let existing = match choice {
        SessionChoice::New => return store.create_session(None),
        SessionChoice::NewTitled(title) => return store.create_session(Some(title)),
        SessionChoice::Resume(id) => store.session(id)?,
        SessionChoice::Continue | SessionChoice::Current => match store.latest_session()? {
            Some(session) => session,
            None => return store.create_session(None),
        },
    };
    // Marking runs changes neither the session's row nor its counts: read once.
    store.interrupt_stale_runs(&existing.id)?;
    Ok(existing)
}
