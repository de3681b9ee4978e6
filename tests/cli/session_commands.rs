//! Seed 000's session commands (issue 36 item 2), as the seed writes them: `agents run NAME
//! PROMPT --context MODE`, `agents context NAME [--mode MODE]`, `agents context --all`, and the
//! same inside an interactive session as `/agents …`, with `/help`, `/clear` and `/exit`; an
//! unknown `/x` is an error, never a prompt. Models run on the strict OpenAI fake.

use super::support::{ServedModel, Terminal, TestProject, has_script, text};

/// Seed 000's example 1 agents, as written, in `.gemini/agents/`; the model comes from the
/// settings (the seed's files name none).
fn seed_project() -> TestProject {
    let project = TestProject::new();
    project
        .write(
            ".gemini/agents/code-reviewer.md",
            "---\nkind: agent\nname: code-reviewer\ntitle: Code Reviewer\ncontextMode: isolated  # 独立审查，不需要历史\ntools:\n  allow: [read_file, grep]\n---\nAnalyze code quality and identify issues.\n",
        )
        .write(
            ".gemini/agents/bug-fixer.md",
            "---\nkind: agent\nname: bug-fixer\ntitle: Bug Fixer\ncontextMode: shared  # 共享上下文，能看到 code-reviewer 的结果\ntools:\n  allow: [read_file, edit_file]\n---\nFix bugs based on code review feedback.\nYou can see the conversation history to understand what needs to be fixed.\n",
        )
        .write(
            ".agentctl/settings.json",
            r#"{"agents": {"defaultModel": "openai:gpt-4o-mini"}}"#,
        );
    project
}

/// The text of every message the model was sent in request `index`.
fn sent(model: &ServedModel, index: usize) -> String {
    serde_json::to_string(&model.server.requests()[index].body["messages"]).unwrap()
}

#[test]
fn agents_run_takes_the_prompt_after_the_name_as_the_seed_writes_it() {
    let project = seed_project();
    let model = ServedModel::openai();
    model.answer_text("修复完成。");
    // Seed 000 §6: `/agents run fix-bugs 修复代码 --context shared`, on the command line.
    let mut command = project.command(&[
        "agents",
        "run",
        "bug-fixer",
        "修复代码",
        "--context",
        "shared",
    ]);
    model.point(&mut command);
    let output = command.output().unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(text(&output.stdout).contains("修复完成。"));
    assert!(
        text(&output.stderr).contains("context: shared (--context flag)"),
        "{}",
        text(&output.stderr)
    );
    assert!(sent(&model, 0).contains("修复代码"));
    // Several words are one prompt; `-p` keeps working.
    model.answer_text("Reviewed.");
    let mut command = project.command(&["run", "code-reviewer", "review", "src/a.py"]);
    model.point(&mut command);
    assert!(command.output().unwrap().status.success());
    assert!(sent(&model, 1).contains("review src/a.py"));
    model.server.assert_no_violations();
    // Both at once is a usage error, and so is a mode the seed does not know.
    let both = project.output(&["agents", "run", "bug-fixer", "修复代码", "-p", "x"]);
    assert_eq!(both.status.code(), Some(2));
    assert!(text(&both.stderr).contains("cannot be used with '--prompt"));
    let mode = project.output(&["agents", "run", "bug-fixer", "x", "--context", "both"]);
    assert_eq!(mode.status.code(), Some(2));
    assert!(text(&mode.stderr).contains("[possible values: isolated, shared, run]"));
}

/// The transcript with the session's id shown as `[SESSION]`.
fn transcript(project: &TestProject, args: &[&str]) -> String {
    let transcript = project.transcript(args);
    match transcript
        .lines()
        .find_map(|line| line.strip_prefix("Session: "))
        .filter(|id| !id.starts_with('('))
    {
        Some(id) => transcript.replace(id, "[SESSION]"),
        None => transcript,
    }
}

#[test]
fn agents_context_shows_and_switches_modes_with_the_seeds_lines() {
    let project = seed_project();
    let mut screens = String::new();
    // Seed 000 example 3, in order.
    for args in [
        &["agents", "context", "bug-fixer"][..],
        &["agents", "context", "bug-fixer", "--mode", "isolated"],
        &["agents", "context", "bug-fixer"],
        &["agents", "context", "--all"],
        &["agents", "context", "nobody"],
        &["agents", "context"],
    ] {
        screens.push_str(&format!("$ agentctl {}\n", args.join(" ")));
        screens.push_str(&transcript(&project, args));
        screens.push('\n');
    }
    insta::assert_snapshot!(screens);
}

#[test]
fn the_interactive_session_runs_slash_commands_and_never_sends_them_to_the_model() {
    if !has_script() {
        return;
    }
    let project = seed_project();
    let model = ServedModel::openai();
    model.answer_text("发现3个问题。");
    model.answer_text("我看到 code-reviewer 发现了3个问题。");
    model.answer_text("Still here.");
    let mut command = project.terminal_command(&["chat"]);
    model.point(&mut command);
    let mut terminal = Terminal::start_command(command);
    terminal.answer("/help` for commands.", "");
    terminal.answer("> ", "/agents context bug-fixer\r");
    terminal.answer("Linked to: Main Session", "");
    terminal.answer("> ", "/agents list\r");
    terminal.answer("Bug Fixer", "");
    terminal.answer("> ", "/agents run code-reviewer 分析 src/utils.py\r");
    terminal.answer("发现3个问题。", "");
    terminal.answer(
        "> ",
        "/agents run bug-fixer 修复上述问题 --context shared\r",
    );
    terminal.answer("我看到", "");
    terminal.answer("> ", "/agents context bug-fixer --mode isolated\r");
    terminal.answer("✓ Context mode changed to isolated for this session", "");
    terminal.answer("> ", "/agents context bug-fixer\r");
    terminal.answer("Original Mode: shared", "");
    terminal.answer("> ", "/agents context --all\r");
    terminal.answer("code-reviewer", "");
    terminal.answer("> ", "/compress everything\r");
    terminal.answer("unknown command `/compress`", "");
    terminal.answer("> ", "/agents run bug-fixer\r");
    terminal.answer("PROMPT", "");
    terminal.answer("> ", "/agents run nobody hello\r");
    terminal.answer("nobody", "");
    terminal.answer("> ", "/help\r");
    terminal.answer("/agents run NAME PROMPT", "");
    terminal.answer("> ", "/clear\r");
    terminal.answer("> ", "What did the fixer say?\r");
    terminal.answer("Still here.", "");
    terminal.answer("> ", "/exit\r");
    let (status, screen) = terminal.finish();
    assert!(status.success(), "{screen}");
    assert!(
        screen.contains("Context Mode: isolated (session override)"),
        "{screen}"
    );
    assert!(
        screen.contains(
            "error: unknown command `/compress`: the commands are /agents run, \
             /agents context, /agents list, /help, /clear, /exit"
        ),
        "{screen}"
    );
    // Three prompts reached the model, and no command did.
    let requests = model.server.requests();
    assert_eq!(requests.len(), 3, "{screen}");
    assert!(sent(&model, 0).contains("分析 src/utils.py"));
    // The shared fixer sees the main conversation, not the isolated reviewer's workspace.
    let fixer = sent(&model, 1);
    assert!(fixer.contains("修复上述问题"), "{fixer}");
    // `/clear` clears the screen only: the main conversation remembers the fixer's turn.
    let last = sent(&model, 2);
    assert!(last.contains("What did the fixer say?"), "{last}");
    assert!(last.contains("修复上述问题"), "{last}");
    for request in &requests {
        let body = request.body["messages"].to_string();
        assert!(
            !body.contains("/agents") && !body.contains("/compress"),
            "{body}"
        );
    }
    model.server.assert_no_violations();
}
