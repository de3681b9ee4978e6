//! Plugins (issue 34 item 5), end to end with real folders: a marketplace of several plugins
//! (agents, commands, skills, hooks, an MCP server — the npm everything server) installs;
//! `agents list`, `skills list` and `run --command` see what they bring as `plugin:name`,
//! and a plugin agent runs on the strict fake; a disabled plugin's server does not start,
//! an enabled one's does; a project's plugin enabled by its own registry waits for the
//! user; hostile sources are refused with clear errors; ninety plugins install and list.

use super::support::{ServedModel, TestProject, everything_server, text};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A plugin folder `name` in `market/plugins`, with an agent, a command and a skill.
fn plugin(market: &Path, name: &str) -> PathBuf {
    let dir = market.join("plugins").join(name);
    write(
        &dir.join(".claude-plugin/plugin.json"),
        &format!(
            r#"{{"name": "{name}", "version": "1.0.0", "description": "The {name} plugin", "author": {{"name": "A"}}}}"#
        ),
    );
    write(
        &dir.join("agents/checker.md"),
        &format!(
            "---\nname: checker\ndescription: Checks things for {name}\nmodel: openai:gpt-4o-mini\ntools: Read, Grep\n---\nYou check things for {name}.\n"
        ),
    );
    write(
        &dir.join("commands/review.md"),
        "---\ndescription: Review a file\nallowed-tools: Read\n---\nReview $ARGUMENTS carefully.\n",
    );
    write(
        &dir.join(format!("skills/{name}-style/SKILL.md")),
        &format!("---\nname: {name}-style\ndescription: The {name} style guide\n---\nBe terse.\n"),
    );
    dir
}

fn marketplace(market: &Path, names: &[&str]) {
    let entries: Vec<String> = names
        .iter()
        .map(|name| {
            format!(
                r#"{{"name": "{name}", "source": "./plugins/{name}", "description": "{name}"}}"#
            )
        })
        .collect();
    write(
        &market.join(".claude-plugin/marketplace.json"),
        &format!(
            r#"{{"name": "team", "owner": {{"name": "Team"}}, "plugins": [{}]}}"#,
            entries.join(",")
        ),
    );
}

/// A marketplace of three plugins beside the project: `reviewer` with hooks and the
/// everything server, `docs`, and `marker`, whose server leaves a file when it starts.
fn market(project: &TestProject, server: &Path) -> PathBuf {
    let market = project.home.join("market");
    let reviewer = plugin(&market, "reviewer");
    write(
        &reviewer.join("hooks/hooks.json"),
        r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/hooks/check.sh"}]}]}}"#,
    );
    write(&reviewer.join("hooks/check.sh"), "#!/bin/sh\nexit 0\n");
    write(
        &reviewer.join(".mcp.json"),
        &format!(
            r#"{{"mcpServers": {{"everything": {{"command": "{}", "args": ["stdio"]}}}}}}"#,
            server.display()
        ),
    );
    plugin(&market, "docs");
    let marker = plugin(&market, "marker");
    write(
        &marker.join(".mcp.json"),
        r#"{"mcpServers": {"touch": {"command": "sh", "args": ["-c", "touch ${CLAUDE_PLUGIN_ROOT}/started"]}}}"#,
    );
    marketplace(&market, &["reviewer", "docs", "marker"]);
    market
}

fn names(value: &Value, key: &str) -> Vec<String> {
    value
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item[key].as_str().unwrap().to_owned())
        .collect()
}

fn servers(project: &TestProject) -> Vec<String> {
    names(&project.json(&["mcp", "list", "--format", "json"]), "name")
}

#[test]
fn a_marketplace_installs_and_its_plugins_are_seen_namespaced_and_run_only_when_enabled() {
    let Some(server) = everything_server() else {
        return;
    };
    let project = TestProject::new();
    let market = market(&project, &server);
    let market_arg = market.display().to_string();

    // Nothing chosen, or a name the marketplace does not list: say what it has.
    let output = project.output(&["plugins", "add", &market_arg]);
    assert!(!output.status.success());
    let error = text(&output.stderr);
    assert!(
        error.contains("--all") && error.contains("reviewer, docs, marker"),
        "{error}"
    );
    let error = text(
        &project
            .output(&["plugins", "add", &market_arg, "--plugin", "nope"])
            .stderr,
    );
    assert!(error.contains("no plugin `nope`"), "{error}");

    let output = project.agentctl(&["plugins", "add", &market_arg, "--all"]);
    let said = text(&output.stdout);
    assert!(said.contains("Installed reviewer 1.0.0 (global)"), "{said}");
    assert!(
        said.contains("run only after `agentctl plugins enable NAME`"),
        "{said}"
    );
    let listed = project.json(&["plugins", "list", "--format", "json"]);
    assert_eq!(names(&listed, "name"), ["docs", "marker", "reviewer"]);
    assert_eq!(
        names(&listed, "state"),
        ["disabled", "disabled", "disabled"]
    );
    let table = text(&project.agentctl(&["plugins", "list"]).stdout);
    assert!(
        table.contains("docs") && table.contains("no code"),
        "{table}"
    );

    // Prompts are available at once, namespaced.
    let agents = project.json(&["agents", "list", "--format", "json"]);
    let agents = names(&agents, "name");
    for name in ["reviewer:checker", "docs:checker", "marker:checker"] {
        assert!(agents.contains(&name.to_owned()), "{agents:?}");
    }
    let skills = names(
        &project.json(&["skills", "list", "--format", "json"]),
        "name",
    );
    assert!(skills.contains(&"reviewer-style".to_owned()), "{skills:?}");
    let skills = project.json(&["skills", "list", "--format", "json"]);
    let plugins: Vec<&str> = skills
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|skill| skill["plugin"].as_str())
        .collect();
    assert_eq!(plugins, ["docs", "marker", "reviewer"]);
    let shown = text(
        &project
            .agentctl(&["skills", "show", "reviewer:reviewer-style"])
            .stdout,
    );
    assert!(shown.contains("Be terse."), "{shown}");

    // A plugin's command and a plugin's agent run on the strict fake.
    let model = ServedModel::openai();
    model.answer_text("Reviewed.");
    let mut command = project.command(&[
        "run",
        "--agent",
        "reviewer:checker",
        "--command",
        "reviewer:review",
        "--",
        "src/app.py",
    ]);
    model.point(&mut command);
    let output = command.output().unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    let body = &model.server.requests()[0].body;
    let messages = body["messages"].as_array().unwrap();
    assert!(
        messages[0]["content"]
            .as_str()
            .unwrap()
            .contains("You check things for reviewer."),
        "{messages:?}"
    );
    let last = messages.last().unwrap();
    assert_eq!(last["content"], "Review src/app.py carefully.");
    model.server.assert_no_violations();

    // A project agent hands over to a plugin's agent, which answers with its own prompt.
    project.write(
        ".agentctl/agents/triage.md",
        "---\nname: triage\ndescription: Routes\nmodel: openai:gpt-4o-mini\nhandoffs:\n  - to: docs:checker\n---\nRoute.\n",
    );
    model.answer_call("h1", "handoff_to_docs_checker", r#"{"reason":"docs"}"#);
    model.answer_text("Checked the docs.");
    let mut command = project.command(&["run", "triage", "-p", "check the docs"]);
    model.point(&mut command);
    let output = command.output().unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(text(&output.stdout).contains("Checked the docs."));
    let requests = model.server.requests();
    let system = requests.last().unwrap().body["messages"][0]["content"].to_string();
    assert!(system.contains("You check things for docs."), "{system}");
    model.server.assert_no_violations();

    // Disabled: no plugin server is configured, none starts.
    assert!(!servers(&project).iter().any(|name| name.contains(':')));
    let installed = project.home.join(".agentctl/plugins");
    assert!(!installed.join("marker/started").exists());

    // Enabled: the reviewer's server runs (and the marker's stays off).
    let said = text(&project.agentctl(&["plugins", "enable", "reviewer"]).stdout);
    assert!(
        said.contains("its hooks and MCP servers will run"),
        "{said}"
    );
    assert_eq!(servers(&project), ["reviewer:everything"]);
    let tools = project.json(&["mcp", "tools", "reviewer:everything", "--format", "json"]);
    assert!(
        tools.to_string().contains("mcp.reviewer_everything.echo"),
        "{tools}"
    );
    assert!(!installed.join("marker/started").exists());
    project.agentctl(&["plugins", "enable", "marker"]);
    project.output(&["mcp", "list", "--format", "json"]);
    assert!(installed.join("marker/started").exists());

    project.agentctl(&["plugins", "disable", "reviewer"]);
    project.agentctl(&["plugins", "disable", "marker"]);
    assert!(servers(&project).is_empty());
    project.agentctl(&["plugins", "remove", "docs"]);
    let listed = project.json(&["plugins", "list", "--format", "json"]);
    assert_eq!(names(&listed, "name"), ["marker", "reviewer"]);
    assert!(!installed.join("docs").exists());
    let error = text(&project.output(&["plugins", "remove", "docs"]).stderr);
    assert!(error.contains("no plugin `docs` is installed"), "{error}");
}

#[test]
fn a_projects_plugin_enabled_by_its_own_registry_waits_for_the_user() {
    let project = TestProject::new();
    let market = project.home.join("market");
    let marker = plugin(&market, "marker");
    write(
        &marker.join(".mcp.json"),
        r#"{"mcpServers": {"touch": {"command": "sh", "args": ["-c", "touch ${CLAUDE_PLUGIN_ROOT}/started"]}}}"#,
    );
    let source = marker.display().to_string();
    project.agentctl(&["plugins", "add", &source, "--project"]);
    let installed = project.root.join(".agentctl/plugins");
    // As a cloned repository could have it: enabled in the project's registry.
    let registry = installed.join("installed.json");
    let edited = std::fs::read_to_string(&registry)
        .unwrap()
        .replace("\"enabled\": false", "\"enabled\": true");
    std::fs::write(&registry, edited).unwrap();
    let listed = project.json(&["plugins", "list", "--format", "json"]);
    assert_eq!(names(&listed, "state"), ["not-approved"]);
    project.output(&["mcp", "list", "--format", "json"]);
    assert!(!installed.join("marker/started").exists());
    project.agentctl(&["plugins", "enable", "marker"]);
    assert_eq!(servers(&project), ["marker:touch"]);
    // A change to the plugin's files withdraws the approval.
    write(
        &installed.join("marker/hooks/hooks.json"),
        r#"{"hooks": {}}"#,
    );
    let listed = project.json(&["plugins", "list", "--format", "json"]);
    assert_eq!(names(&listed, "state"), ["not-approved"]);
}

#[test]
fn hostile_sources_are_refused_with_clear_errors() {
    let project = TestProject::new();
    let refused = |args: &[&str]| {
        let output = project.output(args);
        assert!(!output.status.success(), "{args:?}");
        text(&output.stderr)
    };
    let error = refused(&["plugins", "add", "--", "--upload-pack=touch /tmp/pwned"]);
    assert!(
        error.contains("refusing the git URL") && error.contains("option"),
        "{error}"
    );
    let error = refused(&["plugins", "add", "ext::sh -c touch% /tmp/pwned"]);
    assert!(error.contains("refusing the git URL"), "{error}");
    let market = project.home.join("market");
    plugin(&market, "ok");
    write(
        &market.join(".claude-plugin/marketplace.json"),
        r#"{"name": "m", "plugins": [{"name": "evil", "source": "../../etc"}]}"#,
    );
    let error = refused(&["plugins", "add", &market.display().to_string(), "--all"]);
    assert!(error.contains("leads outside"), "{error}");
    let error = refused(&["plugins", "add", "missing-folder"]);
    assert!(error.contains("does not exist"), "{error}");
    assert!(
        project
            .json(&["plugins", "list", "--format", "json"])
            .as_array()
            .unwrap()
            .is_empty()
    );
}

#[test]
fn ninety_plugins_install_and_list() {
    let project = TestProject::new();
    let market = project.home.join("market");
    let names_: Vec<String> = (0..90).map(|i| format!("plugin-{i:02}")).collect();
    for name in &names_ {
        plugin(&market, name);
    }
    let refs: Vec<&str> = names_.iter().map(String::as_str).collect();
    marketplace(&market, &refs);
    let started = std::time::Instant::now();
    project.agentctl(&["plugins", "add", &market.display().to_string(), "--all"]);
    let installed = started.elapsed();
    let started = std::time::Instant::now();
    let listed = project.json(&["plugins", "list", "--format", "json"]);
    let agents = project.json(&["agents", "list", "--format", "json"]);
    eprintln!(
        "90 plugins: add --all {installed:?}; plugins list + agents list {:?}",
        started.elapsed()
    );
    assert_eq!(listed.as_array().unwrap().len(), 90);
    assert!(agents.as_array().unwrap().len() >= 90);
}

#[test]
fn add_list_enable_and_disable_say_what_they_did() {
    let project = TestProject::new();
    let market = project.home.join("market");
    let reviewer = plugin(&market, "reviewer");
    write(&reviewer.join("hooks/hooks.json"), r#"{"hooks": {}}"#);
    write(
        &reviewer.join(".mcp.json"),
        r#"{"mcpServers": {"touch": {"command": "true"}}}"#,
    );
    plugin(&market, "docs");
    marketplace(&market, &["reviewer", "docs"]);
    let source = market.display().to_string();
    let transcripts = [
        project.transcript(&["plugins", "add", &source]),
        project.transcript(&["plugins", "add", &source, "--all"]),
        project.transcript(&["plugins", "list"]),
        project.transcript(&["plugins", "enable", "reviewer"]),
        project.transcript(&["plugins", "list"]),
        project.transcript(&["plugins", "disable", "reviewer"]),
        project.transcript(&["plugins", "add", &source, "--plugin", "docs"]),
    ];
    insta::assert_snapshot!(transcripts.join("\n"));
}

#[test]
fn a_disabled_plugins_hook_does_not_run_and_an_enabled_ones_does() {
    let project = TestProject::new();
    project.write(
        ".agentctl/agents/sheller.md",
        "---\nname: sheller\ndescription: Runs commands\nmodel: openai:gpt-4o-mini\n---\nRun.\n",
    );
    let guard = plugin(&project.home.join("market"), "guard");
    // The hook runs a script the plugin ships, in its own folder outside the project.
    write(
        &guard.join("hooks/hooks.json"),
        r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "sh ${CLAUDE_PLUGIN_ROOT}/hooks/guard.sh"}]}]}}"#,
    );
    write(
        &guard.join("hooks/guard.sh"),
        "echo 'blocked by the guard plugin' >&2\nexit 2\n",
    );
    project.agentctl(&["plugins", "add", &guard.display().to_string()]);
    let model = ServedModel::openai();
    let tool_output = |model: &ServedModel| {
        model.answer_call("b1", "bash", r#"{"command":"echo hi"}"#);
        model.answer_text("Done.");
        let mut command = project.command(&["run", "sheller", "-p", "say hi"]);
        model.point(&mut command);
        let output = command.output().unwrap();
        assert!(output.status.success(), "{}", text(&output.stderr));
        let requests = model.server.requests();
        let messages = requests.last().unwrap().body["messages"].clone();
        messages
            .as_array()
            .unwrap()
            .iter()
            .rfind(|message| message["role"] == "tool")
            .unwrap()["content"]
            .to_string()
    };
    let disabled = tool_output(&model);
    assert!(
        !disabled.contains("blocked by the guard plugin"),
        "{disabled}"
    );
    project.agentctl(&["plugins", "enable", "guard"]);
    let enabled = tool_output(&model);
    assert!(enabled.contains("blocked by the guard plugin"), "{enabled}");
}
