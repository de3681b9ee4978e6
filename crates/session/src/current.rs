//! The project's current session: the one its last conversation used, continued by the next
//! `run`, `chat` or `agents run` that names no session (seed 002 §3.3.2 keeps each agent's
//! context across invocations; agentctl keeps it in the agent's workspace of this session).
//!
//! The pointer is a file beside the embedded store (`.agentctl/current-session`, personal like
//! the databases and kept out of git), not "the latest session in the store": a PostgreSQL
//! store shared by a team holds other people's sessions, and their latest is not yours.

use crate::gitignore::keep_out_of_git;
use agentctl_private_files::write_private;
use agentctl_store::{ContextError, SessionChoice, SessionStore};
use std::path::{Path, PathBuf};

/// The file name of the pointer, beside the embedded store.
const FILE_NAME: &str = "current-session";

/// Longest session id the pointer is read with; anything longer is not one agentctl wrote.
const MAX_ID: usize = 128;

/// Where a project's current session is recorded.
#[derive(Debug, Clone)]
pub(crate) struct CurrentSession {
    file: PathBuf,
}

impl CurrentSession {
    /// The pointer beside the embedded store `store_path` (`.agentctl/sessions.db`).
    pub(crate) fn beside(store_path: &Path) -> Self {
        Self {
            file: store_path.with_file_name(FILE_NAME),
        }
    }

    /// The recorded session id, if the file holds one.
    pub(crate) fn read(&self) -> Option<String> {
        let text = std::fs::read_to_string(&self.file).ok()?;
        let id = text.trim();
        let plausible = !id.is_empty()
            && id.len() <= MAX_ID
            && id
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        plausible.then(|| id.to_owned())
    }

    /// Records `id` as current. A pointer that cannot be written costs only continuity (the
    /// session itself is stored, and `--continue` or `--session` reach it), so failing is
    /// harmless.
    pub(crate) fn set(&self, id: &str) {
        if self.read().as_deref() == Some(id) {
            return;
        }
        // With sessions in PostgreSQL, `.agentctl/` may not exist yet.
        if let Some(dir) = self.file.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        if write_private(&self.file, format!("{id}\n").as_bytes()).is_ok() {
            keep_out_of_git(&self.file);
        }
    }

    /// What [`SessionChoice::Current`] means in `store`: the recorded session while it
    /// exists, else a new one.
    ///
    /// # Errors
    ///
    /// The store's, other than the recorded session being gone.
    pub(crate) fn resolve(&self, store: &dyn SessionStore) -> Result<SessionChoice, ContextError> {
        let Some(id) = self.read() else {
            return Ok(SessionChoice::New);
        };
        match store.session(&id) {
            Ok(_) => Ok(SessionChoice::Resume(id)),
            Err(ContextError::SessionNotFound(_)) => Ok(SessionChoice::New),
            Err(error) => Err(error),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentctl_store::SessionLog as _;
    use agentctl_store_sqlite::SqliteStore;

    #[test]
    fn the_pointer_names_a_session_while_it_exists() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open_in_memory().unwrap();
        let current = CurrentSession::beside(&dir.path().join("sessions.db"));
        assert_eq!(current.resolve(&store).unwrap(), SessionChoice::New);
        let made = store.create_session(None).unwrap();
        current.set(&made.id);
        assert_eq!(
            current.resolve(&store).unwrap(),
            SessionChoice::Resume(made.id)
        );
        // Gone from the store (deleted, or another store configured): a new one.
        current.set("20990101-000000-dead");
        assert_eq!(current.resolve(&store).unwrap(), SessionChoice::New);
        // Not an id agentctl writes: ignored.
        std::fs::write(dir.path().join(FILE_NAME), "../../etc/passwd\n").unwrap();
        assert_eq!(current.resolve(&store).unwrap(), SessionChoice::New);
    }
}
