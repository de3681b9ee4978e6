//! Integration tests of agentctl-test-support: the strict fake servers over real TCP.

mod suite {
    mod otlp;
    mod requirement;
    mod server;
}
