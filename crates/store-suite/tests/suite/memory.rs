//! Long-term memory on each backend: the embedded `memory.db` and the PostgreSQL store's
//! memory tables (with pgvector when the server has it).

mod backends;
mod pgvector;
