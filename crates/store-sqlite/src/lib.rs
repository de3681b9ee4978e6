//! The embedded SQLite session store of agentctl: the store traits of `agentctl-store`
//! ([`SessionStore`](agentctl_store::SessionStore)) on one SQLite file, and the schema helpers
//! agentctl's other SQLite file (`memory.db`) shares ([`prepare_sqlite`], [`migrate_sqlite`]).
//!
//! One file per project (`<project>/.agentctl/sessions.db`) or, outside any project, per user
//! (`$AGENTCTL_HOME/sessions.db`); see [`SqliteStore::default_path`]. WAL journal, foreign keys
//! on and versioned migrations (`PRAGMA user_version`). Every write that belongs together runs
//! in one transaction, so a killed process leaves the file as it was before or after the write,
//! never in between. The operations are the ones both stores share (`agentctl_store::ops`),
//! run on the connection; SQLite answers at once, so each is polled once, with no runtime.
//!
//! Several agentctl processes may write one session at once (`agentctl run --session ID` in
//! two terminals, a script starting runs in parallel). Two rules keep every turn of every
//! process:
//!
//! * Every write transaction is `BEGIN IMMEDIATE` (`SqliteStore::write`): it takes the write
//!   lock before its first read. A deferred transaction that reads and then writes has to
//!   upgrade its read snapshot to a write lock, and in WAL mode that upgrade fails at once with
//!   `SQLITE_BUSY` when another process committed in between — the busy timeout never applies
//!   to it. Reads that decide a write (the next step index, whether a run is stale, the schema
//!   version) therefore happen inside the immediate transaction.
//! * Waiting writers queue on the busy timeout ([`BUSY_TIMEOUT`]). A write transaction holds
//!   the lock for one model turn's rows — milliseconds — so the wait is short even with many
//!   processes; the limit only bounds how long a process waits for a stuck writer before it
//!   reports that the turn could not be saved.

mod sqlite;

pub use sqlite::{
    BUSY_TIMEOUT, SCHEMA_VERSION, SchemaError, SqliteStore, migrate_sqlite, prepare_sqlite,
};
