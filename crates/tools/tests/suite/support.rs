use agentctl_core::{Tool, ToolContext, ToolError};
use serde_json::Value;
use std::path::Path;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

pub fn tool(name: &str) -> Arc<dyn Tool> {
    agentctl_tools::builtin_tools()
        .into_iter()
        .find(|tool| tool.name() == name)
        .unwrap()
}

pub fn ctx(root: &Path) -> ToolContext {
    ToolContext::new("run", "agent", "call", root, CancellationToken::new())
}

pub async fn call(root: &Path, name: &str, args: Value) -> Result<String, ToolError> {
    tool(name)
        .call(args, &ctx(root))
        .await
        .map(|out| out.content)
}

pub fn write(root: &Path, path: &str, text: &str) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// The `bash` tool configured by `config`.
pub fn bash_with(config: &agentctl_tools::BuiltinToolsConfig) -> Arc<dyn Tool> {
    let mut registry = agentctl_core::ToolRegistry::new();
    agentctl_tools::register_builtin_tools(&mut registry, config);
    registry.get("bash").cloned().unwrap()
}

/// Whether Landlock confines processes here. When it cannot, the test is skipped with a
/// message, except under CI (`CI=true`), where the sandbox must work.
pub fn landlock_or_skip() -> bool {
    use agentctl_sandbox::{SandboxPolicy, SandboxStatus, probe};
    agentctl_test_support::requirement(match probe(&SandboxPolicy::default()) {
        SandboxStatus::Enforced { .. } => Ok(()),
        status => Err(format!("the sandbox is {status}")),
    })
}
