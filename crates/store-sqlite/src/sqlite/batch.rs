//! The store's one connection, shared by every thread that uses the store, and batches.
//!
//! A write is one `BEGIN IMMEDIATE` transaction, committed before it returns. A thread can
//! also hold one transaction open over several writes ([`BatchedConnection::batch`]): it
//! begins at the batch's first write (a batch that only reads writes nothing), each write runs
//! in a savepoint (a failing one is rolled back alone), they are committed together when the
//! batch ends, and a commit that fails fails the batch. Other threads' reads and writes wait
//! meanwhile, so nobody sees a batch's writes before they are committed (the batch's own
//! thread sees them at once).

use super::{Fault, FaultResult};
use rusqlite::Connection;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::ThreadId;

/// The connection and the batch open on it.
#[derive(Debug)]
pub(crate) struct BatchedConnection {
    held: Mutex<Held>,
    /// Signalled when a batch ends.
    ended: Condvar,
}

#[derive(Debug)]
struct Held {
    conn: Connection,
    /// The thread whose batch is open.
    batch: Option<ThreadId>,
    /// The open batch has begun its transaction (at its first write).
    begun: bool,
}

impl BatchedConnection {
    pub(crate) fn new(conn: Connection) -> Self {
        Self {
            held: Mutex::new(Held {
                conn,
                batch: None,
                begun: false,
            }),
            ended: Condvar::new(),
        }
    }

    /// The connection, once no other thread's batch is open; whether this thread's own batch
    /// is.
    fn lock(&self) -> (MutexGuard<'_, Held>, bool) {
        let me = std::thread::current().id();
        // A panic inside a store operation rolls its transaction or savepoint back before the
        // lock is released, so the connection is sound.
        let mut held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            match held.batch {
                Some(owner) if owner == me => return (held, true),
                Some(_) => {
                    held = self
                        .ended
                        .wait(held)
                        .unwrap_or_else(PoisonError::into_inner);
                }
                None => return (held, false),
            }
        }
    }

    /// Runs `f` on the connection: for reads and for statements that must run outside a
    /// transaction (pragmas).
    pub(crate) fn read<T>(
        &self,
        f: impl FnOnce(&mut Connection) -> FaultResult<T>,
    ) -> FaultResult<T> {
        f(&mut self.lock().0.conn)
    }

    /// Runs `f` as one write: its own transaction, committed before this returns (`committed`
    /// is then called on the connection), or a savepoint of this thread's batch.
    pub(crate) fn write<T>(
        &self,
        f: impl FnOnce(&Connection) -> FaultResult<T>,
        committed: impl FnOnce(&Connection),
    ) -> FaultResult<T> {
        let (mut held, in_batch) = self.lock();
        if in_batch {
            if !held.begun {
                run(&held.conn, "BEGIN IMMEDIATE")?;
                held.begun = true;
            } else if held.conn.is_autocommit() {
                return Err(Fault::BatchFailed(
                    "SQLite rolled the transaction back".into(),
                ));
            }
            return in_savepoint(&held.conn, f);
        }
        let conn = &held.conn;
        run(conn, "BEGIN IMMEDIATE")?;
        match catch_unwind(AssertUnwindSafe(|| f(conn))) {
            Ok(Ok(value)) => {
                run(conn, "COMMIT")?;
                committed(conn);
                Ok(value)
            }
            Ok(Err(fault)) => {
                roll_back(conn);
                Err(fault)
            }
            Err(panic) => {
                roll_back(conn);
                resume_unwind(panic)
            }
        }
    }

    /// Runs `work` holding one transaction open: the writes it makes on this thread are
    /// committed together once it returns, and what `work` was told of them is void if that
    /// fails (the error says why). Other threads wait meanwhile. A batch inside a batch is
    /// part of it.
    pub(crate) fn batch(
        &self,
        work: &mut dyn FnMut(),
        committed: impl FnOnce(&Connection),
    ) -> FaultResult<()> {
        let (mut held, in_batch) = self.lock();
        if in_batch {
            drop(held);
            work();
            return Ok(());
        }
        held.batch = Some(std::thread::current().id());
        held.begun = false;
        drop(held);
        let worked = catch_unwind(AssertUnwindSafe(&mut *work));
        let mut held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        held.batch = None;
        let begun = std::mem::take(&mut held.begun);
        let commit = match (&worked, begun, held.conn.is_autocommit()) {
            (Err(_), _, _) => Err("the batch panicked".to_owned()),
            // Nothing was written.
            (Ok(()), false, _) => Ok(()),
            (Ok(()), true, true) => Err("SQLite rolled the transaction back".to_owned()),
            (Ok(()), true, false) => run(&held.conn, "COMMIT").map_err(|error| error.to_string()),
        };
        match &commit {
            Ok(()) if begun => committed(&held.conn),
            Ok(()) => {}
            Err(_) => roll_back(&held.conn),
        }
        drop(held);
        self.ended.notify_all();
        if let Err(panic) = worked {
            resume_unwind(panic);
        }
        commit.map_err(Fault::BatchFailed)
    }
}

/// Runs one of the few fixed statements of a transaction (compiled once).
fn run(conn: &Connection, sql: &str) -> rusqlite::Result<()> {
    conn.prepare_cached(sql)?.execute([]).map(drop)
}

/// Rolls the open transaction back, if SQLite has not already.
fn roll_back(conn: &Connection) {
    if !conn.is_autocommit() {
        let _ = run(conn, "ROLLBACK");
    }
}

/// Runs `f` in a savepoint of `conn`'s open transaction, rolled back alone when `f` fails
/// or panics.
fn in_savepoint<T>(
    conn: &Connection,
    f: impl FnOnce(&Connection) -> FaultResult<T>,
) -> FaultResult<T> {
    run(conn, "SAVEPOINT agentctl_write")?;
    match catch_unwind(AssertUnwindSafe(|| f(conn))) {
        Ok(Ok(value)) => {
            run(conn, "RELEASE agentctl_write")?;
            Ok(value)
        }
        Ok(Err(fault)) => {
            roll_back_savepoint(conn);
            Err(fault)
        }
        Err(panic) => {
            roll_back_savepoint(conn);
            resume_unwind(panic)
        }
    }
}

fn roll_back_savepoint(conn: &Connection) {
    // Nothing to undo when SQLite already rolled the whole transaction back.
    if !conn.is_autocommit() {
        let _ = run(conn, "ROLLBACK TO agentctl_write");
        let _ = run(conn, "RELEASE agentctl_write");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU32, Ordering};
    use std::time::Duration;

    fn store(dir: &tempfile::TempDir) -> Arc<BatchedConnection> {
        let conn = Connection::open(dir.path().join("batch.db")).unwrap();
        conn.execute_batch("PRAGMA journal_mode = WAL; CREATE TABLE t (v INTEGER UNIQUE)")
            .unwrap();
        Arc::new(BatchedConnection::new(conn))
    }

    fn insert(conn: &BatchedConnection, value: i64, commits: &AtomicU32) -> FaultResult<usize> {
        conn.write(
            |conn| Ok(conn.execute("INSERT INTO t (v) VALUES (?1)", [value])?),
            |_| {
                commits.fetch_add(1, Ordering::SeqCst);
            },
        )
    }

    fn count(conn: &BatchedConnection) -> i64 {
        conn.read(|conn| Ok(conn.query_row("SELECT COUNT(*) FROM t", [], |row| row.get(0))?))
            .unwrap()
    }

    #[test]
    fn a_failing_write_is_rolled_back_alone() {
        let dir = tempfile::tempdir().unwrap();
        let conn = store(&dir);
        let commits = AtomicU32::new(0);
        insert(&conn, 1, &commits).unwrap();
        let failed = conn.write(
            |conn| {
                conn.execute("INSERT INTO t (v) VALUES (2)", [])?;
                // A unique clash: the savepoint (the 2 as well) is rolled back.
                Ok(conn.execute("INSERT INTO t (v) VALUES (1)", [])?)
            },
            |_| {},
        );
        assert!(matches!(failed, Err(Fault::Sql(_))), "{failed:?}");
        insert(&conn, 3, &commits).unwrap();
        let values: Vec<i64> = conn
            .read(|conn| {
                let mut statement = conn.prepare("SELECT v FROM t ORDER BY v")?;
                let rows = statement.query_map([], |row| row.get(0))?;
                Ok(rows.collect::<rusqlite::Result<_>>()?)
            })
            .unwrap();
        assert_eq!(values, [1, 3]);
    }

    #[test]
    fn others_never_read_a_batch_before_it_is_committed() {
        let dir = tempfile::tempdir().unwrap();
        let conn = store(&dir);
        let commits = AtomicU32::new(0);
        let mut reader = None;
        let rolled_back = catch_unwind(AssertUnwindSafe(|| {
            conn.batch(
                &mut || {
                    insert(&conn, 1, &commits).unwrap();
                    insert(&conn, 2, &commits).unwrap();
                    // The batch's own thread reads its writes at once.
                    assert_eq!(count(&conn), 2);
                    let other = Arc::clone(&conn);
                    reader = Some(std::thread::spawn(move || count(&other)));
                    std::thread::sleep(Duration::from_millis(100));
                    panic!("the batch fails after the other thread asked");
                },
                |_| {},
            )
        }));
        assert!(rolled_back.is_err());
        // The other thread waited for the batch to end: it never saw its rows.
        assert_eq!(reader.unwrap().join().unwrap(), 0);
        let committed = conn.batch(
            &mut || {
                insert(&conn, 3, &commits).unwrap();
                insert(&conn, 4, &commits).unwrap();
            },
            |_| {
                commits.fetch_add(1, Ordering::SeqCst);
            },
        );
        assert!(committed.is_ok());
        assert_eq!(count(&conn), 2);
        assert_eq!(commits.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn a_batch_begins_its_transaction_at_its_first_write() {
        let dir = tempfile::tempdir().unwrap();
        let conn = store(&dir);
        let commits = AtomicU32::new(0);
        let mut autocommit = Vec::new();
        let read_only = conn.batch(
            &mut || {
                assert_eq!(count(&conn), 0);
                autocommit.push(conn.read(|conn| Ok(conn.is_autocommit())).unwrap());
            },
            |_| {
                commits.fetch_add(1, Ordering::SeqCst);
            },
        );
        assert!(read_only.is_ok());
        let written = conn.batch(
            &mut || {
                autocommit.push(conn.read(|conn| Ok(conn.is_autocommit())).unwrap());
                insert(&conn, 1, &commits).unwrap();
                autocommit.push(conn.read(|conn| Ok(conn.is_autocommit())).unwrap());
            },
            |_| {
                commits.fetch_add(1, Ordering::SeqCst);
            },
        );
        assert!(written.is_ok());
        // No transaction until the write; the batch that only read committed nothing.
        assert_eq!(autocommit, [true, true, false]);
        assert_eq!(commits.load(Ordering::SeqCst), 1);
        assert_eq!(count(&conn), 1);
    }

    #[test]
    fn a_batch_whose_transaction_is_lost_fails_and_the_connection_recovers() {
        let dir = tempfile::tempdir().unwrap();
        let conn = store(&dir);
        let commits = AtomicU32::new(0);
        let mut told = Vec::new();
        let lost = conn.batch(
            &mut || {
                told.push(insert(&conn, 1, &commits).is_ok());
                // Something rolls the whole transaction back under the batch.
                let _ = conn.write(|conn| Ok(conn.execute_batch("ROLLBACK")?), |_| {});
                told.push(insert(&conn, 2, &commits).is_ok());
            },
            |_| {},
        );
        assert_eq!(told, [true, false]);
        assert!(matches!(lost, Err(Fault::BatchFailed(_))), "{lost:?}");
        assert_eq!(count(&conn), 0);
        insert(&conn, 3, &commits).unwrap();
        assert_eq!(count(&conn), 1);
    }
}
