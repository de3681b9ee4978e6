//! The sandbox's network bridge as a program of its own, for this crate's integration tests
//! (which cannot run the `agentctl` binary). It is what `agentctl` itself becomes when
//! [`agentctl_sandbox::run_helper_if_requested`] sees the bridge flag.

use std::io::Write as _;

fn main() -> std::process::ExitCode {
    agentctl_sandbox::run_helper_if_requested();
    let _ = writeln!(
        std::io::stderr(),
        "agentctl-sandbox-helper: run by the sandbox only, as its network bridge"
    );
    std::process::ExitCode::from(2)
}
