//! Tracing for agentctl: the spans of a run, built from its events, and the backends that
//! write them.

mod otel;
