//! End-to-end tests of the `agentctl` binary (modules in `tests/cli/`).

mod cli {
    mod agents;
}
