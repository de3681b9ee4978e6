//! The PostgreSQL session store of agentctl: what a team running agents from several machines,
//! or a service running many sessions at once, shares instead of one SQLite file per disk.
//!
//! [`PgStore`] implements the same store traits as the embedded
//! `SqliteStore` (agentctl-store-sqlite) — sessions, messages, runs and steps,
//! summaries, mode overrides, session state, graph checkpoints and trace spans
//! ([`SessionStore`](agentctl_store::SessionStore)) — and takes whole sessions copied from
//! another store ([`SessionImport`](agentctl_store::SessionImport), for
//! `agentctl sessions migrate`). Its schema mirrors the SQLite one table for table, with its
//! own versioned migrations ([`PG_SCHEMA_VERSION`]); its operations are the ones both stores
//! share (`agentctl_store::ops`), run on its pooled connections and transactions. It is also a
//! long-term memory store ([`MemoryBackend`](agentctl_memory::MemoryBackend)): full-text
//! search, and similarity by pgvector when the extension is installed, else computed in the
//! client.
//!
//! How it works, and why:
//!
//! * **Synchronous traits, async driver.** The store traits are synchronous, and agentctl calls
//!   them from inside a tokio runtime, where `block_on` panics. Each store owns one thread with
//!   a current-thread runtime holding a `tokio-postgres` connection pool (`deadpool-postgres`);
//!   a trait call sends its queries there and blocks its caller for the round trips, as a
//!   SQLite call blocks on file I/O.
//! * **Per-session locking.** Every write is one transaction that first locks its session's
//!   row (`SELECT … FOR UPDATE`). Two processes on two hosts appending to one session queue
//!   for the milliseconds a turn's rows take; a turn's messages get consecutive ids in its
//!   session and are visible all at once or not at all. Waiting is bounded (`lock_timeout`
//!   30 s). Writers of different sessions never wait for each other.
//! * **Live runs across machines.** A store that starts runs holds a session-level advisory
//!   lock on a connection of its own; the server drops it when the process or its host goes
//!   away, which is how [`interrupt_stale_runs`](agentctl_store::RunLog::interrupt_stale_runs)
//!   tells a run of a live process on another machine from one whose process died.
//! * **Secrets.** The URL's password never appears in a label, an error or a listing
//!   ([`mask_url`]); with a redactor ([`PgStore::with_redactor`]) the secrets it knows are
//!   masked in every row written, as in the SQLite store. SQL is built from constants only;
//!   session ids, agent names, keys and every other value are parameters.
//! * **TLS** through rustls (ring) with the system's trust store, certificates always
//!   verified; see [`is_postgres_url`] for the URL's parameters.
//!
//! ```no_run
//! use agentctl_store::{NewRun, RunLog, SessionLog};
//! use agentctl_core::ContextMode;
//! use agentctl_store_postgres::PgStore;
//!
//! let store = PgStore::connect("postgres://agentctl@127.0.0.1:5432/agentctl")?;
//! let session = store.create_session(None)?;
//! let run = store.start_run(&session.id, &NewRun::new("reviewer", ContextMode::Isolated))?;
//! assert_eq!(store.runs(&session.id)?[0].id, run.id);
//! # Ok::<(), agentctl_store::ContextError>(())
//! ```

mod fault;
mod graph;
mod import;
mod memory;
mod messages;
mod presence;
mod runs;
mod schema;
mod scratch;
mod sessions;
mod state;
mod store;
mod summaries;
mod trace;
mod url;
mod worker;
mod write;

pub use memory::SimilarityRanker;
pub use schema::PG_SCHEMA_VERSION;
pub use scratch::ScratchDatabase;
pub use store::PgStore;
pub use url::{is_postgres_url, mask_url};
