//! Handoffs end to end on `examples/handoff-chain` (seed 002, P2 scenario 2): debug-analyzer
//! → code-fixer (payload `{file, line}` checked) → code-reviewer, with `when` conditions
//! reading the session state the agents set; `sessions show` shows the chain.

use super::support::{TestProject, text};

#[test]
fn the_example_chain_runs_three_agents_and_sessions_show_the_chain() {
    let project = TestProject::served_example("handoff-chain");
    let output = project.output(&[
        "run",
        "debug-analyzer",
        "-p",
        "Fix this bug: the dashboard crashes after login",
    ]);
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains(
            "🔄 Handoff: debug-analyzer → code-fixer (user.profile is null for phone sign-ups)"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains("🔄 Handoff: code-fixer → code-reviewer (fix applied)"),
        "{stderr}"
    );
    assert!(text(&output.stdout).contains("✓ Changes approved"));
    // The fix is in the file.
    let source = std::fs::read_to_string(project.root.join("src/auth.ts")).unwrap();
    assert!(source.contains("if (!user.profile) {"), "{source}");

    let sessions = project.json(&["sessions", "list", "--format", "json"]);
    let session = sessions[0]["sessionId"].as_str().unwrap();
    let shown = project.json(&["sessions", "show", session, "--all", "--format", "json"]);
    let runs: Vec<(String, serde_json::Value)> = shown["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|run| {
            (
                run["agent"].as_str().unwrap().to_owned(),
                run["parentRunId"].clone(),
            )
        })
        .collect();
    assert_eq!(
        runs[0],
        ("debug-analyzer".to_owned(), serde_json::Value::Null)
    );
    assert_eq!(runs[1].0, "code-fixer");
    assert_eq!(runs[2].0, "code-reviewer");
    assert!(runs[1].1.is_number() && runs[2].1.is_number());
    assert_eq!(shown["state"]["fix"]["value"]["applied"], true);
    assert_eq!(shown["state"]["analysis"]["value"]["line"], 44);
}

#[test]
fn json_output_lists_the_agents_a_chain_went_through() {
    let project = TestProject::served_example("handoff-chain");
    let result = project.json(&[
        "run",
        "debug-analyzer",
        "-p",
        "Fix this bug: the dashboard crashes after login",
        "--format",
        "json",
    ]);
    assert_eq!(
        result["agents"],
        serde_json::json!(["debug-analyzer", "code-fixer", "code-reviewer"])
    );
    assert!(
        result["text"]
            .as_str()
            .unwrap()
            .starts_with("✓ Changes approved")
    );
    assert_eq!(result["agent"], "code-reviewer");
}

/// Started from another folder with `--project-dir` (as MCP clients start `mcp serve`), the
/// agents a handoff passes control to work in the project too: the fixer edits
/// `src/auth.ts` of the project, not of the folder agentctl was started in.
#[test]
fn the_chain_works_in_the_project_from_another_folder() {
    let project = TestProject::served_example("handoff-chain");
    let elsewhere = tempfile::tempdir().unwrap();
    let output = project
        .command(&[
            "run",
            "debug-analyzer",
            "-p",
            "Fix this bug: the dashboard crashes after login",
        ])
        .current_dir(elsewhere.path())
        .output()
        .unwrap();
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(!stderr.contains("No such file"), "{stderr}");
    let source = std::fs::read_to_string(project.root.join("src/auth.ts")).unwrap();
    assert!(source.contains("if (!user.profile) {"), "{source}");
    assert!(text(&output.stdout).contains("✓ Changes approved"));
}
