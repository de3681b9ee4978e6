//! The `agentctl` command line; all logic lives in `agentctl-cli`.

fn main() -> std::process::ExitCode {
    agentctl_cli::main()
}
