//! Issue 34 item 1, end to end on the strict OpenAI fake: `AGENTS.md` in the project root and
//! in a subfolder, a run from the subfolder — the request's system prompt holds both, root
//! first; an `@import` outside the root is refused with a warning naming file and line;
//! `instructions: none` keeps an agent's prompt alone; `agentctl context --instructions` lists
//! what was loaded from where.

use super::support::{ServedModel, TestProject, text};
use serde_json::Value;

fn agent(name: &str, extra: &str) -> String {
    format!(
        "---\nname: {name}\ndescription: the {name}\nmodel: openai:gpt-4o-mini\n{extra}---\nYou are {name}.\n"
    )
}

fn project() -> TestProject {
    let project = TestProject::new();
    project
        .write(".agentctl/agents/helper.md", &agent("helper", ""))
        .write(
            ".agentctl/agents/loner.md",
            &agent("loner", "instructions: none\n"),
        )
        .write(
            "AGENTS.md",
            "# Root conventions\nRun `cargo test` before committing.\nStyle: @docs/style.md\nSecrets: @../outside.md\n",
        )
        .write("docs/style.md", "Prefer small functions.\n")
        .write("api/AGENTS.md", "# API conventions\nEvery handler returns JSON.\n");
    std::fs::write(
        project.root.parent().unwrap().join("outside.md"),
        "OUTSIDE SECRET",
    )
    .unwrap();
    project
}

fn system_prompt(request: &agentctl_test_support::RecordedRequest) -> String {
    request.body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|message| message["role"] == "system")
        .and_then(|message| message["content"].as_str())
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn a_run_from_a_subfolder_sends_root_then_subfolder_instructions() {
    let project = project();
    let model = ServedModel::openai();
    model.answer_text("ok");
    let mut command = project.command(&["run", "helper", "-p", "add an endpoint"]);
    command.current_dir(project.root.join("api"));
    model.point(&mut command);
    let output = command.output().unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    let system = system_prompt(&model.server.single_request());
    let at = |needle: &str| {
        system
            .find(needle)
            .unwrap_or_else(|| panic!("`{needle}` not in the system prompt:\n{system}"))
    };
    assert!(at("You are helper.") < at("Run `cargo test` before committing."));
    assert!(at("Run `cargo test` before committing.") < at("Prefer small functions."));
    assert!(at("Prefer small functions.") < at("Every handler returns JSON."));
    assert!(at("## AGENTS.md") < at("## api/AGENTS.md"));
    assert!(!system.contains("OUTSIDE SECRET"));
    let stderr = text(&output.stderr);
    let agents = project.root.join("AGENTS.md").display().to_string();
    assert!(
        stderr.contains(&format!(
            "warning: {agents}:4: import `@../outside.md` refused: it is outside the project root"
        )),
        "{stderr}"
    );
}

#[test]
fn an_agent_with_instructions_none_gets_its_own_prompt_only() {
    let project = project();
    let model = ServedModel::openai();
    model.answer_text("ok");
    let mut command = project.command(&["run", "loner", "-p", "hi"]);
    model.point(&mut command);
    let output = command.output().unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    let system = system_prompt(&model.server.single_request());
    assert!(system.starts_with("You are loner."), "{system}");
    assert!(!system.contains("cargo test"), "{system}");
}

#[test]
fn context_instructions_lists_what_was_loaded_from_where() {
    let project = project();
    let mut command = project.command(&["context", "--instructions", "--format", "json"]);
    command.current_dir(project.root.join("api"));
    let output = command.output().unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let files: Vec<String> = report["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|file| {
            file["path"]
                .as_str()
                .unwrap()
                .strip_prefix(&format!("{}/", project.root.display()))
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(files, ["AGENTS.md", "docs/style.md", "api/AGENTS.md"]);
    assert_eq!(report["files"][1]["importedBy"]["line"], 3);
    assert_eq!(report["warnings"][0]["line"], 4);

    let mut command = project.command(&["context", "--instructions"]);
    command.current_dir(project.root.join("api"));
    let output = command.output().unwrap();
    let stdout = text(&output.stdout);
    assert!(stdout.contains("docs/style.md"), "{stdout}");
    assert!(stdout.contains("# imported by AGENTS.md:3"), "{stdout}");
    assert!(text(&output.stderr).contains("AGENTS.md:4: import `@../outside.md` refused"));
}

#[test]
fn settings_choose_the_instruction_file_names() {
    let project = project();
    project
        .write(
            ".agentctl/settings.json",
            r#"{"context": {"instructionFiles": ["CLAUDE.md"]}}"#,
        )
        .write("CLAUDE.md", "Claude-only rules.\n");
    let report = project.json(&["context", "--instructions", "--format", "json"]);
    let files = report["files"].as_array().unwrap();
    assert_eq!(files.len(), 1, "{report}");
    assert!(files[0]["path"].as_str().unwrap().ends_with("/CLAUDE.md"));
}
