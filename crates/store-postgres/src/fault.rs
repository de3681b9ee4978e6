//! Errors inside a store operation, before they become a [`ContextError`] naming the store
//! (its URL without the password) with every known secret masked.

use crate::url::PgUrl;
use agentctl_core::Redactor;
use agentctl_store::ContextError;
use tokio_postgres::error::SqlState;

/// What went wrong inside one operation.
#[derive(Debug)]
pub(crate) enum Fault {
    /// The server refused a statement, or the connection failed.
    Pg(tokio_postgres::Error),
    /// No connection could be had from the pool.
    Pool(deadpool_postgres::PoolError),
    /// An error of the store's own (no such session, a checkpoint conflict, …).
    Context(ContextError),
    /// A stored row could not be decoded.
    Corrupt(&'static str, String),
    /// Something else about the store itself (its thread, its setup).
    Store(String),
    /// An error of long-term memory's own (a full agent, an unknown id).
    Memory(agentctl_memory::MemoryError),
}

impl From<tokio_postgres::Error> for Fault {
    fn from(error: tokio_postgres::Error) -> Self {
        Fault::Pg(error)
    }
}

impl From<deadpool_postgres::PoolError> for Fault {
    fn from(error: deadpool_postgres::PoolError) -> Self {
        Fault::Pool(error)
    }
}

impl From<agentctl_store::RowError> for Fault {
    fn from(error: agentctl_store::RowError) -> Self {
        Fault::Corrupt(error.table, error.reason)
    }
}

impl From<ContextError> for Fault {
    fn from(error: ContextError) -> Self {
        Fault::Context(error)
    }
}

/// The result of one operation.
pub(crate) type FaultResult<T> = Result<T, Fault>;

/// Whether trying again may succeed: a lost or refused connection, a serialisation failure or
/// deadlock, a lock that was not granted in time, a server shutting down or starting up.
fn retryable(error: &tokio_postgres::Error) -> bool {
    match error.code() {
        Some(code) => {
            code.code().starts_with("08")
                || [
                    SqlState::T_R_SERIALIZATION_FAILURE,
                    SqlState::T_R_DEADLOCK_DETECTED,
                    SqlState::LOCK_NOT_AVAILABLE,
                    SqlState::ADMIN_SHUTDOWN,
                    SqlState::CRASH_SHUTDOWN,
                    SqlState::CANNOT_CONNECT_NOW,
                    SqlState::TOO_MANY_CONNECTIONS,
                ]
                .contains(code)
        }
        // No answer from the server: the connection broke or never opened.
        None => error.is_closed() || error.as_db_error().is_none(),
    }
}

/// The error and its causes, one line each joined by `: `.
fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

/// Words for a server error: what it says, and what to do about the usual ones.
fn describe(error: &tokio_postgres::Error) -> String {
    let text = match error.as_db_error() {
        Some(db) => {
            let mut text = db.message().to_owned();
            if let Some(detail) = db.detail() {
                text.push_str(&format!(" ({detail})"));
            }
            if let Some(hint) = db.hint() {
                text.push_str(&format!("; hint: {hint}"));
            }
            text
        }
        None => chain(error),
    };
    match error.code() {
        Some(code) if *code == SqlState::LOCK_NOT_AVAILABLE => format!(
            "{text}: another process held this session's lock for longer than 30 s; try again"
        ),
        Some(code) if *code == SqlState::INVALID_PASSWORD => {
            format!("{text}: check the user and password of the store URL (or PGPASSWORD)")
        }
        Some(code) if *code == SqlState::INVALID_CATALOG_NAME => {
            format!("{text}: create the database first (createdb NAME) or name another one")
        }
        _ => text,
    }
}

impl Fault {
    /// The error a caller sees: the store named by its masked URL, secrets masked.
    pub(crate) fn into_error(self, url: &PgUrl, redactor: &Redactor) -> ContextError {
        let backend = |message: String, retryable: bool| ContextError::Backend {
            store: url.label.clone(),
            message: url.mask(&redactor.redact(&message)),
            retryable,
        };
        match self {
            Fault::Pg(error) => backend(describe(&error), retryable(&error)),
            Fault::Pool(deadpool_postgres::PoolError::Backend(error)) => {
                backend(describe(&error), retryable(&error))
            }
            Fault::Pool(deadpool_postgres::PoolError::Timeout(_)) => backend(
                "no connection to the server became free in time (all in use or the server does \
                 not answer)"
                    .into(),
                true,
            ),
            Fault::Pool(error) => backend(chain(&error), false),
            Fault::Context(error) => error,
            Fault::Corrupt(table, detail) => ContextError::CorruptRow {
                path: url.label.clone(),
                table,
                detail: url.mask(&redactor.redact(&detail)),
            },
            Fault::Store(message) => backend(message, false),
            Fault::Memory(error) => backend(error.to_string(), false),
        }
    }
}
