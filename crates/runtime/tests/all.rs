//! Integration tests of agentctl-runtime (one binary; modules in `suite/`).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test helpers outside #[test] functions"
)]

mod suite;
