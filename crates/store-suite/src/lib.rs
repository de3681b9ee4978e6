//! The session store backends a test runs against: the embedded SQLite store always, and the
//! PostgreSQL store when a server is at hand — the store suite's half of the test helpers,
//! apart from `agentctl-test-support` so that the stores' own tests can use those helpers
//! without a dependency cycle.
//!
//! `AGENTCTL_TEST_DATABASE_URL` names a PostgreSQL server (`postgres://USER@HOST:PORT/postgres`,
//! a user that may create databases; `.ci/postgres start` starts a throwaway one). Each
//! [`Backend::fresh`] store of PostgreSQL gets a database of its own, dropped with it, so tests
//! run in parallel without seeing each other's sessions. Without the variable the PostgreSQL
//! half is skipped (see [`agentctl_test_support::postgres_url`]).

use agentctl_core::Redactor;
use agentctl_store::{SessionImport, SessionStore};
use agentctl_store_postgres::{PgStore, ScratchDatabase};
use agentctl_store_sqlite::SqliteStore;
use agentctl_test_support::{TEST_DATABASE_URL, postgres_url};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A store implementation under test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// The embedded SQLite store, in a file of a temporary directory.
    Sqlite,
    /// The PostgreSQL store, in a database of its own on the test server.
    Postgres,
}

/// A store both for the store traits and for copying sessions in.
pub trait TestStore: SessionStore + SessionImport {}

impl<T: SessionStore + SessionImport + ?Sized> TestStore for T {}

/// The backends to run a store test against: SQLite, and PostgreSQL when there is a server.
pub fn backends() -> Vec<Backend> {
    let mut backends = vec![Backend::Sqlite];
    if postgres_url().is_some() {
        backends.push(Backend::Postgres);
    }
    backends
}

/// An empty store of one backend, with what keeps it alive (its directory, its database).
pub struct FreshStore {
    /// The store.
    pub store: Arc<dyn TestStore>,
    /// Which backend.
    pub backend: Backend,
    /// Where it is: the SQLite file's path or the database's URL; [`open_location`] opens it
    /// again (another connection, as another process would).
    pub location: String,
    dir: Option<tempfile::TempDir>,
    /// Dropped after the store (fields drop in order): the database goes last.
    _database: Option<ScratchDatabase>,
}

impl std::fmt::Debug for FreshStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FreshStore")
            .field("backend", &self.backend)
            .field("location", &self.location)
            .finish_non_exhaustive()
    }
}

impl FreshStore {
    /// Another store on the same data (a second process would open the same).
    pub fn reopen(&self) -> Arc<dyn TestStore> {
        open_location(&self.location)
    }

    /// A temporary directory that lives as long as the store (for files a test writes).
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_ref().map(tempfile::TempDir::path)
    }
}

impl Backend {
    /// An empty store.
    pub fn fresh(self) -> FreshStore {
        self.fresh_with(Redactor::default())
    }

    /// An empty store masking the secrets `redactor` knows in what it writes.
    pub fn fresh_with(self, redactor: Redactor) -> FreshStore {
        match self {
            Backend::Sqlite => {
                let dir = temp_dir();
                let path: PathBuf = dir.path().join(".agentctl").join("sessions.db");
                let location = path.display().to_string();
                FreshStore {
                    store: Arc::new(
                        SqliteStore::open(&path)
                            .unwrap_or_else(|error| panic!("{error}"))
                            .with_redactor(redactor),
                    ),
                    backend: self,
                    location,
                    dir: Some(dir),
                    _database: None,
                }
            }
            Backend::Postgres => {
                let Some(server) = postgres_url() else {
                    panic!("no PostgreSQL test server: set {TEST_DATABASE_URL}");
                };
                let database = ScratchDatabase::create(&server)
                    .unwrap_or_else(|error| panic!("creating a test database: {error}"));
                let location = database.url().to_owned();
                FreshStore {
                    store: Arc::new(
                        PgStore::connect(&location)
                            .unwrap_or_else(|error| panic!("connecting to {location}: {error}"))
                            .with_redactor(redactor),
                    ),
                    backend: self,
                    location,
                    dir: Some(temp_dir()),
                    _database: Some(database),
                }
            }
        }
    }
}

fn temp_dir() -> tempfile::TempDir {
    tempfile::tempdir().unwrap_or_else(|error| panic!("temporary directory: {error}"))
}

/// Opens the store at `location`: a `postgres://` URL or a SQLite file's path.
pub fn open_location(location: &str) -> Arc<dyn TestStore> {
    if agentctl_store_postgres::is_postgres_url(location) {
        Arc::new(PgStore::connect(location).unwrap_or_else(|error| panic!("{error}")))
    } else {
        Arc::new(SqliteStore::open(Path::new(location)).unwrap_or_else(|error| panic!("{error}")))
    }
}
