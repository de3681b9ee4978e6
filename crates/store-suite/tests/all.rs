//! The shared store suite (one binary; modules in `suite/`): what every session store and the
//! long-term memory store must do, run against each backend.

// Test helpers outside `#[test]` functions may unwrap too: a panic is a test failure.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite {
    mod memory;
    pub mod shared;
}
