//! [`StateLog`] for [`PgStore`]: one `session_state` row per key, the value as JSON text.

use crate::store::{PgStore, lock_session, now_ms, require_session, text, touch};
use crate::write::{execute, read};
use agentctl_store::{Result, StateEntry, StateLog, select_list, state_write};
use serde_json::Value;

impl StateLog for PgStore {
    fn set_session_state(
        &self,
        session: &str,
        key: &str,
        value: &Value,
        agent: &str,
    ) -> Result<()> {
        // A model may echo a secret it read into its notes; it never reaches the server.
        let mut value = value.clone();
        self.redactor.redact_json(&mut value);
        let value = (!value.is_null()).then(|| value.to_string());
        let (session, key, agent) = (
            session.to_owned(),
            text(key).into_owned(),
            text(agent).into_owned(),
        );
        self.call(|inner| async move {
            let mut client = inner.pool.get().await?;
            let tx = client.transaction().await?;
            lock_session(&tx, &session).await?;
            let now = now_ms();
            let session = text(&session);
            execute(
                &tx,
                &state_write(&session, &key, value.as_deref(), now, &agent),
            )
            .await?;
            touch(&tx, &session, now).await?;
            tx.commit().await?;
            Ok(())
        })
    }

    fn state_entries(&self, session: &str) -> Result<Vec<StateEntry>> {
        let session = text(session).into_owned();
        self.call(|inner| async move {
            let client = inner.pool.get().await?;
            require_session(&**client, &session).await?;
            // Byte order, as a BTreeMap and the SQLite store sort keys, whatever the
            // database's collation.
            let columns = select_list::<StateEntry>();
            client
                .query(
                    &format!(
                        "SELECT {columns} FROM session_state
                         WHERE session_id = $1 ORDER BY key COLLATE \"C\""
                    ),
                    &[&session],
                )
                .await?
                .iter()
                .map(read)
                .collect()
        })
    }
}
