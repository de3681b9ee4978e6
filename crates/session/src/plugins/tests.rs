use super::*;
use agentctl_definitions::Checks;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A project (with its own agentctl home) and a marketplace folder beside it.
struct Fixture {
    tmp: tempfile::TempDir,
    project: Project,
}

impl Fixture {
    fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("project");
        std::fs::create_dir_all(root.join(".agentctl")).unwrap();
        let mut project = Project::load_from(Some(&root), &root).unwrap();
        project.locations.agentctl_home = tmp.path().join("home");
        project.locations.user_home = None;
        Self { tmp, project }
    }

    fn market(&self) -> PathBuf {
        self.tmp.path().join("market")
    }

    /// A plugin `name` of the marketplace, with an agent, a command, a skill, hooks and a
    /// server.
    fn plugin(&self, name: &str) -> PathBuf {
        let dir = self.market().join("plugins").join(name);
        write(
            &dir.join(".claude-plugin/plugin.json"),
            &format!(
                r#"{{"name": "{name}", "version": "1.0.0", "description": "The {name} plugin"}}"#
            ),
        );
        write(
            &dir.join("agents/helper.md"),
            "---\nname: helper\ndescription: Helps\n---\nHelp.\n",
        );
        write(&dir.join("commands/go.md"), "Go $ARGUMENTS\n");
        write(
            &dir.join("skills/notes/SKILL.md"),
            "---\nname: notes\ndescription: Notes\n---\nNotes.\n",
        );
        write(
            &dir.join("hooks/hooks.json"),
            r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/s.sh"}]}]}}"#,
        );
        write(
            &dir.join(".mcp.json"),
            r#"{"mcpServers": {"srv": {"command": "${CLAUDE_PLUGIN_ROOT}/bin/srv", "args": ["${CLAUDE_PLUGIN_ROOT}/x"], "trust": true}}}"#,
        );
        dir
    }

    fn marketplace(&self, entries: &str) {
        write(
            &self.market().join(".claude-plugin/marketplace.json"),
            &format!(r#"{{"name": "market", "owner": {{"name": "o"}}, "plugins": [{entries}]}}"#),
        );
    }

    fn add(&self, names: &[&str], all: bool) -> Result<Vec<PluginChange>, PluginOpError> {
        let request = PluginAddRequest::new(self.market().display().to_string(), Scope::Project)
            .choose(names.iter().map(|n| (*n).to_owned()).collect(), all);
        self.project.add_plugins(&request, self.tmp.path())
    }
}

fn entry(name: &str) -> String {
    format!(r#"{{"name": "{name}", "source": "./plugins/{name}", "version": "1.0.0"}}"#)
}

#[test]
fn a_marketplace_installs_disabled_and_its_prompts_are_namespaced() {
    let fx = Fixture::new();
    fx.plugin("alpha");
    fx.plugin("beta");
    fx.marketplace(&[entry("alpha"), entry("beta")].join(","));
    assert!(matches!(
        fx.add(&[], false),
        Err(PluginOpError::NothingChosen { available, .. }) if available == ["alpha", "beta"]
    ));
    assert!(matches!(
        fx.add(&["gamma"], false),
        Err(PluginOpError::NoSuchPlugin { .. })
    ));
    let changes = fx.add(&["alpha"], false).unwrap();
    assert_eq!(changes[0].record.name, "alpha");
    assert!(!changes[0].record.enabled);
    assert!(changes[0].runs_code);
    assert_eq!(
        changes[0].record.origin.marketplace.as_deref(),
        Some("market")
    );
    assert!(matches!(
        fx.add(&["alpha"], false),
        Err(PluginOpError::AlreadyInstalled { .. })
    ));
    let discovery = agentctl_definitions::discover(&fx.project.locations, &Checks::new());
    assert!(discovery.get("alpha:helper").is_some(), "{discovery:?}");
    assert!(fx.project.skills().get("alpha:notes").is_some());
    assert!(fx.project.commands().get("alpha:go").is_some());
    let plugins = fx.project.plugins();
    assert_eq!(
        fx.project.plugin_state(&plugins.plugins[0]),
        PluginState::Disabled
    );
}

#[test]
fn only_an_enabled_and_approved_plugin_runs_its_servers_and_hooks() {
    let fx = Fixture::new();
    fx.plugin("alpha");
    fx.marketplace(&entry("alpha"));
    fx.add(&[], true).unwrap();
    let servers = |fx: &Fixture| {
        let mut loaded = agentctl_config::LoadedSettings::new(Default::default());
        add_plugin_servers(&fx.project.locations, &mut loaded);
        loaded
    };
    assert!(servers(&fx).settings.mcp_servers.is_empty());
    assert!(fx.project.plugin_hooks().0.is_empty());
    // A registry saying `enabled` (as a cloned project's could) is not enough.
    let dir = fx.project.plugins_dir(Scope::Project).unwrap();
    let mut registry = read_registry(&dir).unwrap();
    registry.plugins.get_mut("alpha").unwrap().enabled = true;
    write_registry(&dir, &registry).unwrap();
    let plugin = fx.project.plugins().plugins.remove(0);
    assert_eq!(fx.project.plugin_state(&plugin), PluginState::NotApproved);
    assert!(servers(&fx).settings.mcp_servers.is_empty());
    // Enabling approves the files as they are now.
    fx.project.set_plugin_enabled("alpha", true).unwrap();
    let loaded = servers(&fx);
    let server = &loaded.settings.mcp_servers["alpha:srv"];
    let root = dir.join("alpha").canonicalize().unwrap();
    assert_eq!(
        server.command.as_deref(),
        Some(&*format!("{}/bin/srv", root.display()))
    );
    assert!(!server.trust, "a plugin cannot trust its own server");
    assert!(loaded.project_servers.contains("alpha:srv"));
    let (hooks, errors) = fx.project.plugin_hooks();
    assert!(errors.is_empty());
    assert_eq!(hooks[0].plugin, "alpha");
    assert!(hooks[0].file.ends_with("hooks/hooks.json"));
    let command = &hooks[0].events()["Stop"][0]["hooks"][0]["command"];
    assert_eq!(command.as_str(), Some(&*format!("{}/s.sh", root.display())));
    // A file changed after the approval stops it again.
    write(
        &root.join("hooks/hooks.json"),
        r#"{"hooks": {"PreToolUse": []}}"#,
    );
    let plugin = fx.project.plugins().plugins.remove(0);
    assert_eq!(fx.project.plugin_state(&plugin), PluginState::NotApproved);
    fx.project.set_plugin_enabled("alpha", false).unwrap();
    let plugin = fx.project.plugins().plugins.remove(0);
    assert_eq!(fx.project.plugin_state(&plugin), PluginState::Disabled);
    fx.project.remove_plugin("alpha").unwrap();
    assert!(fx.project.plugins().plugins.is_empty());
    assert!(!root.exists());
}

#[test]
fn hostile_marketplaces_and_plugins_are_refused() {
    let fx = Fixture::new();
    fx.plugin("alpha");
    write(
        &fx.tmp.path().join("outside/.claude-plugin/plugin.json"),
        r#"{"name": "outside"}"#,
    );
    for source in [
        r#""../outside""#,
        r#""/etc""#,
        r#""./plugins/../../outside""#,
    ] {
        fx.marketplace(&format!(r#"{{"name": "evil", "source": {source}}}"#));
        let error = fx.add(&["evil"], false).unwrap_err();
        assert!(
            matches!(error, PluginOpError::Plugin(PluginError::Escapes { .. })),
            "{source}: {error}"
        );
    }
    for source in [
        r#""--upload-pack=touch /tmp/pwned""#,
        r#"{"source": "url", "url": "-oProxyCommand=x"}"#,
        r#"{"source": "github", "repo": "--upload-pack=x/y"}"#,
        r#"{"source": "url", "url": "ext::sh -c touch% /tmp/pwned"}"#,
    ] {
        fx.marketplace(&format!(r#"{{"name": "evil", "source": {source}}}"#));
        let error = fx.add(&["evil"], false).unwrap_err();
        assert!(
            matches!(
                error,
                PluginOpError::UnsafeGitUrl { .. } | PluginOpError::EntrySource { .. }
            ),
            "{source}: {error}"
        );
    }
    fx.marketplace(r#"{"name": "../evil", "source": "./plugins/alpha"}"#);
    let error = fx.add(&[], true).unwrap_err();
    assert!(
        matches!(
            error,
            PluginOpError::Plugin(PluginError::InvalidName { .. })
        ),
        "{error}"
    );
    // A marketplace manifest past the size limit is not read.
    let huge = format!(
        "{{\"name\": \"m\", \"plugins\": [], \"pad\": \"{}\"}}",
        "x".repeat(2 << 20)
    );
    write(&fx.market().join(".claude-plugin/marketplace.json"), &huge);
    let error = fx.add(&[], true).unwrap_err();
    assert!(
        error.to_string().contains("larger") || error.to_string().contains("limit"),
        "{error}"
    );
    // A plugin whose manifest names it like a path.
    let bad = fx.tmp.path().join("bad");
    write(
        &bad.join(".claude-plugin/plugin.json"),
        r#"{"name": "../../x"}"#,
    );
    let request = PluginAddRequest::new(bad.display().to_string(), Scope::Global);
    let error = fx.project.add_plugins(&request, fx.tmp.path()).unwrap_err();
    assert!(
        matches!(
            error,
            PluginOpError::Plugin(PluginError::InvalidName { .. })
        ),
        "{error}"
    );
    // A plugin with a link out of it installs nothing.
    #[cfg(unix)]
    {
        let linked = fx.tmp.path().join("linked");
        write(
            &linked.join(".claude-plugin/plugin.json"),
            r#"{"name": "linked"}"#,
        );
        std::fs::create_dir_all(linked.join("agents")).unwrap();
        std::os::unix::fs::symlink("/etc/passwd", linked.join("agents/passwd.md")).unwrap();
        let request = PluginAddRequest::new(linked.display().to_string(), Scope::Global);
        let error = fx.project.add_plugins(&request, fx.tmp.path()).unwrap_err();
        assert!(matches!(error, PluginOpError::LinkOut { .. }), "{error}");
        assert!(fx.project.plugins().plugins.is_empty());
        let home = fx.project.plugins_dir(Scope::Global).unwrap();
        assert!(!home.join("linked").exists());
    }
    // A single plugin is not a marketplace to choose from.
    let request = PluginAddRequest::new(fx.plugin("alpha").display().to_string(), Scope::Global)
        .choose(vec!["alpha".into()], false);
    let error = fx.project.add_plugins(&request, fx.tmp.path()).unwrap_err();
    assert!(
        matches!(error, PluginOpError::NotAMarketplace(_)),
        "{error}"
    );
}

#[test]
fn update_fetches_again_and_keeps_the_enabled_state() {
    let fx = Fixture::new();
    let source = fx.plugin("alpha");
    let request = PluginAddRequest::new(source.display().to_string(), Scope::Global);
    fx.project.add_plugins(&request, fx.tmp.path()).unwrap();
    fx.project.set_plugin_enabled("alpha", true).unwrap();
    write(
        &source.join("agents/second.md"),
        "---\nname: second\ndescription: d\n---\nx\n",
    );
    let changes = fx.project.update_plugins(None).unwrap();
    assert!(changes[0].record.enabled);
    assert!(changes[0].record.updated_at.is_some());
    let installed = fx.project.plugins_dir(Scope::Global).unwrap().join("alpha");
    assert!(installed.join("agents/second.md").is_file());
    assert!(matches!(
        fx.project.update_plugins(Some("nope")),
        Err(PluginOpError::NotInstalled(_))
    ));
}

#[test]
fn a_git_repository_is_cloned() {
    let fx = Fixture::new();
    let source = fx.plugin("alpha");
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args([
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@t",
                "-c",
                "init.defaultBranch=main",
            ])
            .args(args)
            .current_dir(&source)
            .output()
    };
    if git(&["init", "-q"]).is_err() {
        return; // no git here
    }
    git(&["add", "."]).unwrap();
    git(&["commit", "-qm", "plugin"]).unwrap();
    let url = format!("file://{}", source.display());
    let request = PluginAddRequest::new(url, Scope::Global);
    let changes = fx.project.add_plugins(&request, fx.tmp.path()).unwrap();
    assert!(changes[0].record.origin.git);
    let installed = fx.project.plugins_dir(Scope::Global).unwrap().join("alpha");
    assert!(installed.join("agents/helper.md").is_file());
    assert!(!installed.join(".git").exists());
}

#[test]
fn ninety_plugins_install_and_list() {
    let fx = Fixture::new();
    let names: Vec<String> = (0..90).map(|i| format!("p{i:02}")).collect();
    for name in &names {
        fx.plugin(name);
    }
    let entries: Vec<String> = names.iter().map(|name| entry(name)).collect();
    fx.marketplace(&entries.join(","));
    let started = std::time::Instant::now();
    assert_eq!(fx.add(&[], true).unwrap().len(), 90);
    let installed = started.elapsed();
    let listed = std::time::Instant::now();
    assert_eq!(fx.project.plugins().plugins.len(), 90);
    let discovery = agentctl_definitions::discover(&fx.project.locations, &Checks::new());
    assert_eq!(discovery.agents.len(), 90);
    eprintln!(
        "90 plugins: installed in {installed:?}, listed and their agents found in {:?}",
        listed.elapsed()
    );
}

#[test]
fn a_disabled_plugins_agents_lose_their_hooks_and_inline_servers() {
    let fx = Fixture::new();
    let dir = fx.plugin("alpha");
    write(
        &dir.join("agents/runner.md"),
        "---\nname: runner\ndescription: Runs\nhooks:\n  Stop: []\nmcpServers:\n  - local:\n      command: ./serve\n---\nRun.\n",
    );
    let request = PluginAddRequest::new(dir.display().to_string(), Scope::Global);
    fx.project.add_plugins(&request, fx.tmp.path()).unwrap();
    let raw = agentctl_definitions::discover(&fx.project.locations, &Checks::new());
    let raw = raw.get("alpha:runner").unwrap();
    assert!(raw.definition.extra.contains_key("hooks"), "{raw:?}");
    assert!(!raw.definition.spec.mcp.inline.is_empty(), "{raw:?}");
    let found = fx.project.discover();
    let runner = found.get("alpha:runner").unwrap();
    assert!(!runner.definition.extra.contains_key("hooks"));
    assert!(runner.definition.spec.mcp.inline.is_empty());
    let warnings: Vec<String> = runner.warnings.iter().map(|w| w.message.clone()).collect();
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("plugin `alpha` is not enabled")),
        "{warnings:?}"
    );
    fx.project.set_plugin_enabled("alpha", true).unwrap();
    let found = fx.project.discover();
    let runner = found.get("alpha:runner").unwrap();
    assert!(runner.definition.extra.contains_key("hooks"));
    assert!(!runner.definition.spec.mcp.inline.is_empty());
}
