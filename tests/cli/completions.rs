//! `agentctl completions SHELL`: a script per shell, and a reader that stops early (`| head`)
//! ends the command quietly instead of a panic.

use super::support::{TestProject, text};

#[test]
fn completions_print_a_script_and_survive_a_closed_pipe() {
    let project = TestProject::new();
    let bash = project.output(&["completions", "bash"]);
    assert!(bash.status.success());
    assert!(text(&bash.stdout).contains("_agentctl()"));
    for shell in ["bash", "zsh", "fish"] {
        let mut command = project.command(&["completions", shell]);
        command
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        let mut child = command.spawn().unwrap();
        // Closed before the script is written: the write fails with a broken pipe.
        drop(child.stdout.take());
        let output = child.wait_with_output().unwrap();
        let stderr = text(&output.stderr);
        assert!(output.status.success(), "{shell}: {stderr}");
        assert!(!stderr.contains("panicked"), "{shell}: {stderr}");
    }
}
