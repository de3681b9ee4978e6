//! [`StateLog`] for [`PgStore`]: one `session_state` row per key, the value as JSON text.

use crate::store::{PgStore, text};
use agentctl_store::ops;
use agentctl_store::{Result, StateEntry, StateLog};
use serde_json::Value;

impl StateLog for PgStore {
    fn set_session_state(
        &self,
        session: &str,
        key: &str,
        value: &Value,
        agent: &str,
    ) -> Result<()> {
        let value = ops::state_text(&self.redactor, value);
        let (session, key, agent) = (session.to_owned(), key.to_owned(), agent.to_owned());
        self.call(|inner| async move {
            let mut client = inner.pool.get().await?;
            let tx = client.transaction().await?;
            ops::set_state(&inner.on(&tx), &session, &key, value.as_deref(), &agent).await?;
            tx.commit().await?;
            Ok(())
        })
    }

    fn state_entries(&self, session: &str) -> Result<Vec<StateEntry>> {
        let session = text(session).into_owned();
        self.call(|inner| async move {
            let client = inner.pool.get().await?;
            // Byte order, as a BTreeMap and the SQLite store sort keys, whatever the
            // database's collation.
            ops::state_entries(&inner.on(&client), &session).await
        })
    }
}
