//! [`StateLog`] for [`SqliteStore`]: one `session_state` row per key, the value as JSON text.

use super::SqliteStore;
use super::write::{Sqlite, ready};
use agentctl_store::ops;
use agentctl_store::{Result, StateEntry, StateLog};
use serde_json::Value;

impl SqliteStore {
    /// The session's state with who set each key and when, in key order.
    ///
    /// ```
    /// use agentctl_store::{SessionLog, StateLog};
    /// use agentctl_store_sqlite::SqliteStore;
    /// use serde_json::json;
    ///
    /// let store = SqliteStore::open_in_memory()?;
    /// let session = store.create_session(None)?;
    /// store.set_session_state(&session.id, "task", &json!({"status": "need-review"}), "planner")?;
    /// let entries = store.state_entries(&session.id)?;
    /// assert_eq!(entries[0].updated_by, "planner");
    /// assert_eq!(store.session_state(&session.id)?["task"]["status"], "need-review");
    /// # Ok::<(), agentctl_store::ContextError>(())
    /// ```
    pub fn state_entries(&self, session: &str) -> Result<Vec<StateEntry>> {
        self.with(|conn| ready(ops::state_entries(&Sqlite(conn), session)))
    }
}

impl StateLog for SqliteStore {
    fn set_session_state(
        &self,
        session: &str,
        key: &str,
        value: &Value,
        agent: &str,
    ) -> Result<()> {
        let text = ops::state_text(self.redactor(), value);
        self.write(|tx| {
            let tx = Sqlite(tx);
            ready(ops::set_state(&tx, session, key, text.as_deref(), agent))
        })
    }

    fn state_entries(&self, session: &str) -> Result<Vec<StateEntry>> {
        SqliteStore::state_entries(self, session)
    }
}
