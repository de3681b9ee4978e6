//! Shared helpers: where the npm-installed reference servers are, and agents for tests.

use agentctl_core::{
    AgentDefinition, AgentSource, AgentSpec, McpServerConfig, Scope, SourceFormat, ToolPolicy,
};
use agentctl_mcp::{LaunchPolicy, McpManager, ProjectLaunch};
use agentctl_test_support::requirement;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub fn servers_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/servers")
}

/// Path of an npm-installed server binary. Missing binaries fail the test under CI (which
/// installs them) and skip it elsewhere.
pub fn npm_server(bin: &str) -> Option<PathBuf> {
    let path = servers_dir().join("node_modules/.bin").join(bin);
    let check = if path.exists() {
        Ok(())
    } else {
        Err(format!(
            "{} is missing: run `npm ci --prefix crates/mcp/tests/servers` to install the MCP \
             reference servers",
            path.display()
        ))
    };
    requirement(check).then_some(path)
}

/// `node` on PATH, for the misbehaving server (required under CI, else the test is skipped).
pub fn node() -> Option<&'static str> {
    let found = std::process::Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|out| out.status.success());
    let check = if found {
        Ok(())
    } else {
        Err("node is not installed".to_owned())
    };
    requirement(check).then_some("node")
}

pub fn stdio(command: &Path, args: &[&str]) -> McpServerConfig {
    McpServerConfig {
        command: Some(command.display().to_string()),
        args: args.iter().map(|arg| (*arg).to_owned()).collect(),
        ..Default::default()
    }
}

pub fn misbehave(extra: &[&str]) -> Option<McpServerConfig> {
    let node = node()?;
    let script = servers_dir().join("misbehave.mjs");
    let mut args = vec![script.display().to_string()];
    args.extend(extra.iter().map(|arg| (*arg).to_owned()));
    Some(McpServerConfig {
        command: Some(node.into()),
        args,
        timeout: Some(3_000),
        ..Default::default()
    })
}

pub fn agent(name: &str, servers: &[&str], allow: Option<&[&str]>) -> AgentDefinition {
    AgentDefinition {
        spec: AgentSpec {
            name: name.into(),
            tools: ToolPolicy {
                allow: allow.map(|list| list.iter().map(|s| (*s).to_owned()).collect()),
                deny: Vec::new(),
            },
            mcp: agentctl_core::McpRefs {
                servers: servers.iter().map(|s| (*s).to_owned()).collect(),
                inline: Default::default(),
            },
            ..Default::default()
        },
        system_prompt: "Test agent.".into(),
        source: AgentSource {
            format: SourceFormat::Native,
            path: format!("{name}.md").into(),
            scope: Scope::Project,
        },
        extra: Default::default(),
    }
}

pub fn ctx() -> agentctl_core::ToolContext {
    agentctl_core::ToolContext::new(
        "run",
        "agent",
        "call",
        Path::new("."),
        tokio_util::sync::CancellationToken::new(),
    )
}

/// True while a process exists (and is not a zombie).
pub fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

/// Waits up to two seconds for a process to go.
pub async fn gone(pid: u32) -> bool {
    for _ in 0..40 {
        if !alive(pid) {
            return true;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    false
}

/// A manager whose servers are all a project's, started the way the CLI starts the servers of
/// a project's settings: confined, their project files trusted on first use. The project and
/// the agentctl home are temporary folders that live as long as it.
pub struct ProjectManager {
    manager: McpManager,
    /// The project root the servers start in.
    pub root: PathBuf,
    _dirs: tempfile::TempDir,
}

impl std::ops::Deref for ProjectManager {
    type Target = McpManager;

    fn deref(&self) -> &McpManager {
        &self.manager
    }
}

pub fn project_manager(servers: BTreeMap<String, McpServerConfig>) -> ProjectManager {
    let dirs = tempfile::tempdir().unwrap();
    let root = dirs.path().canonicalize().unwrap().join("project");
    let home = dirs.path().canonicalize().unwrap().join("home");
    std::fs::create_dir_all(&root).unwrap();
    let loaded = agentctl_config::LoadedSettings::new(agentctl_core::Settings::default());
    let mut project = ProjectLaunch::new(&loaded, &root, agentctl_config::TrustStore::new(&home));
    project.servers = servers.keys().cloned().collect();
    let launch = LaunchPolicy {
        project: Some(project),
        ..LaunchPolicy::from_settings(&loaded.settings)
    };
    ProjectManager {
        manager: McpManager::with_launch(servers, root.clone(), launch),
        root,
        _dirs: dirs,
    }
}
