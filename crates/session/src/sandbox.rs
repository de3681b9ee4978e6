//! The sandbox as a front end reports it, and the process set-up every front end does first.

pub use agentctl_sandbox::{SandboxStatus, run_helper_if_requested, set_non_dumpable};
