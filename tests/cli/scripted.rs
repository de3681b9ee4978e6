//! The `scripted:` provider itself (a user feature: the examples run offline on it, the
//! README's first command among them). Every other end-to-end test serves its cassettes on
//! the wire instead (`TestProject::served_example`, `serve_cassettes`).

use super::support::{TestProject, text};

#[test]
fn scripted_the_readme_command_runs_the_reviewer_offline() {
    let project = TestProject::example();
    let output = project.output(&[
        "run",
        "code-reviewer",
        "-p",
        "Review src/stats.py",
        "--model",
        "scripted:.agentctl/cassettes/code-reviewer.yaml",
    ]);
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert!(
        output.status.success(),
        "stdout:\n{stdout}\nstderr:\n{stderr}"
    );
    assert!(
        stderr.contains("read_file {\"path\":\"src/stats.py\"}"),
        "{stderr}"
    );
    assert!(
        stdout.contains("\"verdict\": \"request-changes\""),
        "{stdout}"
    );
}

#[test]
fn scripted_a_request_its_cassette_does_not_expect_is_a_one_line_error_naming_the_turn() {
    let project = TestProject::example();
    let output = project.output(&[
        "run",
        "code-reviewer",
        "-p",
        "Say hello",
        "--model",
        "scripted:.agentctl/cassettes/code-reviewer.yaml",
    ]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = text(&output.stderr);
    let errors: Vec<&str> = stderr
        .lines()
        .filter(|line| line.starts_with("error:"))
        .collect();
    assert_eq!(errors.len(), 1, "{stderr}");
    assert!(
        errors[0].contains("code-reviewer.yaml: turn 1 of ")
            && errors[0].contains("expected the last user message to contain"),
        "{stderr}"
    );
}
