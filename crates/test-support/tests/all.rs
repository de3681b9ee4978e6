//! Integration tests of agentctl-test-support: the strict fake servers over real TCP.

// Test helpers outside `#[test]` functions may unwrap too: a panic is a test failure.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite {
    mod cassettes;
    mod otlp;
    mod requirement;
    mod server;
}
