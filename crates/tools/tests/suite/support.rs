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

/// A person answering a gate's questions from a script, as a session's front end answers
/// them: each question takes the next answer (`y`, `n`, `a`; other lines are skipped as
/// unreadable); past the last one the answer is no, never a yes.
pub struct Person {
    pub gate: agentctl_tools::Gate,
    answers: std::sync::Mutex<std::collections::VecDeque<agentctl_tools::ApprovalAnswer>>,
}

impl Person {
    /// `gate`, asking, with `script`'s answers (one per line).
    pub fn new(gate: agentctl_tools::Gate, script: &str) -> Self {
        use agentctl_tools::ApprovalAnswer;
        let answers = script
            .lines()
            .filter_map(|line| match line.trim().to_ascii_lowercase().as_str() {
                "y" | "yes" => Some(ApprovalAnswer::Once),
                "n" | "no" => Some(ApprovalAnswer::Deny),
                "a" | "always" => Some(ApprovalAnswer::AlwaysThisSession),
                _ => None,
            })
            .collect();
        Self {
            gate: gate.asking(true),
            answers: std::sync::Mutex::new(answers),
        }
    }
}

#[async_trait::async_trait]
impl agentctl_core::CallGate for Person {
    fn decide(&self, call: &agentctl_core::PendingCall<'_>) -> agentctl_core::Decision {
        self.gate.decide(call)
    }

    async fn ask(
        &self,
        call: &agentctl_core::PendingCall<'_>,
        risk: agentctl_core::RiskLevel,
        reason: &str,
    ) -> agentctl_core::Decision {
        let answer = self
            .answers
            .lock()
            .unwrap()
            .pop_front()
            .unwrap_or(agentctl_tools::ApprovalAnswer::Deny);
        self.gate.answer(call, risk, reason, answer)
    }
}
