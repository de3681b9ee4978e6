//! Group commit: the store's one connection, shared by every thread that writes through it.
//!
//! Each write runs in a savepoint of a shared `BEGIN IMMEDIATE` transaction and returns only
//! once that transaction is committed. The writer that finds no other thread waiting to write
//! commits it; a writer that finds one waiting leaves the transaction open for it and waits for
//! the commit. A thread writing alone therefore commits each write at once, as a transaction of
//! its own would; fifty sessions writing at once share a few commits — one log append of each
//! page they touch instead of fifty. A write whose savepoint fails is rolled back alone; a
//! commit that fails fails every write of its group, each caller told so.
//!
//! A thread can also hold a group open over several writes ([`GroupedConnection::batch`]):
//! they are committed together when it ends, and other threads' reads and writes wait for it.
//!
//! Reads wait while a group is open: they never see a write that is not committed yet (a
//! batch's own thread sees its batch's writes).

use super::{Fault, FaultResult};
use rusqlite::Connection;
use std::collections::VecDeque;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::ThreadId;

/// Writes one group commits at most: the first writer of a long queue waits no longer than
/// this many savepoints.
const GROUP_LIMIT: u32 = 64;

/// Failed groups remembered for their waiters (a waiter may wake after later groups ended).
const FAILURES_KEPT: usize = 64;

/// The connection and the group transaction open on it.
#[derive(Debug)]
pub(crate) struct GroupedConnection {
    held: Mutex<Held>,
    /// Signalled whenever a group ends (committed or failed).
    ended: Condvar,
    /// Threads waiting for the lock to write: while there are any, a writer leaves the group
    /// open for them.
    queued: AtomicUsize,
}

#[derive(Debug)]
struct Held {
    conn: Connection,
    /// A group transaction is open.
    open: bool,
    /// Writes in the open group.
    writes: u32,
    /// The thread whose batch holds the open group.
    batch: Option<ThreadId>,
    /// Groups ended so far; the open group is number `ended + 1`.
    ended: u64,
    /// The latest groups that failed, with why.
    failures: VecDeque<(u64, String)>,
}

impl Held {
    /// Whether another thread's group (or batch) must end before `me` reads or writes.
    fn busy_for(&self, me: ThreadId, writing: bool) -> bool {
        match self.batch {
            Some(owner) => owner != me,
            None => !writing && self.open,
        }
    }

    /// Commits the open group; why not when it cannot be.
    fn commit(&mut self) -> Result<(), String> {
        if self.conn.is_autocommit() {
            Err("SQLite rolled the transaction back".to_owned())
        } else {
            run(&self.conn, "COMMIT").map_err(|error| error.to_string())
        }
    }

    fn failure(&self, group: u64) -> Option<&str> {
        self.failures
            .iter()
            .find(|(failed, _)| *failed == group)
            .map(|(_, why)| why.as_str())
    }
}

impl GroupedConnection {
    pub(crate) fn new(conn: Connection) -> Self {
        Self {
            held: Mutex::new(Held {
                conn,
                open: false,
                writes: 0,
                batch: None,
                ended: 0,
                failures: VecDeque::new(),
            }),
            ended: Condvar::new(),
            queued: AtomicUsize::new(0),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Held> {
        // A panic inside a store operation rolls its savepoint back before the lock is
        // released, so the connection is sound.
        self.held.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Runs `f` on the connection once no group is open: for reads and for statements that
    /// must run outside a transaction (pragmas).
    pub(crate) fn read<T>(
        &self,
        f: impl FnOnce(&mut Connection) -> FaultResult<T>,
    ) -> FaultResult<T> {
        let me = std::thread::current().id();
        let mut held = self.lock();
        while held.busy_for(me, false) {
            held = self
                .ended
                .wait(held)
                .unwrap_or_else(PoisonError::into_inner);
        }
        f(&mut held.conn)
    }

    /// Runs `work` holding one group open: the writes it makes on this thread are committed
    /// together once it returns, and what `work` was told of them is void if that fails (the
    /// error says why). Other threads wait meanwhile. A batch inside a batch is part of it.
    pub(crate) fn batch(
        &self,
        work: &mut dyn FnMut(),
        committed: impl FnOnce(&Connection),
    ) -> FaultResult<()> {
        let me = std::thread::current().id();
        let mut held = self.lock();
        if held.batch == Some(me) {
            drop(held);
            work();
            return Ok(());
        }
        while held.open || held.batch.is_some() {
            held = self
                .ended
                .wait(held)
                .unwrap_or_else(PoisonError::into_inner);
        }
        run(&held.conn, "BEGIN IMMEDIATE")?;
        held.open = true;
        held.writes = 0;
        held.batch = Some(me);
        drop(held);
        let worked = catch_unwind(AssertUnwindSafe(&mut *work));
        let mut held = self.lock();
        held.batch = None;
        let group = held.ended + 1;
        let commit = match &worked {
            Ok(()) => held.commit(),
            Err(_) => Err("the batch panicked".to_owned()),
        };
        if commit.is_ok() {
            committed(&held.conn);
        }
        self.end(&mut held, commit);
        let failure = held.failure(group).map(str::to_owned);
        drop(held);
        if let Err(panic) = worked {
            resume_unwind(panic);
        }
        failure.map_or(Ok(()), |why| Err(Fault::GroupFailed(why)))
    }

    /// Runs `f` in a savepoint of the group transaction and returns once the group is
    /// committed: `f`'s answer, or why the group failed. `committed` is called on the
    /// connection by the thread that commits a group.
    pub(crate) fn write<T>(
        &self,
        f: impl FnOnce(&Connection) -> FaultResult<T>,
        committed: impl FnOnce(&Connection),
    ) -> FaultResult<T> {
        let me = std::thread::current().id();
        self.queued.fetch_add(1, Ordering::SeqCst);
        let mut held = self.lock();
        while held.busy_for(me, true) {
            held = self
                .ended
                .wait(held)
                .unwrap_or_else(PoisonError::into_inner);
        }
        self.queued.fetch_sub(1, Ordering::SeqCst);
        if held.batch == Some(me) {
            // Committed when the batch ends.
            if held.conn.is_autocommit() {
                return Err(Fault::GroupFailed(
                    "SQLite rolled the transaction back".into(),
                ));
            }
            held.writes += 1;
            return in_savepoint(&held.conn, f);
        }
        if held.open && held.conn.is_autocommit() {
            // SQLite rolled the whole group back (a full disk, an I/O error) inside an earlier
            // write: its writers are told now.
            self.end(&mut held, Err("SQLite rolled the transaction back".into()));
        }
        if !held.open {
            run(&held.conn, "BEGIN IMMEDIATE")?;
            held.open = true;
            held.writes = 0;
        }
        let outcome = catch_unwind(AssertUnwindSafe(|| in_savepoint(&held.conn, f)));
        held.writes += 1;
        let group = held.ended + 1;
        if self.queued.load(Ordering::SeqCst) == 0 || held.writes >= GROUP_LIMIT {
            let commit = held.commit();
            if commit.is_ok() {
                committed(&held.conn);
            }
            self.end(&mut held, commit);
        } else {
            while held.ended < group {
                held = self
                    .ended
                    .wait(held)
                    .unwrap_or_else(PoisonError::into_inner);
            }
        }
        let failure = held.failure(group).map(str::to_owned);
        drop(held);
        let outcome = outcome.unwrap_or_else(|panic| resume_unwind(panic));
        match failure {
            Some(why) => Err(Fault::GroupFailed(why)),
            None => outcome,
        }
    }

    /// Ends the open group as `outcome` says (rolled back when it failed) and wakes its
    /// writers.
    fn end(&self, held: &mut Held, outcome: Result<(), String>) {
        if let Err(why) = outcome {
            if !held.conn.is_autocommit() {
                let _ = run(&held.conn, "ROLLBACK");
            }
            if held.failures.len() == FAILURES_KEPT {
                held.failures.pop_front();
            }
            held.failures.push_back((held.ended + 1, why));
        }
        held.open = false;
        held.ended += 1;
        self.ended.notify_all();
    }
}

/// Runs one of the few fixed statements of a group (its statement is compiled once).
fn run(conn: &Connection, sql: &str) -> rusqlite::Result<()> {
    conn.prepare_cached(sql)?.execute([]).map(drop)
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
    use std::sync::atomic::AtomicU32;
    use std::time::Duration;

    fn store(dir: &tempfile::TempDir) -> Arc<GroupedConnection> {
        let conn = Connection::open(dir.path().join("group.db")).unwrap();
        conn.execute_batch("PRAGMA journal_mode = WAL; CREATE TABLE t (v INTEGER UNIQUE)")
            .unwrap();
        Arc::new(GroupedConnection::new(conn))
    }

    fn insert(group: &GroupedConnection, value: i64, commits: &AtomicU32) -> FaultResult<usize> {
        group.write(
            |conn| Ok(conn.execute("INSERT INTO t (v) VALUES (?1)", [value])?),
            |_| {
                commits.fetch_add(1, Ordering::SeqCst);
            },
        )
    }

    fn count(group: &GroupedConnection) -> i64 {
        group
            .read(|conn| Ok(conn.query_row("SELECT COUNT(*) FROM t", [], |row| row.get(0))?))
            .unwrap()
    }

    #[test]
    fn writers_queued_behind_one_another_share_a_commit() {
        let dir = tempfile::tempdir().unwrap();
        let group = store(&dir);
        let commits = Arc::new(AtomicU32::new(0));
        let mut writers = Vec::new();
        group
            .batch(
                &mut || {
                    for value in 0..5 {
                        let (group, commits) = (Arc::clone(&group), Arc::clone(&commits));
                        writers.push(std::thread::spawn(move || {
                            insert(&group, value, &commits).map_err(|fault| format!("{fault:?}"))
                        }));
                    }
                    // Every writer waits for the batch before the batch ends.
                    while group.queued.load(Ordering::SeqCst) < 5 {
                        std::thread::sleep(Duration::from_millis(1));
                    }
                },
                |_| {},
            )
            .unwrap();
        for writer in writers {
            assert_eq!(writer.join().unwrap(), Ok(1));
        }
        assert_eq!(count(&group), 5);
        // The first four found another writer queued and left the commit to it.
        assert_eq!(commits.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn a_failing_write_is_rolled_back_alone() {
        let dir = tempfile::tempdir().unwrap();
        let group = store(&dir);
        let commits = AtomicU32::new(0);
        insert(&group, 1, &commits).unwrap();
        let failed = group.write(
            |conn| {
                conn.execute("INSERT INTO t (v) VALUES (2)", [])?;
                // A unique clash: the savepoint (the 2 as well) is rolled back.
                Ok(conn.execute("INSERT INTO t (v) VALUES (1)", [])?)
            },
            |_| {},
        );
        assert!(matches!(failed, Err(Fault::Sql(_))), "{failed:?}");
        insert(&group, 3, &commits).unwrap();
        let values: Vec<i64> = group
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
        let group = store(&dir);
        let commits = AtomicU32::new(0);
        let mut reader = None;
        let rolled_back = catch_unwind(AssertUnwindSafe(|| {
            group.batch(
                &mut || {
                    insert(&group, 1, &commits).unwrap();
                    insert(&group, 2, &commits).unwrap();
                    // The batch's own thread reads its writes at once.
                    assert_eq!(count(&group), 2);
                    let other = Arc::clone(&group);
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
        let committed = group.batch(
            &mut || {
                insert(&group, 3, &commits).unwrap();
                insert(&group, 4, &commits).unwrap();
            },
            |_| {
                commits.fetch_add(1, Ordering::SeqCst);
            },
        );
        assert!(committed.is_ok());
        assert_eq!(count(&group), 2);
        assert_eq!(commits.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn a_batch_whose_transaction_is_lost_fails_and_the_connection_recovers() {
        let dir = tempfile::tempdir().unwrap();
        let group = store(&dir);
        let commits = AtomicU32::new(0);
        let mut told = Vec::new();
        let lost = group.batch(
            &mut || {
                told.push(insert(&group, 1, &commits).is_ok());
                // Something rolls the whole transaction back under the batch.
                let _ = group.write(|conn| Ok(conn.execute_batch("ROLLBACK")?), |_| {});
                told.push(insert(&group, 2, &commits).is_ok());
            },
            |_| {},
        );
        assert_eq!(told, [true, false]);
        assert!(matches!(lost, Err(Fault::GroupFailed(_))), "{lost:?}");
        assert_eq!(count(&group), 0);
        insert(&group, 3, &commits).unwrap();
        assert_eq!(count(&group), 1);
    }
}
