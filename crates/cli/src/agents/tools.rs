//! `agents tools NAME`: the effective tool set of an agent, with risk and approval decisions.

use super::{discover_agents, find, report_load_errors};
use crate::approvals::{McpTools, agent_registry};
use crate::args::{TableFormat, ToolsArgs};
use crate::context::CommandContext;
use crate::output::print_json;
use agentctl_context::{SessionStore, SqliteStore, TaskTool};
use agentctl_mcp::McpManager;
use agentctl_runtime::RiskLevel;
use agentctl_tools::{EffectiveDecision, EffectiveTool, effective_tools};
use serde::Serialize;
use std::io::Write as _;
use std::process::ExitCode;
use std::sync::Arc;

/// The JSON document.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Report<'a> {
    agent: &'a str,
    auto_approve: Vec<RiskLevel>,
    tools: &'a [EffectiveTool],
}

pub(super) fn run(context: &CommandContext, args: &ToolsArgs) -> anyhow::Result<ExitCode> {
    let discovery = discover_agents(context);
    report_load_errors(&discovery, &context.locations)?;
    let agent = &find(&discovery, &args.name)?.definition;
    let settings = &context.settings.settings;
    let policy = crate::approvals::policy(settings, &args.approvals)?;
    let classifier = crate::approvals::classifier(settings)?;
    let root = context
        .locations
        .project_root
        .clone()
        .map_or_else(std::env::current_dir, Ok)?;
    let mcp = McpManager::from_settings(settings, &root);
    let which = if args.all {
        McpTools::Candidates
    } else {
        McpTools::Allowed
    };
    let tokio = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let mut registry = tokio.block_on(async {
        let registry = agent_registry(&mcp, agent, which, settings).await;
        mcp.shutdown().await;
        registry
    });
    // `agentctl run` adds the session's `task` tool; its description does not depend on the
    // session, so an empty in-memory store stands in for the listing.
    let store: Arc<dyn SessionStore> = Arc::new(SqliteStore::open_in_memory()?);
    registry.register_typed(TaskTool::new(store, "", Vec::new()));
    let all: Vec<_> = registry
        .names()
        .filter_map(|name| registry.get(name).cloned())
        .collect();
    let mut tools = effective_tools(agent, &all, &classifier, &policy)?;
    if !args.all {
        tools.retain(|tool| tool.allowed);
    }
    match args.format {
        TableFormat::Json => print_json(&Report {
            agent: agent.name(),
            auto_approve: policy.levels().collect(),
            tools: &tools,
        })?,
        TableFormat::Table => print_table(agent.name(), &tools, &policy)?,
    }
    Ok(ExitCode::SUCCESS)
}

fn print_table(
    agent: &str,
    tools: &[EffectiveTool],
    policy: &agentctl_tools::ApprovalPolicy,
) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    let levels: Vec<&str> = policy.levels().map(RiskLevel::as_str).collect();
    let levels = if levels.is_empty() {
        "none".to_owned()
    } else {
        levels.join(", ")
    };
    writeln!(out, "Tools of `{agent}` (auto-approved: {levels})")?;
    if tools.is_empty() {
        writeln!(out, "  (no tools)")?;
        return Ok(());
    }
    let width = tools.iter().map(|tool| tool.name.len()).max().unwrap_or(4);
    writeln!(
        out,
        "  {:width$}  {:8}  {:7}  {:8}  REASON",
        "TOOL", "RISK", "MUTATES", "DECISION"
    )?;
    for tool in tools {
        let decision = match tool.decision {
            EffectiveDecision::Allow => "allow",
            EffectiveDecision::Ask => "ask",
            EffectiveDecision::Deny => "deny",
        };
        writeln!(
            out,
            "  {:width$}  {:8}  {:7}  {:8}  {}",
            tool.name,
            tool.risk.as_str(),
            if tool.mutating { "yes" } else { "no" },
            decision,
            tool.reason
        )?;
    }
    Ok(())
}
