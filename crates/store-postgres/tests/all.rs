//! Integration tests of agentctl-store-postgres (one binary; modules in `suite/`): what only
//! the PostgreSQL store has. The behaviour both stores share is the shared store suite of
//! agentctl-store-sqlite (`crates/store-sqlite/tests/suite/shared`), run on both.

// Test helpers outside `#[test]` functions may unwrap too: a panic is a test failure.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite {
    pub mod support;

    mod connect;
    mod described;
    mod locking;
    mod pipelined;
    mod schema;
}
