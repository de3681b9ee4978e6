//! Integration tests of agentctl-private-files (one binary; modules in `suite/`).

// Test helpers outside `#[test]` functions may unwrap too: a panic is a test failure.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite {
    #[cfg(unix)]
    mod modes;
}
