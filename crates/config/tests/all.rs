//! Integration tests of agentctl-config: one binary, one module per topic.

mod suite {
    mod claude;
    mod errors;
    mod gemini;
    mod input_files;
    mod layering;
    mod support;
    mod trust;
}
