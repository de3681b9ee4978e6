//! Claude Code subagent fields (issue 34 item 6): each one agentctl honours, end to end on the
//! strict OpenAI fake.

use super::support::{ServedModel, TestProject, text};

fn claude_agent(name: &str, extra: &str) -> String {
    format!(
        "---\nname: {name}\ndescription: the {name}\nmodel: openai:gpt-4o-mini\n{extra}---\nYou are {name}.\n"
    )
}

/// The content of the tool message answering `call_id` in the last request that has one.
fn tool_result(model: &ServedModel, call_id: &str) -> String {
    model
        .server
        .requests()
        .iter()
        .rev()
        .flat_map(|request| {
            request.body["messages"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .find(|message| message["role"] == "tool" && message["tool_call_id"] == call_id)
        .and_then(|message| message["content"].as_str().map(str::to_owned))
        .unwrap_or_else(|| panic!("no result of {call_id}"))
}

#[test]
fn permission_mode_plan_refuses_a_write_even_with_yes() {
    let project = TestProject::new();
    project.write(
        ".claude/agents/planner.md",
        &claude_agent(
            "planner",
            "tools: Read, Write, Bash\npermissionMode: plan\n",
        ),
    );
    let model = ServedModel::openai();
    model.answer_call("w1", "write_file", r#"{"path":"plan.txt","content":"x"}"#);
    model.answer_call("b1", "bash", r#"{"command":"touch made.txt"}"#);
    model.answer_call("r1", "read_file", r#"{"path":".claude/agents/planner.md"}"#);
    model.answer_text("I only planned.");
    let output = model.run(&project, &["run", "planner", "-p", "plan it", "--yes"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    for id in ["w1", "b1"] {
        let refused = tool_result(&model, id);
        assert!(
            refused.contains("permission mode is `plan`"),
            "{id}: {refused}"
        );
    }
    assert!(tool_result(&model, "r1").contains("You are planner."));
    assert!(!project.root.join("plan.txt").exists());
    assert!(!project.root.join("made.txt").exists());
    model.server.assert_no_violations();
}

#[test]
fn accept_edits_writes_unasked_but_asks_for_the_rest() {
    let project = TestProject::new();
    project.write(
        ".claude/agents/editor.md",
        &claude_agent(
            "editor",
            "tools: Write, Bash\npermissionMode: acceptEdits\n",
        ),
    );
    let model = ServedModel::openai();
    model.answer_call("w1", "write_file", r#"{"path":"notes.txt","content":"x"}"#);
    model.answer_call(
        "w2",
        "write_file",
        r#"{"path":".git/config","content":"x"}"#,
    );
    model.answer_call("b1", "bash", r#"{"command":"touch made.txt"}"#);
    model.answer_text("Edited.");
    let output = model.run(&project, &["run", "editor", "-p", "edit"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(
        std::fs::read_to_string(project.root.join("notes.txt")).unwrap(),
        "x"
    );
    for id in ["w2", "b1"] {
        let refused = tool_result(&model, id);
        assert!(refused.contains("nobody can approve"), "{id}: {refused}");
    }
    assert!(!project.root.join(".git/config").exists());
    assert!(!project.root.join("made.txt").exists());
}

/// `bypassPermissions` runs an agent's calls unasked only where the user's own settings allow
/// it; a project's settings cannot grant it, trusted or not.
#[test]
fn bypass_permissions_needs_the_users_own_settings() {
    let project = TestProject::new();
    project.write(
        ".claude/agents/runner.md",
        &claude_agent("runner", "tools: Bash\npermissionMode: bypassPermissions\n"),
    );
    let run = |model: &ServedModel| {
        model.answer_call("b1", "bash", r#"{"command":"touch made.txt"}"#);
        model.answer_text("Ran.");
        let output = model.run(&project, &["run", "runner", "--new", "-p", "run"]);
        assert!(output.status.success(), "{}", text(&output.stderr));
        tool_result(model, "b1")
    };
    // The project says so, and is trusted: still ignored, and `config show` says why.
    project.write(
        ".agentctl/settings.json",
        r#"{"approvals": {"allowBypassPermissions": true}}"#,
    );
    project.trust();
    let refused = run(&ServedModel::openai());
    assert!(refused.contains("nobody can approve"), "{refused}");
    assert!(!project.root.join("made.txt").exists());
    let show = project.output(&["config", "show"]);
    assert!(
        text(&show.stderr).contains(
            "`approvals.allowBypassPermissions` is ignored: only your own settings (the global \
             file) may set it"
        ),
        "{}",
        text(&show.stderr)
    );
    // The user's own settings allow it: the call runs unasked.
    project.write(".agentctl/settings.json", "{}");
    std::fs::create_dir_all(project.home.join(".agentctl")).unwrap();
    std::fs::write(
        project.home.join(".agentctl/settings.json"),
        r#"{"approvals": {"allowBypassPermissions": true}}"#,
    )
    .unwrap();
    let ran = run(&ServedModel::openai());
    assert!(!ran.contains("nobody can approve"), "{ran}");
    assert!(project.root.join("made.txt").exists());
}

#[test]
fn a_plan_parent_cannot_start_an_accept_edits_child_that_writes() {
    let project = TestProject::new();
    project
        .write(
            ".agentctl/agents/boss.md",
            "---\nname: boss\ntitle: Boss\ndescription: the boss\nmodel: openai:gpt-4o-mini\n\
             permissionMode: plan\ntools:\n  allow: [task]\n---\nYou are boss.\n",
        )
        .write(
            ".claude/agents/editor.md",
            &claude_agent("editor", "tools: Write\npermissionMode: acceptEdits\n"),
        );
    let model = ServedModel::openai();
    model.answer_call("t1", "task", r#"{"goal":"write it","agent":"editor"}"#);
    model
        .server
        .push_json(agentctl_test_support::openai::tool_calls_response(&[(
            "w1",
            "write_file",
            r#"{"path":"escaped.txt","content":"x"}"#,
        )]));
    model
        .server
        .push_json(agentctl_test_support::openai::text_response("Could not."));
    model.answer_text("The editor could not write.");
    let output = model.run(&project, &["run", "boss", "-p", "delegate", "--yes"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let refused = tool_result(&model, "w1");
    assert!(refused.contains("permission mode is `plan`"), "{refused}");
    assert!(!project.root.join("escaped.txt").exists());
}

/// The text of the last user message of a request.
fn last_user_text(body: &serde_json::Value) -> String {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|message| message["role"] == "user")
        .and_then(|message| message["content"].as_str())
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn initial_prompt_opens_a_front_agents_run_but_not_a_sub_agents() {
    let project = TestProject::new();
    project
        .write(
            ".claude/agents/helper.md",
            &claude_agent(
                "helper",
                "tools: Read, Task\ninitialPrompt: Read the changelog first.\n",
            ),
        )
        .write(
            ".claude/agents/child.md",
            &claude_agent("child", "tools: Read\ninitialPrompt: CHILD INITIAL\n"),
        );
    let model = ServedModel::openai();
    model.answer_call("t1", "task", r#"{"goal":"look around","agent":"child"}"#);
    model
        .server
        .push_json(agentctl_test_support::openai::text_response("Looked."));
    model.answer_text("Done.");
    let output = model.run(&project, &["run", "helper", "-p", "Then summarise it."]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let requests = model.server.requests();
    assert_eq!(
        last_user_text(&requests[0].body),
        "Read the changelog first.\n\nThen summarise it."
    );
    let child = last_user_text(&requests[1].body);
    assert!(child.contains("look around"), "{child}");
    assert!(!child.contains("CHILD INITIAL"), "{child}");
}

fn git(dir: &std::path::Path, args: &[&str]) -> String {
    let output = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "git {args:?}: {}",
        text(&output.stderr)
    );
    text(&output.stdout)
}

/// A project with a `boss` that delegates and an `isolated` Claude Code agent working in a
/// worktree of its own.
fn isolated_project(repo: bool) -> TestProject {
    let project = TestProject::new();
    project
        .write(
            ".agentctl/agents/boss.md",
            "---\nname: boss\ntitle: Boss\ndescription: the boss\nmodel: openai:gpt-4o-mini\n\
             tools:\n  allow: [task]\n---\nYou are boss.\n",
        )
        .write(
            ".claude/agents/isolated.md",
            &claude_agent("isolated", "tools: Write\nisolation: worktree\n"),
        )
        .write("README.txt", "original\n");
    if repo {
        git(&project.root, &["init", "--quiet"]);
        git(&project.root, &["add", "-A"]);
        git(&project.root, &["commit", "--quiet", "-m", "start"]);
    }
    project
}

fn delegate_a_write(project: &TestProject, model: &ServedModel, path: &str) -> String {
    model.answer_call("t1", "task", r#"{"goal":"write it","agent":"isolated"}"#);
    model
        .server
        .push_json(agentctl_test_support::openai::tool_calls_response(&[(
            "w1",
            "write_file",
            &format!(r#"{{"path":"{path}","content":"from the child\n"}}"#),
        )]));
    model
        .server
        .push_json(agentctl_test_support::openai::text_response("Wrote it."));
    model.answer_text("Delegated.");
    let output = model.run(project, &["run", "boss", "-p", "delegate", "--yes"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    tool_result(model, "t1")
}

#[test]
fn isolation_worktree_returns_a_branch_and_leaves_the_parents_tree_untouched() {
    let project = isolated_project(true);
    let model = ServedModel::openai();
    let result = delegate_a_write(&project, &model, "feature.txt");
    assert!(result.contains("Wrote it."), "{result}");
    let branch = result
        .split('`')
        .find(|part| part.starts_with("agentctl/isolated-"))
        .unwrap_or_else(|| panic!("no branch in {result}"))
        .to_owned();
    // The parent's tree: no new file, tracked files unchanged, no worktree left.
    assert!(!project.root.join("feature.txt").exists());
    git(&project.root, &["diff", "HEAD", "--quiet"]);
    assert_eq!(git(&project.root, &["worktree", "list"]).lines().count(), 1);
    // The branch has the child's change, committed on top of the parent's HEAD.
    assert_eq!(
        git(&project.root, &["show", &format!("{branch}:feature.txt")]),
        "from the child\n"
    );
    assert_eq!(
        git(&project.root, &["rev-parse", &format!("{branch}~1")]),
        git(&project.root, &["rev-parse", "HEAD"])
    );
}

#[test]
fn isolation_worktree_without_changes_says_so_and_outside_git_is_a_clear_error() {
    let project = isolated_project(true);
    let model = ServedModel::openai();
    model.answer_call("t1", "task", r#"{"goal":"look","agent":"isolated"}"#);
    model
        .server
        .push_json(agentctl_test_support::openai::text_response(
            "Nothing to do.",
        ));
    model.answer_text("Fine.");
    let output = model.run(&project, &["run", "boss", "-p", "delegate"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let result = tool_result(&model, "t1");
    assert!(result.contains("[worktree] no changes"), "{result}");
    assert!(git(&project.root, &["branch", "--list", "agentctl/*"]).is_empty());

    let outside = isolated_project(false);
    let model = ServedModel::openai();
    model.answer_call("t1", "task", r#"{"goal":"look","agent":"isolated"}"#);
    model.answer_text("It failed.");
    let output = model.run(&outside, &["run", "boss", "-p", "delegate"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let result = tool_result(&model, "t1");
    assert!(
        result.contains("`isolation: worktree` needs a git repository"),
        "{result}"
    );
}

#[test]
fn background_task_returns_at_once_and_its_result_arrives_before_the_turn_ends() {
    let project = TestProject::new();
    project
        .write(
            ".agentctl/agents/boss.md",
            "---\nname: boss\ntitle: Boss\ndescription: the boss\nmodel: openai:gpt-4o-mini\n\
             tools:\n  allow: [task]\n---\nYou are boss.\n",
        )
        .write(
            ".claude/agents/bg.md",
            &claude_agent("bg", "tools: Read\nbackground: true\n"),
        );
    let model = ServedModel::routed(|request| {
        let all = serde_json::to_string(&request.messages).unwrap();
        let system = request.system.clone().unwrap_or_default();
        if system.contains("You are bg.") {
            agentctl_test_support::text("child result 42")
        } else if all.contains("The background task t1") {
            agentctl_test_support::text("All done: 42.")
        } else if all.contains("started in the background") {
            agentctl_test_support::text("Waiting for the helper.")
        } else {
            agentctl_test_support::calls(&[(
                "t1",
                "task",
                serde_json::json!({"goal": "compute", "agent": "bg"}),
            )])
        }
    });
    let output = model.run(&project, &["run", "boss", "-p", "delegate"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(
        text(&output.stdout).contains("All done: 42."),
        "{}",
        text(&output.stdout)
    );
    let requests = model.server.requests();
    let boss: Vec<String> = requests
        .iter()
        .filter(|request| request.body.to_string().contains("You are boss."))
        .map(|request| request.body.to_string())
        .collect();
    assert_eq!(boss.len(), 3, "{boss:#?}");
    // The task answered at once, without the child's result …
    assert!(
        boss[1].contains("started in the background, id t1"),
        "{}",
        boss[1]
    );
    assert!(!boss[1].contains("child result 42"), "{}", boss[1]);
    // … which came as a message before the boss's turn ended.
    assert!(
        boss[2].contains("The background task t1 (`bg`) finished:\\nchild result 42"),
        "{}",
        boss[2]
    );
}
