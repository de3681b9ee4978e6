//! [`GraphLog`] for [`SqliteStore`]: the shared operations of `agentctl-store` on one
//! `graph_checkpoints` row per `(session, branch, step)`, the state as JSON text.
//!
//! Every write reads the branch's latest step inside its `BEGIN IMMEDIATE` transaction, so
//! "is this exactly the next step?" is still true when the row is inserted: two processes
//! resuming the same branch serialise on the write lock, and the second finds the step taken.

use super::SqliteStore;
use super::write::{Sqlite, ready};
use agentctl_store::ops;
use agentctl_store::{
    GraphBranch, GraphCheckpoint, GraphLog, NewCheckpoint, Result, checkpoint_state,
    invalid_checkpoint,
};
use serde_json::Value;

impl GraphLog for SqliteStore {
    fn start_graph(
        &self,
        session: &str,
        graph: &str,
        state: &Value,
        entry: &str,
    ) -> Result<GraphCheckpoint> {
        // Masked and measured before the write lock is taken: the lock is held for the rows.
        let checked = checkpoint_state(self.redactor(), state);
        let names = (graph.to_owned(), entry.to_owned());
        self.write(|tx| ready(ops::start_graph(&Sqlite(tx), session, names, checked)))
    }

    fn write_checkpoint(&self, checkpoint: &NewCheckpoint<'_>) -> Result<GraphCheckpoint> {
        let invalid = |reason: String| {
            invalid_checkpoint(
                checkpoint.session,
                checkpoint.branch,
                checkpoint.step,
                reason,
            )
        };
        // Masked and measured before the write lock is taken: the lock is held for the rows.
        let (state, text) = checkpoint_state(self.redactor(), checkpoint.state).map_err(invalid)?;
        let parallel = checkpoint
            .parallel
            .map(|parallel| checkpoint_state(self.redactor(), parallel).map(|(value, _)| value))
            .transpose()
            .map_err(invalid)?;
        let reason = checkpoint
            .reason
            .map(|reason| self.redactor().redact(reason).into_owned());
        // Its graph and time are the branch's and the write's.
        let written =
            GraphCheckpoint::after_node(checkpoint, String::new(), reason, (state, parallel), 0);
        self.write(|tx| ready(ops::write_checkpoint(&Sqlite(tx), written, &text)))
    }

    fn fork_graph(&self, session: &str, branch: u32, step: u32) -> Result<GraphCheckpoint> {
        self.write(|tx| ready(ops::fork_graph(&Sqlite(tx), session, branch, step)))
    }

    fn graph_checkpoints(&self, session: &str, branch: u32) -> Result<Vec<GraphCheckpoint>> {
        self.with(|conn| ready(ops::graph_checkpoints(&Sqlite(conn), session, branch)))
    }

    fn latest_checkpoint(&self, session: &str, branch: u32) -> Result<Option<GraphCheckpoint>> {
        self.with(|conn| ready(ops::latest_checkpoint(&Sqlite(conn), session, branch)))
    }

    fn graph_branches(&self, session: &str) -> Result<Vec<GraphBranch>> {
        self.with(|conn| ready(ops::graph_branches(&Sqlite(conn), session)))
    }

    fn graph_history(&self, session: &str, branch: u32) -> Result<Vec<GraphCheckpoint>> {
        self.with(|conn| ready(ops::graph_history(&Sqlite(conn), session, branch)))
    }
}
