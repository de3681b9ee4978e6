//! End-to-end tests of the `agentctl` binary (modules in `tests/cli/`).

// Test helpers outside `#[test]` functions may unwrap too: a panic is a test failure.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod cli {
    mod agents;
    mod mcp;
    mod tools;
}
