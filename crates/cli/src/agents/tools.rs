//! `agents tools NAME`: the effective tool set of an agent, through the same policy chain a
//! call meets.

use super::{discover_agents, find, report_load_errors};
use crate::args::{TableFormat, ToolsArgs};
use crate::output::print_json;
use agentctl_context::{SessionStore, SqliteStore};
use agentctl_core::{Decision, RiskLevel, ToolFilter};
use agentctl_session::{
    McpTools, Project, RuntimeBuilder, TaskTool, agent_tools, long_term_memory_tools,
};
use agentctl_tools::{AutoApprove, BuiltinToolsConfig, ToolListing};
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
    tools: &'a [ToolListing],
}

pub(super) fn run(context: &Project, args: &ToolsArgs) -> anyhow::Result<ExitCode> {
    let discovery = discover_agents(context);
    report_load_errors(&discovery, &context.locations)?;
    let agent = &find(&discovery, &args.name)?.definition;
    let builder =
        RuntimeBuilder::new(context).approvals(crate::approvals::choice(&args.approvals)?);
    let gate = builder.gate()?;
    let agents: Vec<_> = discovery
        .agents
        .iter()
        .map(|a| a.definition.clone())
        .collect();
    let mcp = context.mcp_manager(&agents);
    let which = if args.all {
        McpTools::Candidates
    } else {
        McpTools::Allowed
    };
    // `agentctl run` adds the session's `task` tool; its description does not depend on the
    // session, so an empty in-memory store stands in for the listing.
    let store: Arc<dyn SessionStore> = Arc::new(SqliteStore::open_in_memory()?);
    let task = TaskTool::new(store, "", Vec::new());
    let mut assembled = crate::rt::block_on(async {
        let builtin = BuiltinToolsConfig::from_settings(context.settings());
        let assembled = agent_tools(&builtin, &mcp, agent, which, Some(task)).await;
        mcp.shutdown().await;
        assembled
    })?;
    // As `agentctl run` offers them (the store is only opened when a tool is called).
    if let Some(memory) = long_term_memory_tools(agent, &context.store_location()?, &builder) {
        memory.register(&mut assembled.registry);
    }
    for warning in &assembled.warnings {
        let _ = writeln!(
            std::io::stderr().lock(),
            "warning: {}",
            crate::trust_cmd::mcp_warning(warning)
        );
    }
    let all: Vec<_> = assembled.registry.iter().cloned().collect();
    let filter = ToolFilter::new(&agent.spec.tools)
        .map_err(|error| anyhow::anyhow!("agent `{}`: {error}", agent.name()))?;
    let mut tools = gate.list(&filter, &all);
    if !args.all {
        tools.retain(|tool| tool.allowed);
    }
    let policy = gate.auto_approve();
    match args.format {
        TableFormat::Json => print_json(&Report {
            agent: agent.name(),
            auto_approve: policy.levels().collect(),
            tools: &tools,
        })?,
        TableFormat::Table => print_table(agent.name(), &tools, policy)?,
    }
    Ok(ExitCode::SUCCESS)
}

fn print_table(agent: &str, tools: &[ToolListing], policy: &AutoApprove) -> anyhow::Result<()> {
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
            Decision::Allow { .. } => "allow",
            Decision::Ask { .. } => "ask",
            Decision::Deny { .. } => "deny",
        };
        writeln!(
            out,
            "  {:width$}  {:8}  {:7}  {:8}  {}",
            tool.name,
            tool.decision.risk().as_str(),
            if tool.mutating { "yes" } else { "no" },
            decision,
            tool.decision.reason()
        )?;
    }
    Ok(())
}
