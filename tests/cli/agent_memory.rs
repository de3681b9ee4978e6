//! Memory folders (issue 34 item 6: Claude Code's subagent `memory` field), end to end on the
//! strict OpenAI fake with real folders: a Claude agent with `memory: project` reads the first
//! 200 lines of its `MEMORY.md` in its system prompt, writes a new note into its folder without
//! a question, and is refused writing outside it (the project, another agent's folder, a
//! symlink in its folder leading out); a `task` child gets its own folder and prompt while the
//! parent gets no grant on it; agent names do not climb out; an untrusted project's
//! `memory: user` agent does not read the user's memory; `memory folders` lists them.

use super::support::request::{offered_tools, system_prompt, tool_results};
use super::support::{ServedModel, TestProject, check_shape, text};
use agentctl_test_support::openai;
use serde_json::json;

fn claude_agent(name: &str, memory: &str) -> String {
    format!(
        "---\nname: {name}\ndescription: the {name}\ntools: Read, Grep\nmemory: {memory}\n\
         model: openai:gpt-4o-mini\n---\nYou are {name}. Update your agent memory as you learn.\n"
    )
}

fn project() -> TestProject {
    let project = TestProject::new();
    project.write(
        ".agentctl/settings.json",
        r#"{"agents": {"defaultModel": "openai:gpt-4o-mini"}}"#,
    );
    project
}

fn run(project: &TestProject, model: &ServedModel, args: &[&str]) -> std::process::Output {
    let mut command = project.command(args);
    model.point(&mut command);
    command.output().unwrap()
}

fn write_call(path: &str) -> String {
    json!({"path": path, "content": "Prefer small functions.\n"}).to_string()
}

#[test]
fn a_claude_agent_with_project_memory_reads_its_notes_and_keeps_new_ones_there_only() {
    let project = project();
    let notes: String = (1..=250).map(|n| format!("- lesson {n}\n")).collect();
    project
        .write(
            ".claude/agents/reviewer.md",
            &claude_agent("reviewer", "project"),
        )
        .write(".claude/agent-memory/reviewer/MEMORY.md", &notes)
        .write(".claude/agent-memory/other/MEMORY.md", "other's notes\n")
        .write(".claude/settings.json", "{}\n");
    let folder = project
        .root
        .join(".claude/agent-memory/reviewer")
        .canonicalize()
        .unwrap();
    std::os::unix::fs::symlink(
        project.root.join(".claude/settings.json"),
        folder.join("settings.md"),
    )
    .unwrap();
    let at = |name: &str| format!("{}/{name}", folder.display());
    let model = ServedModel::openai();
    model.answer_call("c1", "write_file", &write_call(&at("style.md")));
    model.answer_call("c2", "write_file", &write_call("NOTES.md"));
    model.answer_call("c3", "write_file", &write_call(&at("../other/MEMORY.md")));
    model.answer_call("c4", "write_file", &write_call(&at("settings.md")));
    model.answer_call(
        "c5",
        "edit_file",
        &json!({"path": ".claude/agent-memory/reviewer/MEMORY.md",
                "old_string": "- lesson 1\n", "new_string": "- lesson one\n"})
        .to_string(),
    );
    model.answer_text("Noted.");
    let output = run(&project, &model, &["run", "reviewer", "-p", "Review src/"]);
    assert!(output.status.success(), "{}", text(&output.stderr));

    let requests = model.server.requests();
    assert_eq!(requests.len(), 6);
    let prompt = system_prompt(&requests[0].body);
    assert!(prompt.starts_with("You are reviewer."), "{prompt}");
    assert!(prompt.contains("# Agent memory"), "{prompt}");
    assert!(prompt.contains(&folder.display().to_string()), "{prompt}");
    assert!(prompt.contains("- lesson 200\n"), "{prompt}");
    assert!(!prompt.contains("- lesson 201"), "{prompt}");
    assert!(
        prompt.contains(&format!("read_file at `{}`", at("MEMORY.md"))),
        "{prompt}"
    );
    assert!(!prompt.contains("other's notes"));
    // `tools: Read, Grep` and the memory brings Write and Edit, as in Claude Code.
    let offered = offered_tools(&requests[0].body);
    for tool in ["read_file", "grep", "write_file", "edit_file"] {
        assert!(offered.contains(&tool.to_owned()), "{tool}: {offered:?}");
    }
    assert!(!offered.contains(&"bash".to_owned()), "{offered:?}");

    let results = tool_results(&requests[5].body);
    assert!(results[0].starts_with("created"), "{}", results[0]);
    assert_eq!(
        std::fs::read_to_string(folder.join("style.md")).unwrap(),
        "Prefer small functions.\n"
    );
    // Outside the folder the write is an ordinary one: asked, and nobody answers `run -p`.
    assert!(results[1].contains("approval"), "{}", results[1]);
    assert!(!project.root.join("NOTES.md").exists());
    assert!(!results[2].starts_with("created"), "{}", results[2]);
    assert_eq!(
        std::fs::read_to_string(project.root.join(".claude/agent-memory/other/MEMORY.md")).unwrap(),
        "other's notes\n"
    );
    assert!(!results[3].starts_with("overwrote"), "{}", results[3]);
    assert_eq!(
        std::fs::read_to_string(project.root.join(".claude/settings.json")).unwrap(),
        "{}\n"
    );
    assert!(
        results[4].starts_with("replaced 1 occurrence"),
        "{}",
        results[4]
    );
    assert!(
        std::fs::read_to_string(folder.join("MEMORY.md"))
            .unwrap()
            .starts_with("- lesson one\n- lesson 2\n")
    );
    model.server.assert_no_violations();
}

#[test]
fn a_task_child_gets_its_own_folder_and_prompt_and_the_parent_no_grant() {
    let project = project();
    project
        .write(".claude/agents/keeper.md", &claude_agent("keeper", "project"))
        .write(".claude/agent-memory/keeper/MEMORY.md", "- the build uses make\n")
        .write(
            ".agentctl/agents/boss.md",
            "---\nname: boss\ndescription: delegates\nmodel: openai:gpt-4o-mini\ntools:\n  allow: [task, write_file]\n---\nYou delegate.\n",
        );
    let folder = project.root.join(".claude/agent-memory/keeper");
    let note = format!("{}/build.md", folder.canonicalize().unwrap().display());
    let model = ServedModel::openai();
    model.answer_call(
        "t1",
        "task",
        r#"{"goal":"learn the build","agent":"keeper"}"#,
    );
    // The child does not stream.
    model.server.push_json(openai::tool_calls_response(&[(
        "k1",
        "write_file",
        &write_call(&note),
    )]));
    model
        .server
        .push_json(openai::text_response("Kept a note."));
    model.answer_call(
        "b1",
        "write_file",
        &write_call(&note.replace("build", "boss")),
    );
    model.answer_text("Done.");
    let output = run(&project, &model, &["run", "boss", "-p", "delegate"]);
    assert!(output.status.success(), "{}", text(&output.stderr));

    let requests = model.server.requests();
    assert_eq!(requests.len(), 5);
    assert!(!system_prompt(&requests[0].body).contains("# Agent memory"));
    let child = system_prompt(&requests[1].body);
    assert!(child.contains("# Agent memory"), "{child}");
    assert!(child.contains("- the build uses make"), "{child}");
    assert!(tool_results(&requests[2].body)[0].starts_with("created"));
    assert!(folder.join("build.md").is_file());
    // The parent writing into the child's folder is outside its project: refused.
    let parent = tool_results(&requests[4].body);
    let last = parent.last().unwrap();
    assert!(
        last.contains("escapes the project root") || last.contains("approval"),
        "{last}"
    );
    assert!(!folder.join("boss.md").exists());
    model.server.assert_no_violations();
}

#[test]
fn user_and_local_folders_and_an_untrusted_projects_user_memory() {
    let project = project();
    project
        .write(".claude/agents/mine.md", &claude_agent("mine", "local"))
        .write(".claude/agents/thief.md", &claude_agent("thief", "user"));
    let user_folder = project.home.join(".claude/agent-memory/thief");
    std::fs::create_dir_all(&user_folder).unwrap();
    std::fs::write(user_folder.join("MEMORY.md"), "my private token is 1234\n").unwrap();

    // Untrusted: the project's `memory: user` agent runs without the user's memory.
    let model = ServedModel::openai();
    model.answer_text("Nothing.");
    let output = run(&project, &model, &["run", "thief", "-p", "recall"]);
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("agent `thief` runs without its user memory folder"),
        "{stderr}"
    );
    assert!(stderr.contains("not trusted"), "{stderr}");
    let prompt = system_prompt(&model.server.requests()[0].body);
    assert!(!prompt.contains("private token"), "{prompt}");
    assert!(!prompt.contains("# Agent memory"), "{prompt}");

    let listing = project.agentctl(&["memory", "folders"]);
    // Columns are as wide as the temporary folder's path: one blank pair between them here.
    let listing: Vec<String> = text(&listing.stdout)
        .replace(&project.root.display().to_string(), "<project>")
        .lines()
        .map(|line| {
            let cells: Vec<&str> = line
                .split("  ")
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .collect();
            cells.join("  ")
        })
        .collect();
    insta::assert_snapshot!(listing.join("\n"));

    // Trusted, it reads it; `local` is git-ignored by a `.gitignore` of its own.
    project.trust();
    let model = ServedModel::openai();
    model.answer_text("Recalled.");
    model.answer_text("Local.");
    let output = run(&project, &model, &["run", "thief", "-p", "recall"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let output = run(&project, &model, &["run", "mine", "-p", "hello"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let requests = model.server.requests();
    assert!(system_prompt(&requests[0].body).contains("private token is 1234"));
    let local = project.root.join(".claude/agent-memory-local");
    assert!(local.join("mine").is_dir());
    assert!(system_prompt(&requests[1].body).contains("kept out of version control"));
    let ignore = std::fs::read_to_string(local.join(".gitignore")).unwrap();
    assert!(ignore.lines().any(|line| line == "*"), "{ignore}");
    let json = project.agentctl(&["memory", "folders", "--format", "json"]);
    let json: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    check_shape("memory-folders", &json);
    assert_eq!(json[1]["agent"], "thief");
    assert_eq!(json[1]["memoryBytes"], 25);
    model.server.assert_no_violations();
}

#[test]
fn agent_names_never_lead_a_memory_folder_out() {
    let project = project();
    // A plugin's agent is namespaced `plugin:agent`: one folder, `plugin-agent`.
    let plugin = project.home.join("market/tools");
    for (path, content) in [
        (
            ".claude-plugin/plugin.json",
            r#"{"name": "tools", "version": "1.0.0", "description": "Tools"}"#.to_owned(),
        ),
        ("agents/reviewer.md", claude_agent("reviewer", "project")),
    ] {
        let path = plugin.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, content).unwrap();
    }
    let added = project.agentctl(&["plugins", "add", &plugin.display().to_string()]);
    assert!(added.status.success(), "{}", text(&added.stderr));
    // A file's own name cannot climb: it is refused before anything runs.
    for (file, name) in [("climb", "../../escaped"), ("slash", "/tmp/escaped")] {
        project.write(
            &format!(".claude/agents/{file}.md"),
            &claude_agent(&format!("\"{name}\""), "project"),
        );
    }
    let model = ServedModel::openai();
    model.answer_text("Hi.");
    let output = run(&project, &model, &["run", "tools:reviewer", "-p", "hello"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let folder = project.root.join(".claude/agent-memory/tools-reviewer");
    assert!(folder.is_dir());
    let prompt = system_prompt(&model.server.requests()[0].body);
    assert!(
        prompt.contains(&folder.canonicalize().unwrap().display().to_string()),
        "{prompt}"
    );
    for name in ["../../escaped", "/tmp/escaped"] {
        let output = run(&project, &model, &["run", name, "-p", "hello"]);
        assert!(!output.status.success());
        assert!(text(&output.stderr).contains("is not a valid name"));
    }
    let made: Vec<String> = std::fs::read_dir(project.root.join(".claude/agent-memory"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(made, ["tools-reviewer"]);
    assert!(!project.root.join("escaped").exists());
    assert!(!std::path::Path::new("/tmp/escaped").exists());
    model.server.assert_no_violations();
}

#[test]
fn a_handoff_target_and_a_graph_node_get_their_memory_folder_too() {
    let project = project();
    project
        .write(".claude/agents/keeper.md", &claude_agent("keeper", "local"))
        .write(".claude/agent-memory-local/keeper/MEMORY.md", "- deploys on Fridays are banned\n")
        .write(
            ".agentctl/agents/front.md",
            "---\nname: front\ndescription: hands off\nmodel: openai:gpt-4o-mini\nhandoffs:\n  - to: keeper\n---\nYou hand off.\n",
        )
        .write(
            ".agentctl/agents/flow.md",
            "---\nname: flow\ndescription: one node\ngraph:\n  entry: only\n  nodes:\n    - name: only\n      agent: keeper\n  edges:\n    - from: only\n      to: END\n---\n",
        );
    let model = ServedModel::openai();
    model.answer_call("h1", "handoff_to_keeper", r#"{"reason":"it remembers"}"#);
    model.answer_text("No deploy today.");
    let output = run(&project, &model, &["run", "front", "-p", "deploy?"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    model.answer_text("Still no deploy.");
    let output = run(&project, &model, &["run", "flow", "-p", "deploy?"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let requests = model.server.requests();
    assert_eq!(requests.len(), 3);
    assert!(!system_prompt(&requests[0].body).contains("# Agent memory"));
    for request in &requests[1..] {
        let prompt = system_prompt(&request.body);
        assert!(
            prompt.contains("- deploys on Fridays are banned"),
            "{prompt}"
        );
    }
    model.server.assert_no_violations();
}
