//! Integration tests of agentctl-context (one binary; modules in `suite/`).

// Test helpers outside `#[test]` functions may unwrap too: a panic is a test failure.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite {
    pub mod support;

    mod budgets;
    mod checkpoint;
    mod clear;
    mod compaction;
    mod concurrency;
    mod contracts;
    mod file_refs;
    mod graph;
    mod graph_writers;
    pub mod inspection;
    mod kill;
    mod migration;
    mod mode;
    #[cfg(unix)]
    mod private;
    mod recorder;
    mod shared;
    mod state;
    mod store;
    mod trace;
    mod views;
    mod window;
}
