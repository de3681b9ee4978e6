//! `agents tools NAME`: exactly the tool set `agentctl run NAME` offers — built-in, MCP, the
//! handoffs and memory the agent declares, `task` — assembled by the session engine `run`
//! runs on, each through the same policy chain a call meets.

use super::report_load_errors;
use crate::args::{TableFormat, ToolsArgs};
use crate::output::print_json;
use agentctl_core::{Decision, RiskLevel};
use agentctl_session::store::in_memory_store;
use agentctl_session::tools::{AutoApprove, ToolListing};
use agentctl_session::{McpTools, Project, RuntimeBuilder, Session, SessionError};
use serde::Serialize;
use std::io::Write as _;
use std::process::ExitCode;

/// The JSON document.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Report<'a> {
    agent: &'a str,
    auto_approve: Vec<RiskLevel>,
    tools: &'a [ToolListing],
}

pub(super) fn run(context: &Project, args: &ToolsArgs) -> anyhow::Result<ExitCode> {
    let builder =
        RuntimeBuilder::new(context).approvals(crate::approvals::choice(&args.approvals)?);
    let gate = builder.gate()?;
    let which = if args.all {
        McpTools::Candidates
    } else {
        McpTools::Allowed
    };
    let listing = crate::rt::block_on(async {
        // `run` works in a session unless the settings turn persistence off; the session's
        // tools (`task`, session memory) do not depend on which one, so an empty in-memory
        // store stands in, and nothing is written to the project's store.
        let mut session = Session::from_project(context).runtime(builder);
        if context.settings().agents.context_persistence {
            session = session.store(in_memory_store()?);
        }
        let session = session.build().await?;
        report_load_errors(session.discovery(), &context.locations)?;
        let listed = session.list_tools(&args.name, which, &gate).await;
        session.shutdown().await;
        listed.map_err(|error| match error {
            SessionError::ToolPolicy { agent, source } => {
                anyhow::anyhow!("agent `{agent}`: {source}")
            }
            other => other.into(),
        })
    })??;
    for warning in &listing.warnings {
        let _ = writeln!(
            std::io::stderr().lock(),
            "warning: {}",
            crate::trust_cmd::mcp_warning(warning)
        );
    }
    let (agent, tools) = (&listing.agent, &listing.tools);
    let policy = gate.auto_approve();
    match args.format {
        TableFormat::Json => print_json(&Report {
            agent: agent.name(),
            auto_approve: policy.levels().collect(),
            tools,
        })?,
        TableFormat::Table => print_table(agent.name(), tools, policy)?,
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
