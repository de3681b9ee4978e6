//! [`PgStore`]: the session store on a PostgreSQL server.

use crate::fault::{Fault, FaultResult};
use crate::presence::Presence;
use crate::schema;
use crate::url::{Connector, PgUrl};
use crate::worker::Worker;
use agentctl_core::Redactor;
use agentctl_store::{ContextError, Result};
use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod, Runtime};
use std::borrow::Cow;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

/// Connections one store keeps open at most: calls from several threads (a run's turns, its
/// sub-agents' turns, a trace writer) run at once; more only queue.
const POOL_SIZE: usize = 8;

/// How long a call waits for a free connection (or for a new one to open).
const POOL_WAIT: Duration = Duration::from_secs(30);

/// A [`SessionStore`](agentctl_store::SessionStore) on a PostgreSQL server, shared by every
/// agentctl process (on any machine) given the same URL.
///
/// The store traits are synchronous; this store answers them from a thread of its own that
/// runs the async driver (see the crate documentation), so it may be called from plain
/// threads and from inside a tokio runtime alike. Each write is one transaction that first
/// locks its session's row (`SELECT … FOR UPDATE`): two processes appending to one session
/// queue for the few milliseconds a turn's rows take, and a turn's messages get consecutive
/// ids — turns never interleave, and none is lost.
///
/// ```no_run
/// use agentctl_store::{ContextScope, MessageLog, MessageQuery, NewMessage, SessionLog};
/// use agentctl_core::Message;
/// use agentctl_store_postgres::PgStore;
///
/// let store = PgStore::connect("postgres://agentctl@db.internal/agentctl")?;
/// let session = store.create_session(Some("shared"))?;
/// store.append_messages(&session.id, None, &[NewMessage::new(ContextScope::Main, None, Message::user("hello"))])?;
/// assert_eq!(store.messages(&session.id, &MessageQuery::timeline())?.len(), 1);
/// # Ok::<(), agentctl_store::ContextError>(())
/// ```
pub struct PgStore {
    pub(crate) inner: Arc<Inner>,
    /// Masks secrets in everything written, and in error messages.
    pub(crate) redactor: Redactor,
    /// Dropped last: joining it closes the connections.
    worker: Worker,
}

/// What the operations running on the worker share.
pub(crate) struct Inner {
    pub(crate) url: PgUrl,
    pub(crate) pool: Pool,
    pub(crate) tls: Connector,
    pub(crate) presence: Arc<Presence>,
    /// This process, as recorded with the runs it starts.
    pub(crate) pid: i64,
    pub(crate) host: Option<String>,
}

impl std::fmt::Debug for PgStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgStore")
            .field("url", &self.inner.url.label)
            .finish_non_exhaustive()
    }
}

impl PgStore {
    /// Connects to the server at `url` (`postgres://USER:PASSWORD@HOST:PORT/DATABASE`, see
    /// the crate documentation for parameters and TLS) and brings the database's schema up to
    /// date. The database must exist and the user must be able to create tables in it.
    pub fn connect(url: &str) -> Result<Self> {
        let url = PgUrl::parse(url)?;
        let redactor = Redactor::default();
        let fail = |fault: Fault| fault.into_error(&url, &redactor);
        let tls = url.connector()?;
        let manager = match tls.clone() {
            Connector::Plain => {
                Manager::from_config(url.config.clone(), tokio_postgres::NoTls, manager_config())
            }
            Connector::Rustls(connector) => {
                Manager::from_config(url.config.clone(), connector, manager_config())
            }
        };
        let pool = Pool::builder(manager)
            .max_size(POOL_SIZE)
            .runtime(Runtime::Tokio1)
            .wait_timeout(Some(POOL_WAIT))
            .create_timeout(Some(POOL_WAIT))
            .build()
            .map_err(|error| fail(Fault::Store(format!("connection pool: {error}"))))?;
        let worker = Worker::start()
            .map_err(|error| fail(Fault::Store(format!("cannot start its thread: {error}"))))?;
        let store = Self {
            inner: Arc::new(Inner {
                url,
                pool,
                tls,
                presence: Presence::new(),
                pid: i64::from(std::process::id()),
                host: host_name(),
            }),
            redactor,
            worker,
        };
        store.call(|inner| async move {
            let mut client = inner.pool.get().await?;
            schema::migrate(&mut client, &inner.url.label).await
        })?;
        Ok(store)
    }

    /// The same store, masking the secrets `redactor` knows in everything it writes and in its
    /// error messages.
    pub fn with_redactor(mut self, redactor: Redactor) -> Self {
        self.redactor = redactor;
        self
    }

    /// The store's URL without its password: what errors and listings name it by.
    pub fn url(&self) -> &str {
        &self.inner.url.label
    }

    /// The database's schema version ([`PG_SCHEMA_VERSION`](crate::PG_SCHEMA_VERSION) once
    /// connected).
    pub fn schema_version(&self) -> Result<i64> {
        self.call(|inner| async move {
            let client = inner.pool.get().await?;
            schema::version(&client).await
        })
    }

    /// Runs `operation` on the store's thread and waits for it; its errors name the store.
    pub(crate) fn call<T, F, Fut>(&self, operation: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(Arc<Inner>) -> Fut,
        Fut: Future<Output = FaultResult<T>> + Send + 'static,
    {
        self.call_raw(operation).map_err(|fault| self.error(fault))
    }

    /// [`call`](Self::call), its fault as it is.
    pub(crate) fn call_raw<T, F, Fut>(&self, operation: F) -> FaultResult<T>
    where
        T: Send + 'static,
        F: FnOnce(Arc<Inner>) -> Fut,
        Fut: Future<Output = FaultResult<T>> + Send + 'static,
    {
        let future = operation(Arc::clone(&self.inner));
        self.worker.run(future).unwrap_or_else(|_| {
            Err(Fault::Store(
                "the store's connection thread has stopped".into(),
            ))
        })
    }

    /// A fault as the caller sees it.
    pub(crate) fn error(&self, fault: Fault) -> ContextError {
        fault.into_error(&self.inner.url, &self.redactor)
    }
}

fn manager_config() -> ManagerConfig {
    ManagerConfig {
        // A connection the server closed is noticed (`is_closed`) without a round trip.
        recycling_method: RecyclingMethod::Fast,
    }
}

/// The machine's name, for the `owner_host` of runs (people reading the table).
fn host_name() -> Option<String> {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|name| name.trim().to_owned())
        .filter(|name| !name.is_empty())
}

pub(crate) use agentctl_store::ops::now_ms;

/// Text as PostgreSQL takes it: `TEXT` cannot hold NUL characters, which SQLite keeps, so a
/// NUL in a title, a name or a summary becomes U+FFFD instead of failing the write. Used for
/// every text parameter, so a lookup by the same name finds the same row.
pub(crate) fn text(value: &str) -> Cow<'_, str> {
    if value.contains('\0') {
        Cow::Owned(value.replace('\0', "\u{FFFD}"))
    } else {
        Cow::Borrowed(value)
    }
}

/// [`text`] of an optional value.
pub(crate) fn opt_text(value: Option<&str>) -> Option<String> {
    value.map(|value| text(value).into_owned())
}

/// A count as stored (`BIGINT`) to the unsigned figure of a record.
pub(crate) fn count(value: i64) -> u64 {
    u64::try_from(value).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_has_no_nul() {
        assert_eq!(text("a\0b"), "a\u{FFFD}b");
        assert!(matches!(text("plain"), Cow::Borrowed("plain")));
    }
}
