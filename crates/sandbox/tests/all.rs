//! Integration tests of agentctl-sandbox (one binary; modules in `suite/`).

// Test helpers outside `#[test]` functions may unwrap too: a panic is a test failure.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite {
    pub mod support;

    mod confine;
    mod denied;
    mod lifetime;
    mod network;
    mod protected;
    mod reads;
    mod status;
}
