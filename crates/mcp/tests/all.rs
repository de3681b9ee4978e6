//! Integration tests of agentctl-mcp: real reference servers over stdio, misbehaving servers,
//! and agents served over MCP.

// Test helpers outside `#[test]` functions may unwrap too: a panic is a test failure.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite {
    mod everything;
    mod failures;
    mod launch;
    mod project;
    mod providers;
    mod serve;
    mod support;
}
