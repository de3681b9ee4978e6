//! Integration tests of agentctl-routing (one binary; modules in `suite/`).

// Test helpers outside `#[test]` functions may unwrap too: a panic is a test failure.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite {
    mod condition;
    mod definition_check;
    mod graph;
    mod graph_definitions;
    mod graph_parallel;
    mod graph_render;
    mod graph_step;
    mod memory;
    mod router;
}
