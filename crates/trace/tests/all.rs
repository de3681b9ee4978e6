//! Integration tests of agentctl-trace.

mod suite;
