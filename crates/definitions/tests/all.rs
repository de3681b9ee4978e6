//! Integration tests of agentctl-definitions (one binary; modules in `suite/`).

// Test helpers outside `#[test]` functions may unwrap too: a panic is a test failure.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite {
    mod broken;
    mod fixtures;
    mod golden;
    mod inputs;
    mod lookup;
    mod never_panics;
    mod seed_files;
    mod strict;
}
