//! Integration tests of agentctl-config: one binary, one module per topic.

mod suite {
    mod errors;
    mod layering;
    mod support;
}
