//! agentctl: run specialised AI agents defined in Markdown files.
//!
//! This umbrella crate re-exports the workspace's library crates so an embedding program needs a
//! single dependency. The `agentctl` binary is built from this package too.

pub use agentctl_config as config;
pub use agentctl_core as core;
pub use agentctl_definitions as definitions;
