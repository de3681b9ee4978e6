//! Integration tests of agentctl-cli (one binary; modules in `suite/`). The end-to-end tests
//! of the command line are the root package's (`tests/cli`).

// Test helpers outside `#[test]` functions may unwrap too: a panic is a test failure.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite {
    mod layout;
}
