//! Integration tests of agentctl-trace (one binary; modules in `suite/`; the allocation
//! counting test has a binary of its own).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod suite {
    mod otel;
    mod otlp_json;
    #[cfg(unix)]
    mod private;
    mod run;
    mod vendors;
}
