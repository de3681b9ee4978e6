//! What goes wrong turning a record into a row or a row into a record.

/// A row that could not be written for its table, or read back from it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{table}: {reason}")]
pub struct RowError {
    /// The table the row was for.
    pub table: &'static str,
    /// What went wrong.
    pub reason: String,
}
