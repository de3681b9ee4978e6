use super::*;
use crate::{Checks, discover, discover_commands, discover_skills};

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn record(name: &str) -> String {
    format!(r#""{name}": {{"name": "{name}", "origin": {{"location": "/src"}}, "installedAt": 1}}"#)
}

/// A home with the plugin `tools` installed (an agent, a skill, a command, hooks, a server).
fn home_with_plugin() -> (tempfile::TempDir, Locations) {
    let tmp = tempfile::tempdir().unwrap();
    let plugins = tmp.path().join("home/plugins");
    let dir = plugins.join("tools");
    write(
        &plugins.join(REGISTRY_FILE),
        &format!(r#"{{"version": 1, "plugins": {{{}}}}}"#, record("tools")),
    );
    write(
        &dir.join(".claude-plugin/plugin.json"),
        r#"{"name": "tools", "version": "1.2.0", "agents": ["./more-agents", "./extra/solo.md"], "commands": "./extra/ship.md"}"#,
    );
    write(
        &dir.join("agents/reviewer.md"),
        "---\nname: reviewer\ndescription: Reviews\n---\nReview.\n",
    );
    write(
        &dir.join("more-agents/tester.md"),
        "---\nname: tester\ndescription: Tests\n---\nTest.\n",
    );
    write(
        &dir.join("skills/notes/SKILL.md"),
        "---\nname: notes\ndescription: Take notes\n---\nNotes.\n",
    );
    write(&dir.join("commands/git/commit.md"), "Commit $ARGUMENTS\n");
    write(
        &dir.join("extra/solo.md"),
        "---\nname: solo\ndescription: Alone\n---\nSolo.\n",
    );
    write(&dir.join("extra/ship.md"), "Ship it\n");
    write(&dir.join("hooks/hooks.json"), r#"{"hooks": {}}"#);
    write(
        &dir.join(".mcp.json"),
        r#"{"mcpServers": {"db": {"command": "${CLAUDE_PLUGIN_ROOT}/db"}}}"#,
    );
    let locations = Locations {
        agentctl_home: tmp.path().join("home"),
        user_home: None,
        project_root: None,
    };
    (tmp, locations)
}

#[test]
fn a_plugins_agents_skills_and_commands_are_namespaced() {
    let (_tmp, locations) = home_with_plugin();
    let found = discover(&locations, &Checks::new());
    let names: Vec<&str> = found.agents.iter().map(|agent| agent.name()).collect();
    assert_eq!(
        names,
        ["tools:reviewer", "tools:solo", "tools:tester"],
        "{found:?}"
    );
    assert_eq!(found.agents[0].plugin(), Some("tools"));
    let report = found.validate(&found.agents[0], &Default::default(), &Checks::new());
    assert!(report.valid, "{report:?}");
    let skills = discover_skills(&locations);
    assert_eq!(skills.skills[0].qualified_name(), "tools:notes");
    let commands = discover_commands(&locations);
    let names: Vec<&str> = commands.commands.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["tools:git:commit", "tools:ship"], "{commands:?}");
    let plugins = installed_plugins(&locations);
    let plugin = plugins.get("tools").unwrap();
    assert!(plugin.runs_code());
    let (file, servers) = plugin.mcp_servers().unwrap().unwrap();
    assert!(file.ends_with(".mcp.json"));
    assert!(servers.get("db").is_some());
    let (hooks_file, _) = plugin.hooks().unwrap().unwrap();
    assert!(hooks_file.ends_with("hooks/hooks.json"));
}

#[test]
fn manifest_paths_leading_out_of_the_plugin_are_refused() {
    let (tmp, locations) = home_with_plugin();
    let dir = tmp.path().join("home/plugins/tools");
    write(
        &tmp.path().join("outside/agents/evil.md"),
        "---\nname: evil\ndescription: e\n---\nx\n",
    );
    for path in ["../../../outside/agents", "/etc", "./agents/../../x"] {
        write(
            &dir.join(".claude-plugin/plugin.json"),
            &format!(r#"{{"name": "tools", "agents": "{path}"}}"#),
        );
        let plugins = installed_plugins(&locations);
        let (dirs, errors) = plugins.get("tools").unwrap().agent_dirs();
        assert_eq!(dirs.len(), 1, "{path}: only agents/ is read");
        assert!(
            matches!(&errors[..], [PluginError::Escapes { .. }]),
            "{path}: {errors:?}"
        );
    }
    // A symbolic link inside the plugin leading out of it.
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(tmp.path().join("outside/agents"), dir.join("linked")).unwrap();
        write(
            &dir.join(".claude-plugin/plugin.json"),
            r#"{"name": "tools", "agents": "./linked", "hooks": "./linked/evil.md"}"#,
        );
        let plugins = installed_plugins(&locations);
        let plugin = plugins.get("tools").unwrap();
        assert!(matches!(
            &plugin.agent_dirs().1[..],
            [PluginError::Escapes { .. }]
        ));
        assert!(matches!(plugin.hooks(), Err(PluginError::Escapes { .. })));
    }
}

#[test]
fn registry_names_that_are_paths_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let plugins = tmp.path().join("home/plugins");
    write(
        &plugins.join(REGISTRY_FILE),
        &format!(
            r#"{{"plugins": {{{}, {}}}}}"#,
            record("../escape"),
            record("gone")
        ),
    );
    std::fs::create_dir_all(tmp.path().join("home/escape")).unwrap();
    let locations = Locations {
        agentctl_home: tmp.path().join("home"),
        user_home: None,
        project_root: None,
    };
    let set = installed_plugins(&locations);
    assert!(set.plugins.is_empty());
    assert!(matches!(set.warnings[0], PluginError::InvalidName { .. }));
    assert!(matches!(set.warnings[1], PluginError::Missing { .. }));
}

#[test]
fn a_project_plugin_hides_the_users_of_the_same_name() {
    let (tmp, mut locations) = home_with_plugin();
    let project = tmp.path().join("project");
    let plugins = project.join(".agentctl/plugins");
    write(
        &plugins.join(REGISTRY_FILE),
        &format!(r#"{{"plugins": {{{}}}}}"#, record("tools")),
    );
    write(
        &plugins.join("tools/.claude-plugin/plugin.json"),
        r#"{"name": "tools"}"#,
    );
    locations.project_root = Some(project);
    let set = installed_plugins(&locations);
    assert_eq!(set.plugins.len(), 1);
    assert_eq!(set.plugins[0].scope, Scope::Project);
    assert!(matches!(set.warnings[0], PluginError::Shadowed { .. }));
}
