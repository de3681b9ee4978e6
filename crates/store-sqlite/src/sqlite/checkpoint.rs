//! WAL checkpoints off the write path.
//!
//! In WAL mode with `synchronous = NORMAL` a commit never waits for the disk; only a checkpoint
//! — copying the log back into the database — calls `fsync`, twice. SQLite runs it inside the
//! commit that crosses `wal_autocheckpoint` pages (1,000 by default), so every ~80th turn of a
//! run waited for two `fsync`s: on a busy disk, most of the time spent recording 100,000
//! messages. Here a thread with a second connection runs a `PASSIVE` checkpoint (which never
//! blocks a writer) after every [`EVERY`] write transactions, and the store's own connection
//! checkpoints only past [`SAFETY_NET_PAGES`]: a writer that never pauses gives the thread no
//! moment to finish, and the log is only restarted after a complete checkpoint. Such a
//! checkpoint finds most pages already copied. The last connection to close checkpoints what
//! is left, as before. Durability is unchanged: commits are in the log either way.

use super::prepare_sqlite;
use rusqlite::{Connection, OpenFlags};
use std::path::Path;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread::JoinHandle;

/// Write transactions between two checkpoints: about 800 pages of log at a turn's 12. The
/// thread starts at the first of them, so a process that writes less (`sessions list`, a
/// short run) starts none: SQLite's default would not have checkpointed yet either.
pub(crate) const EVERY: u32 = 64;

/// Log pages (16 MiB) past which the writing connection checkpoints itself.
const SAFETY_NET_PAGES: i64 = 4_096;

/// The checkpointing thread of a file store.
#[derive(Debug)]
pub(crate) struct Checkpointer {
    nudge: Option<SyncSender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Checkpointer {
    /// Starts the thread for the file at `path` and raises `conn`'s automatic checkpoints to
    /// [`SAFETY_NET_PAGES`]; `None` (SQLite's default kept) when the second connection cannot
    /// be opened or the thread cannot start.
    pub(crate) fn start(conn: &Connection, path: &Path) -> Option<Self> {
        let second = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .ok()?;
        prepare_sqlite(&second).ok()?;
        let (nudge, nudges) = sync_channel(1);
        let thread = std::thread::Builder::new()
            .name("agentctl-sqlite-checkpoint".into())
            .spawn(move || checkpoint_on(second, nudges))
            .ok()?;
        // Only once the thread runs: without it, SQLite's default stays.
        if conn
            .pragma_update(None, "wal_autocheckpoint", SAFETY_NET_PAGES)
            .is_err()
        {
            drop(nudge);
            let _ = thread.join();
            return None;
        }
        Some(Self {
            nudge: Some(nudge),
            thread: Some(thread),
        })
    }

    /// Asks for a checkpoint. When one is already due it covers this request too; when the
    /// thread is gone, the last connection's close still checkpoints.
    pub(crate) fn nudge(&self) {
        if let Some(nudge) = &self.nudge {
            let _ = nudge.try_send(());
        }
    }
}

impl Drop for Checkpointer {
    fn drop(&mut self) {
        drop(self.nudge.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn checkpoint_on(conn: Connection, nudges: Receiver<()>) {
    while nudges.recv().is_ok() {
        // PASSIVE copies what no reader still needs and returns; an error (a busy lock, a
        // full disk) is retried at the next nudge, and the log only grows until then.
        let _ = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()));
    }
}
