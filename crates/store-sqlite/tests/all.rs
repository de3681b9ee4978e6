//! Integration tests of agentctl-store-sqlite (one binary; modules in `suite/`).

// Test helpers outside `#[test]` functions may unwrap too: a panic is a test failure.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite {
    pub mod support;

    mod budgets;
    mod checkpoint;
    mod clear;
    mod concurrency;
    mod contracts;
    mod described;
    mod graph;
    mod graph_writers;
    pub mod inspection;
    mod kill;
    mod migration;
    #[cfg(unix)]
    mod private;
    mod recorder;
    mod state;
    mod store;
    mod trace;
}
