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

/// Processes of group `pgid` that can still run: present in `/proc`, not zombies, not
/// exiting and without a pending SIGKILL.
pub fn live_members(pgid: u32) -> Vec<u32> {
    const PF_EXITING: u64 = 0x4;
    const SIGKILL_BIT: u64 = 1 << 8;
    let mut live = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        let Some((_, after_comm)) = stat.rsplit_once(')') else {
            continue;
        };
        let fields: Vec<&str> = after_comm.split_whitespace().collect();
        let (state, pgrp, flags) = (fields[0], fields[2], fields[6]);
        if pgrp.parse::<u32>().ok() != Some(pgid) || matches!(state, "Z" | "X" | "x") {
            continue;
        }
        if flags.parse::<u64>().unwrap_or(0) & PF_EXITING != 0 {
            continue;
        }
        let status = std::fs::read_to_string(entry.path().join("status")).unwrap_or_default();
        let kill_pending = status.lines().any(|line| {
            let mask = line
                .strip_prefix("SigPnd:")
                .or_else(|| line.strip_prefix("ShdPnd:"));
            mask.and_then(|hex| u64::from_str_radix(hex.trim(), 16).ok())
                .is_some_and(|mask| mask & SIGKILL_BIT != 0)
        });
        if !kill_pending {
            live.push(pid);
        }
    }
    live
}

/// Waits (at most 10 s, far more than a kill takes) until no process of group `pgid` can
/// still run; returns those that still can.
pub async fn wait_group_dead(pgid: u32) -> Vec<u32> {
    for _ in 0..500 {
        if live_members(pgid).is_empty() {
            return Vec::new();
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    live_members(pgid)
}

/// Waits until `path` holds a number (a pid a command wrote) and returns it.
pub async fn wait_for_pid(path: &Path) -> u32 {
    for _ in 0..500 {
        if let Some(pid) = std::fs::read_to_string(path)
            .ok()
            .and_then(|text| text.trim().parse().ok())
        {
            return pid;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    panic!("{} never got a pid", path.display());
}
