//! Integration tests of agentctl-context (one binary; modules in `suite/`).

// Test helpers outside `#[test]` functions may unwrap too: a panic is a test failure.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite {
    mod compaction;
    mod file_refs;
    mod mode;
    mod views;
    mod window;
}
