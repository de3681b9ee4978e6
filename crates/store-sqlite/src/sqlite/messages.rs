//! [`MessageLog`] for [`SqliteStore`]: the shared operations of `agentctl-store`.

use super::runs::prepare;
use super::write::{Sqlite, ready};
use super::{SqliteStore, summaries};
use agentctl_store::ops;
use agentctl_store::{
    ClearedContext, ContextScope, ContextSummary, MessageId, MessageLog, MessageQuery, NewMessage,
    ReplacedSummary, Result, RunId, StoredMessage,
};

impl MessageLog for SqliteStore {
    fn append_messages(
        &self,
        session: &str,
        run: Option<RunId>,
        messages: &[NewMessage],
    ) -> Result<Vec<MessageId>> {
        let (messages, _) =
            prepare(self, messages, &[]).map_err(|fault| super::into_error(fault, self.path()))?;
        self.write(|tx| ready(ops::append_messages(&Sqlite(tx), session, run, &messages)))
    }

    fn messages(&self, session: &str, query: &MessageQuery) -> Result<Vec<StoredMessage>> {
        self.with(|conn| ready(ops::read_messages(&Sqlite(conn), session, query)))
    }

    fn scope_tokens(
        &self,
        session: &str,
        scope: &ContextScope,
        after_id: Option<MessageId>,
        limit: u64,
    ) -> Result<u64> {
        let window = (scope, after_id);
        self.with(|conn| ready(ops::scope_tokens(&Sqlite(conn), session, window, limit)))
    }

    fn scopes(&self, session: &str) -> Result<Vec<ContextScope>> {
        self.with(|conn| ready(ops::scopes(&Sqlite(conn), session)))
    }

    fn save_summary(
        &self,
        session: &str,
        scope: &ContextScope,
        until_message_id: MessageId,
        summary_text: &str,
    ) -> Result<ContextSummary> {
        summaries::save(self, session, scope, until_message_id, summary_text)
    }

    fn latest_summary(
        &self,
        session: &str,
        scope: &ContextScope,
    ) -> Result<Option<ContextSummary>> {
        self.with(|conn| ready(ops::latest_summary(&Sqlite(conn), session, scope)))
    }

    fn replaced_summaries(&self, session: &str) -> Result<Vec<ReplacedSummary>> {
        self.with(|conn| ready(ops::replaced_summaries(&Sqlite(conn), session)))
    }

    fn clear_agent_context(&self, agent: &str) -> Result<ClearedContext> {
        summaries::clear(self, None, agent)
    }

    fn clear_agent_context_in(&self, session: &str, agent: &str) -> Result<ClearedContext> {
        summaries::clear(self, Some(session), agent)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentctl_store::Dialect;
    use rusqlite::params_from_iter;
    use rusqlite::types::Value;

    /// The statement's values as rusqlite's.
    fn values(statement: &agentctl_store::Statement) -> Vec<Value> {
        let value = |value: &agentctl_store::Value| match value {
            agentctl_store::Value::Null => Value::Null,
            agentctl_store::Value::Integer(n) => Value::Integer(*n),
            agentctl_store::Value::Text(text) => Value::Text(text.clone()),
        };
        statement.values.iter().map(value).collect()
    }

    /// SQLite's plan for `sql` with `values`, one detail line per step.
    fn plan(store: &SqliteStore, sql: &str, values: Vec<Value>) -> Vec<String> {
        store
            .with(|conn| {
                let mut statement = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}"))?;
                let rows = statement.query_map(params_from_iter(values), |row| row.get(3))?;
                Ok(rows.collect::<rusqlite::Result<Vec<String>>>()?)
            })
            .unwrap()
    }

    #[test]
    fn windows_walk_the_scope_index_from_its_end_without_sorting() {
        let store = SqliteStore::open_in_memory().unwrap();
        let budgeted = MessageQuery {
            after_id: Some(7),
            max_tokens: Some(96_000),
            ..MessageQuery::scope(ContextScope::agent("a"))
        };
        let capped = MessageQuery {
            last: Some(100),
            max_tokens: Some(96_000),
            ..MessageQuery::scope(ContextScope::Main)
        };
        for query in [budgeted, capped] {
            let statement = Dialect::Sqlite.query(&ops::message_query("s", &query));
            let steps = plan(&store, &statement.sql, values(&statement));
            assert_eq!(steps.len(), 1, "{steps:?}");
            assert!(
                steps[0].contains("USING INDEX idx_chat_messages_context"),
                "{steps:?}"
            );
        }
        let tokens = ops::scope_tokens_query("s", &ContextScope::Main, Some(0));
        let statement = Dialect::Sqlite.query(&tokens);
        let steps = plan(&store, &statement.sql, values(&statement));
        assert_eq!(steps.len(), 1, "{steps:?}");
        assert!(steps[0].contains("idx_chat_messages_context"), "{steps:?}");
    }
}
