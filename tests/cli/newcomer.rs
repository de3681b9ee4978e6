//! A newcomer's first hour (issue 18): what a script reads from agentctl is what the README
//! says it is.

use super::support::{TestProject, text};

#[test]
fn text_stdout_is_the_final_answer_only() {
    let example = TestProject::served_example("review-fix");
    let output = example.agentctl(&["run", "code-reviewer", "-p", "Review src/stats.py"]);
    // The whole of stdout is the reviewer's JSON answer: `| python3 -m json.tool` works.
    let answer: serde_json::Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|error| panic!("{error}: {}", text(&output.stdout)));
    assert_eq!(answer["verdict"], "request-changes");
    // The model's in-between sentences are on stderr, with the tool lines.
    let stderr = text(&output.stderr);
    let between = stderr
        .find("I'll read src/stats.py in full first.")
        .unwrap();
    let tool = stderr.find("⏺ read_file").unwrap();
    assert!(between < tool, "{stderr}");
}

#[test]
fn the_approval_hint_passed_as_written_lets_the_run_go_on() {
    let example = TestProject::served_example("review-fix");
    example.agentctl(&["run", "code-reviewer", "-p", "Review src/stats.py"]);
    let fix = |approve: Option<&str>| {
        let mut args = vec![
            "run",
            "bug-fixer",
            "--continue",
            "--model",
            "scripted:.agentctl/cassettes/bug-fixer.yaml",
            "-p",
            "Fix what the review found",
        ];
        if let Some(levels) = approve {
            args.extend(["--approve", levels]);
        }
        example.output(&args)
    };
    let refused = fix(None);
    assert!(!refused.status.success());
    // The refusal reached the model, whose cassette wants the edit's result: the run ends
    // there, on the one request no turn matches.
    let mismatches = example.cassette_server().take_violations();
    assert_eq!(mismatches.len(), 1, "{mismatches:#?}");
    assert!(
        mismatches[0].message.contains("needs approval"),
        "{mismatches:#?}"
    );
    let stderr = text(&refused.stderr);
    let levels = stderr
        .split("pass --approve ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("no hint in: {stderr}"))
        .to_owned();
    // The hint names the levels approved now plus the one the call needed: the reads the
    // fixer also does stay approved.
    assert_eq!(levels, "safe,medium");
    let fixed = fix(Some(&levels));
    assert!(fixed.status.success(), "{}", text(&fixed.stderr));
    let stats = std::fs::read_to_string(example.root.join("src/stats.py")).unwrap();
    assert!(
        stats.contains("return sum(values) / len(values)"),
        "{stats}"
    );
}

#[test]
fn the_example_has_no_failing_mcp_server_and_the_readme_mcp_commands_work() {
    let example = TestProject::served_example("review-fix");
    let list = example.agentctl(&["mcp", "list"]);
    assert!(
        !text(&list.stdout).contains("error"),
        "{}",
        text(&list.stdout)
    );
    assert!(
        !text(&list.stderr).contains("warning"),
        "{}",
        text(&list.stderr)
    );

    let Some(server) = super::support::everything_server() else {
        return;
    };
    // The README's settings block, with the locally installed server in place of `npx -y`.
    example.write(
        ".agentctl/settings.json",
        &serde_json::json!({
            "mcpServers": {"everything": {"command": server, "args": []}}
        })
        .to_string(),
    );
    let call = example.agentctl(&["mcp", "call", "everything", "echo", r#"{"message":"hi"}"#]);
    assert!(text(&call.stdout).contains("hi"), "{}", text(&call.stdout));
}

#[test]
fn broken_agents_are_listed_and_validate_without_a_name_checks_them_all() {
    let project = TestProject::new();
    project
        .write(
            ".agentctl/agents/broken.md",
            "---\nname: broken\nmaxTurns: many\n---\nPrompt\n",
        )
        .write(
            ".agentctl/agents/nomodel.md",
            "---\nname: nomodel\ntitle: No Model\ndescription: d\n---\nPrompt\n",
        );
    let list = project.output(&["agents", "list"]);
    let listing = text(&list.stdout);
    assert!(listing.contains("✗ broken"), "{listing}");
    assert!(
        listing.contains(".agentctl/agents/broken.md:3:11: field `maxTurns`"),
        "{listing}"
    );
    assert!(listing.contains("1 agent(s), 1 broken"), "{listing}");
    for args in [
        &["run", "broken", "-p", "hi"][..],
        &["agents", "show", "broken"][..],
    ] {
        let output = project.output(args);
        assert_eq!(output.status.code(), Some(1), "{args:?}");
        assert!(
            text(&output.stderr).contains("broken.md:3:11: field `maxTurns`"),
            "{args:?}: {}",
            text(&output.stderr)
        );
    }
    let validate = project.output(&["agents", "validate"]);
    assert_eq!(validate.status.code(), Some(1));
    let report = text(&validate.stdout);
    assert!(report.contains("Summary: 2 agent file(s)"), "{report}");
    // What `run nomodel` would fail with is said by validation.
    assert!(report.contains("no model resolvable"), "{report}");
    let run = project.output(&["run", "nomodel", "-p", "hi"]);
    assert!(
        text(&run.stderr).contains("has no model"),
        "{}",
        text(&run.stderr)
    );
}
