//! Integration tests of agentctl-trace.

mod suite {
    mod otel;
    mod otlp_json;
}
