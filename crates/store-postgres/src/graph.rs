//! [`GraphLog`] for [`PgStore`]: the shared operations of `agentctl-store` on one
//! `graph_checkpoints` row per `(session, branch, step)`, the state as JSON text.
//!
//! Every write locks its session first and reads the branch's latest step after, so "is this
//! exactly the next step?" is still true when the row is inserted: two processes resuming the
//! same branch queue on the lock, and the second finds the step taken. The rules and the
//! errors' words are the SQLite store's.

use crate::store::{PgStore, opt_text, text};
use agentctl_store::ops;
use agentctl_store::{
    GraphBranch, GraphCheckpoint, GraphLog, NewCheckpoint, Result, checkpoint_state,
    invalid_checkpoint,
};
use serde_json::Value;

impl GraphLog for PgStore {
    fn start_graph(
        &self,
        session: &str,
        graph: &str,
        state: &Value,
        entry: &str,
    ) -> Result<GraphCheckpoint> {
        let checked = checkpoint_state(&self.redactor, state);
        let (session, graph, entry) = (
            text(session).into_owned(),
            text(graph).into_owned(),
            text(entry).into_owned(),
        );
        self.call(|inner| async move {
            let mut client = inner.pool.get().await?;
            let tx = client.transaction().await?;
            let checkpoint =
                ops::start_graph(&inner.on(&tx), &session, (graph, entry), checked).await?;
            tx.commit().await?;
            Ok(checkpoint)
        })
    }

    fn write_checkpoint(&self, checkpoint: &NewCheckpoint<'_>) -> Result<GraphCheckpoint> {
        // Masked and measured before the lock is taken: the lock is held for the rows.
        let (state, state_text) =
            checkpoint_state(&self.redactor, checkpoint.state).map_err(|reason| {
                invalid_checkpoint(
                    checkpoint.session,
                    checkpoint.branch,
                    checkpoint.step,
                    reason,
                )
            })?;
        let parallel = checkpoint
            .parallel
            .map(|parallel| checkpoint_state(&self.redactor, parallel).map(|(value, _)| value))
            .transpose()
            .map_err(|reason| {
                invalid_checkpoint(
                    checkpoint.session,
                    checkpoint.branch,
                    checkpoint.step,
                    reason,
                )
            })?;
        let reason = checkpoint
            .reason
            .map(|reason| text(&self.redactor.redact(reason)).into_owned());
        // Text as PostgreSQL keeps it, in the row and in the record returned alike; its graph
        // and time are the branch's and the write's.
        let mut written =
            GraphCheckpoint::after_node(checkpoint, String::new(), reason, (state, parallel), 0);
        written.session_id = text(&written.session_id).into_owned();
        written.node = written.node.as_deref().map(|node| text(node).into_owned());
        written.next = opt_text(written.next.as_deref());
        self.call(|inner| async move {
            let mut client = inner.pool.get().await?;
            let tx = client.transaction().await?;
            let written = ops::write_checkpoint(&inner.on(&tx), written, &state_text).await?;
            tx.commit().await?;
            Ok(written)
        })
    }

    fn fork_graph(&self, session: &str, branch: u32, step: u32) -> Result<GraphCheckpoint> {
        let session = text(session).into_owned();
        self.call(|inner| async move {
            let mut client = inner.pool.get().await?;
            let tx = client.transaction().await?;
            let forked = ops::fork_graph(&inner.on(&tx), &session, branch, step).await?;
            tx.commit().await?;
            Ok(forked)
        })
    }

    fn graph_checkpoints(&self, session: &str, branch: u32) -> Result<Vec<GraphCheckpoint>> {
        let session = text(session).into_owned();
        self.call(|inner| async move {
            let client = inner.pool.get().await?;
            ops::graph_checkpoints(&inner.on(&client), &session, branch).await
        })
    }

    fn latest_checkpoint(&self, session: &str, branch: u32) -> Result<Option<GraphCheckpoint>> {
        let session = text(session).into_owned();
        self.call(|inner| async move {
            let client = inner.pool.get().await?;
            ops::latest_checkpoint(&inner.on(&client), &session, branch).await
        })
    }

    fn graph_branches(&self, session: &str) -> Result<Vec<GraphBranch>> {
        let session = text(session).into_owned();
        self.call(|inner| async move {
            let client = inner.pool.get().await?;
            ops::graph_branches(&inner.on(&client), &session).await
        })
    }

    fn graph_history(&self, session: &str, branch: u32) -> Result<Vec<GraphCheckpoint>> {
        let session = text(session).into_owned();
        self.call(|inner| async move {
            let client = inner.pool.get().await?;
            ops::graph_history(&inner.on(&client), &session, branch).await
        })
    }
}
