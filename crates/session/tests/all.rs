//! Integration tests of agentctl-session (one binary; modules in `suite/`).

// Test helpers outside `#[test]` functions may unwrap too: a panic is a test failure.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite {
    mod capability;
    mod conversation;
    mod engine;
    mod graph;
    mod graph_executor;
    mod handoff;
    mod support;
    mod task;
}
