//! Integration tests of agentctl-guardrails (one binary; modules in `suite/`).

// Test helpers outside `#[test]` functions may unwrap too: a panic is a test failure.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite {
    mod builtin;
    #[cfg(target_os = "linux")]
    mod command;
    mod decide;
    mod declare;
    mod definition_check;
    mod registered;
    mod schema;
    mod support;
}
