//! Servers a project defines run in the sandbox, and the files of the project they run are
//! trusted on first use: a changed file stops the server until it is approved again.

use super::support::servers_dir;
use agentctl_config::{LoadedSettings, Locations, TrustStore, load_settings};
use agentctl_core::{
    AgentDefinition, AgentSource, AgentSpec, McpRefs, McpServerConfig, SandboxMode, Scope,
    SourceFormat,
};
use agentctl_mcp::{LaunchPolicy, McpError, McpManager};
use agentctl_sandbox::{SandboxPolicy, SandboxStatus, probe};
use agentctl_test_support::requirement;
use serde_json::json;
use std::path::{Path, PathBuf};

/// A project with `tools/server.py`, an agentctl home, and a folder outside both.
struct Fixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
    home: PathBuf,
    outside: PathBuf,
}

/// The fixture, when `python3` runs and the sandbox is enforced here (required under CI).
fn fixture() -> Option<Fixture> {
    let python = std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|out| out.status.success());
    let python = if python {
        Ok(())
    } else {
        Err("python3 is not installed".to_owned())
    };
    if !requirement(python) {
        return None;
    }
    let enforced = match probe(&SandboxPolicy::new(SandboxMode::WorkspaceWrite)) {
        SandboxStatus::Enforced { .. } => Ok(()),
        status => Err(format!("the sandbox is {status}")),
    };
    if !requirement(enforced) {
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let root = base.join("project");
    let home = base.join("home");
    let outside = base.join("outside");
    for folder in [
        root.join("tools"),
        root.join(".agentctl"),
        home.clone(),
        outside.clone(),
    ] {
        std::fs::create_dir_all(folder).unwrap();
    }
    std::fs::copy(
        servers_dir().join("project_server.py"),
        root.join("tools/server.py"),
    )
    .unwrap();
    Some(Fixture {
        _dir: dir,
        root,
        home,
        outside,
    })
}

/// The project server's entry.
const SERVER: &str = r#"{"command": "python3", "args": ["tools/server.py"]}"#;

impl Fixture {
    fn load(&self, global: &str, project: &str) -> LoadedSettings {
        std::fs::write(self.home.join("settings.json"), global).unwrap();
        std::fs::write(self.root.join(".agentctl/settings.json"), project).unwrap();
        load_settings(&Locations {
            agentctl_home: self.home.clone(),
            user_home: None,
            project_root: Some(self.root.clone()),
        })
        .unwrap()
    }

    fn store(&self) -> TrustStore {
        TrustStore::new(&self.home)
    }

    /// A manager as the CLI builds it for this project.
    fn manager(&self, loaded: &LoadedSettings) -> McpManager {
        McpManager::with_launch(
            loaded.settings.mcp_servers.clone(),
            &self.root,
            LaunchPolicy::for_project(loaded, &self.root, self.store()),
        )
    }

    /// Asks the server to write `path`; whether the call succeeded and the file exists.
    async fn write(&self, manager: &McpManager, server: &str, path: &Path) -> (bool, String) {
        let out = manager
            .call_tool(server, "write", json!({"path": path, "text": "x"}))
            .await
            .unwrap();
        (!out.is_error && path.exists(), out.text)
    }

    fn edit_script(&self, version: &str) {
        let path = self.root.join("tools/server.py");
        let text = std::fs::read_to_string(&path).unwrap();
        let edited = text.replace("VERSION = \"1\"", &format!("VERSION = \"{version}\""));
        std::fs::write(path, edited).unwrap();
    }
}

#[tokio::test]
async fn a_project_script_server_runs_sandboxed_and_its_hash_is_recorded() {
    let Some(fixture) = fixture() else { return };
    let loaded = fixture.load("{}", &format!(r#"{{"mcpServers": {{"tools": {SERVER}}}}}"#));
    assert!(!loaded.settings.sandbox.mcp_servers.confine);
    let manager = fixture.manager(&loaded);
    assert!(manager.is_project_server("tools"));
    let (written, text) = fixture
        .write(&manager, "tools", &fixture.outside.join("x"))
        .await;
    assert!(
        !written,
        "the sandbox refuses writes outside the project: {text}"
    );
    assert!(text.contains("refused"), "{text}");
    let (written, text) = fixture
        .write(&manager, "tools", &fixture.root.join("x"))
        .await;
    assert!(written, "the project is writable: {text}");
    manager.shutdown().await;
    let record = fixture.store().project(&fixture.root).unwrap().unwrap();
    let script = &record.scripts["tools"]["tools/server.py"];
    let bytes = std::fs::read(fixture.root.join("tools/server.py")).unwrap();
    assert_eq!(script.sha256, sha256sum(&bytes));
}

#[tokio::test]
async fn a_project_server_cannot_write_where_an_edit_rule_denies_it() {
    let Some(fixture) = fixture() else { return };
    std::fs::create_dir_all(fixture.root.join("locked")).unwrap();
    let loaded = fixture.load(
        "{}",
        &format!(
            r#"{{"mcpServers": {{"tools": {SERVER}}}, "permissions": {{"deny": ["Edit(./locked/**)"]}}}}"#
        ),
    );
    let manager = fixture.manager(&loaded);
    for path in ["locked/x", "locked/../locked/y"] {
        let (written, text) = fixture
            .write(&manager, "tools", &fixture.root.join(path))
            .await;
        assert!(!written, "{path}: the OS refuses the denied folder: {text}");
    }
    let (written, text) = fixture
        .write(&manager, "tools", &fixture.root.join("free"))
        .await;
    assert!(written, "the rest of the project stays writable: {text}");
    manager.shutdown().await;
}

#[tokio::test]
async fn a_changed_script_is_not_started_until_it_is_approved_again() {
    let Some(fixture) = fixture() else { return };
    let loaded = fixture.load("{}", &format!(r#"{{"mcpServers": {{"tools": {SERVER}}}}}"#));
    let manager = fixture.manager(&loaded);
    let first = manager
        .call_tool("tools", "version", json!({}))
        .await
        .unwrap();
    assert_eq!(first.text, "1");
    manager.shutdown().await;

    // The script changes (a model's `sed -i`, a pull): the server does not start.
    fixture.edit_script("2");
    let marker = fixture.root.join("started");
    let path = fixture.root.join("tools/server.py");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(
        &path,
        format!(
            "open({:?}, 'w').close()\n{text}",
            marker.display().to_string()
        ),
    )
    .unwrap();
    let manager = fixture.manager(&loaded);
    let changes = manager.script_changes(&["tools".to_owned()]);
    assert_eq!(changes.len(), 1);
    assert_eq!(changes[0].file, "tools/server.py");
    let error = manager
        .call_tool("tools", "version", json!({}))
        .await
        .unwrap_err();
    let McpError::ScriptChanged { server, changes } = &error else {
        panic!("{error:?}")
    };
    assert_eq!(server, "tools");
    assert_eq!(
        changes[0].current,
        sha256sum(&std::fs::read(&path).unwrap())
    );
    assert_ne!(changes[0].recorded, changes[0].current);
    let message = error.to_string();
    assert!(
        message.starts_with(
            "MCP server `tools` not started: `tools/server.py` changed since it was approved"
        ),
        "{message}"
    );
    assert!(!marker.exists(), "the changed script never ran");
    // Asking again changes nothing.
    assert!(
        manager
            .call_tool("tools", "version", json!({}))
            .await
            .is_err()
    );

    // Approved: it starts, and the new hash is the record.
    let approved = manager.approve_scripts("tools").unwrap();
    assert_eq!(approved[0].relative, "tools/server.py");
    let second = manager
        .call_tool("tools", "version", json!({}))
        .await
        .unwrap();
    assert_eq!(second.text, "2");
    assert!(manager.script_changes(&["tools".to_owned()]).is_empty());
    manager.shutdown().await;
}

#[tokio::test]
async fn other_spellings_of_the_script_are_the_same_script() {
    let Some(fixture) = fixture() else { return };
    let through_root = format!("/proc/self/root{}/tools/server.py", fixture.root.display());
    let absolute = fixture.root.join("tools/server.py").display().to_string();
    std::fs::create_dir_all(fixture.root.join("lib")).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink("../tools", fixture.root.join("lib/link")).unwrap();
    let spellings = [
        "./tools/server.py",
        "/proc/self/cwd/tools/server.py",
        "/dev/fd/../cwd/tools/../tools/server.py",
        through_root.as_str(),
        absolute.as_str(),
        "lib/link/server.py",
    ];
    for (index, spelling) in spellings.iter().enumerate() {
        let name = format!("s{index}");
        let loaded = fixture.load(
            "{}",
            &format!(r#"{{"mcpServers": {{"{name}": {{"command": "python3", "args": ["{spelling}"]}}}}}}"#),
        );
        let manager = fixture.manager(&loaded);
        let out = manager
            .call_tool(&name, "version", json!({}))
            .await
            .unwrap();
        assert_eq!(out.text, "1", "{spelling}");
        manager.shutdown().await;
        let record = fixture.store().project(&fixture.root).unwrap().unwrap();
        let files = &record.scripts[&name];
        assert_eq!(files.len(), 1, "{spelling}: {record:?}");
        let named = if spelling.starts_with("lib/") {
            "lib/link/server.py"
        } else {
            "tools/server.py"
        };
        assert!(files.contains_key(named), "{spelling}: {record:?}");
    }
    fixture.edit_script("3");
    for (index, spelling) in spellings.iter().enumerate() {
        let loaded = fixture.load(
            "{}",
            &format!(
                r#"{{"mcpServers": {{"s{index}": {{"command": "python3", "args": ["{spelling}"]}}}}}}"#
            ),
        );
        let manager = fixture.manager(&loaded);
        let error = manager
            .call_tool(&format!("s{index}"), "version", json!({}))
            .await
            .unwrap_err();
        assert!(
            matches!(error, McpError::ScriptChanged { .. }),
            "{spelling}: {error}"
        );
    }
}

#[tokio::test]
async fn only_the_users_own_settings_take_a_project_server_out_of_the_sandbox() {
    let Some(fixture) = fixture() else { return };
    let project = format!(
        r#"{{"mcpServers": {{"tools": {SERVER}}}, "sandbox": {{"mcpServers": {{"unconfined": ["tools"]}}}}}}"#
    );
    // The project's own opt-out is held back.
    let loaded = fixture.load("{}", &project);
    assert_eq!(
        loaded.ignored().map(|l| l.key.as_str()).collect::<Vec<_>>(),
        ["sandbox.mcpServers.unconfined"]
    );
    let manager = fixture.manager(&loaded);
    let (written, _) = fixture
        .write(&manager, "tools", &fixture.outside.join("a"))
        .await;
    assert!(!written);
    manager.shutdown().await;
    // The user's is honoured.
    let loaded = fixture.load(
        r#"{"sandbox": {"mcpServers": {"unconfined": ["tools"]}}}"#,
        &project,
    );
    let manager = fixture.manager(&loaded);
    let (written, text) = fixture
        .write(&manager, "tools", &fixture.outside.join("b"))
        .await;
    assert!(written, "{text}");
    manager.shutdown().await;
}

#[tokio::test]
async fn the_users_own_servers_follow_sandbox_mcp_servers() {
    let Some(fixture) = fixture() else { return };
    let script = fixture.root.join("tools/server.py").display().to_string();
    let global =
        format!(r#"{{"mcpServers": {{"mine": {{"command": "python3", "args": ["{script}"]}}}}}}"#);
    let loaded = fixture.load(&global, "{}");
    let manager = fixture.manager(&loaded);
    assert!(!manager.is_project_server("mine"));
    let (written, text) = fixture
        .write(&manager, "mine", &fixture.outside.join("c"))
        .await;
    assert!(written, "unconfined by default: {text}");
    manager.shutdown().await;
    let record = fixture.store().project(&fixture.root).unwrap();
    assert!(
        record.is_none(),
        "nothing recorded for the user's own server: {record:?}"
    );
}

fn agent(name: &str, scope: Scope, server: McpServerConfig) -> AgentDefinition {
    AgentDefinition {
        spec: AgentSpec {
            name: name.into(),
            mcp: McpRefs {
                servers: Vec::new(),
                inline: [("inline".to_owned(), server)].into(),
            },
            ..Default::default()
        },
        system_prompt: "Test agent.".into(),
        source: AgentSource {
            format: SourceFormat::Claude,
            path: format!("{name}.md").into(),
            scope,
        },
        extra: Default::default(),
    }
}

#[tokio::test]
async fn inline_servers_of_project_agent_files_are_the_projects() {
    let Some(fixture) = fixture() else { return };
    let loaded = fixture.load("{}", "{}");
    let manager = fixture.manager(&loaded);
    let server = McpServerConfig {
        command: Some("python3".into()),
        args: vec!["tools/server.py".into()],
        ..Default::default()
    };
    let mut user_server = server.clone();
    user_server.args = vec![fixture.root.join("tools/server.py").display().to_string()];
    let project_agent = agent("reviewer", Scope::Project, server);
    let user_agent = agent("helper", Scope::Global, user_server);
    let keys = manager.register_agent(&project_agent);
    assert_eq!(keys, [("inline".to_owned(), "inline".to_owned())]);
    let user_keys = manager.register_agent(&user_agent);
    assert_eq!(
        user_keys,
        [("inline".to_owned(), "inline@helper".to_owned())]
    );
    assert_eq!(manager.project_server_keys(), ["inline"]);
    let (written, _) = fixture
        .write(&manager, "inline", &fixture.outside.join("d"))
        .await;
    assert!(!written, "the project agent's server is confined");
    let (written, text) = fixture
        .write(&manager, "inline@helper", &fixture.outside.join("e"))
        .await;
    assert!(written, "the user's agent's server is not: {text}");
    manager.shutdown().await;
    let record = fixture.store().project(&fixture.root).unwrap().unwrap();
    assert_eq!(record.scripts.keys().collect::<Vec<_>>(), ["inline"]);
}

/// SHA-256 of `bytes` as `sha256sum` prints it.
fn sha256sum(bytes: &[u8]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f");
    std::fs::write(&path, bytes).unwrap();
    let out = std::process::Command::new("sha256sum")
        .arg(&path)
        .output()
        .unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .to_owned()
}

#[tokio::test]
async fn project_agent_servers_get_none_of_the_users_variables_and_no_trust() {
    let Some(fixture) = fixture() else { return };
    let loaded = fixture.load(
        r#"{"env": {"passthrough": ["AGENTCTL_TEST_PASSED"]}}"#,
        "{}",
    );
    let manager = fixture.manager(&loaded);
    let server = |env: &[(&str, &str)], trust: bool| McpServerConfig {
        command: Some("python3".into()),
        args: vec!["tools/server.py".into()],
        env: env
            .iter()
            .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
            .collect(),
        trust,
        ..Default::default()
    };
    // A variable servers do not inherit (cargo sets CARGO_PKG_NAME for tests).
    let leaky = agent(
        "leaky",
        Scope::Project,
        server(&[("K", "${CARGO_PKG_NAME}")], false),
    );
    let key = manager.register_agent(&leaky)[0].1.clone();
    let error = manager
        .call_tool(&key, "version", json!({}))
        .await
        .unwrap_err();
    assert_eq!(
        error,
        McpError::VariableRefused {
            server: key.clone(),
            variable: "CARGO_PKG_NAME".into()
        }
    );
    assert!(
        error.to_string().contains("reads `CARGO_PKG_NAME`"),
        "{error}"
    );
    // Inherited and passed-through variables are the server's anyway; `trust` lowers nothing.
    let fine = agent(
        "fine",
        Scope::Project,
        server(
            &[("H", "${HOME}"), ("P", "${AGENTCTL_TEST_PASSED:-none}")],
            true,
        ),
    );
    let key = manager.register_agent(&fine)[0].1.clone();
    let tools = manager.tools(&key).await.unwrap();
    let version = tools
        .iter()
        .find(|tool| tool.info().tool == "version")
        .unwrap();
    assert_eq!(version.info().risk, agentctl_core::RiskLevel::Medium);
    // The same server in the user's agent file keeps its `trust`.
    let mut own = server(&[("K", "${CARGO_PKG_NAME}")], true);
    own.args = vec![fixture.root.join("tools/server.py").display().to_string()];
    let key = manager.register_agent(&agent("own", Scope::Global, own))[0]
        .1
        .clone();
    let tools = manager.tools(&key).await.unwrap();
    let version = tools
        .iter()
        .find(|tool| tool.info().tool == "version")
        .unwrap();
    assert_eq!(version.info().risk, agentctl_core::RiskLevel::Low);
    manager.shutdown().await;
}
