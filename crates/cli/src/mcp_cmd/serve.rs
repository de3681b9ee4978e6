//! `mcp serve`: every (or each named) agent as an MCP tool on stdin/stdout.
//!
//! Each call is a turn of the session runner: the agent's tools (built-in, MCP, `task`), the
//! approval gate with nobody to ask — stdin carries the protocol, so anything that needs
//! approval is refused at once (never a hang) and logged on stderr with what would allow it —
//! and one session per serve process, recorded like any run.

use crate::args::mcp::ServeArgs;
use agentctl_context::{SessionChoice, Source};
use agentctl_core::ApprovalHint;
use agentctl_mcp::{ServedAgent, serve_agents_stdio};
use agentctl_session::{Project, RuntimeBuilder, ServeLog, ServedAgents, SessionRunner};
use std::io::Write as _;
use std::process::ExitCode;
use std::sync::Arc;

pub(super) fn serve(context: &Project, args: &ServeArgs) -> anyhow::Result<ExitCode> {
    let runner = Arc::new(SessionRunner::new(context, RuntimeBuilder::new(context)));
    let mut agents = Vec::new();
    if args.agents.is_empty() {
        agents.extend(
            runner
                .discovery()
                .agents
                .iter()
                .map(|loaded| loaded.definition.clone()),
        );
    } else {
        for name in &args.agents {
            let agent = crate::agents::require(&runner, name)
                .map_err(|error| anyhow::anyhow!("--agents: {error}"))?;
            agents.push(agent);
        }
    }
    anyhow::ensure!(
        !agents.is_empty(),
        "no agents to serve: run `agentctl agents list`"
    );
    let served = agents
        .iter()
        .map(|agent| ServedAgent {
            name: agent.name().to_owned(),
            description: agent
                .spec
                .description
                .clone()
                .or_else(|| agent.spec.title.clone())
                .unwrap_or_else(|| format!("Runs the agentctl agent `{}`.", agent.name())),
        })
        .collect();
    let session = runner
        .open_session(SessionChoice::NewTitled("mcp serve".into()), None)?
        .map(|session| session.with_source(Source::MCP));
    let invoker = ServedAgents::new(Arc::clone(&runner), session, Arc::new(StderrLog));
    let manager = runner.mcp().clone();
    super::block_on(&manager, async move {
        let served = serve_agents_stdio(served, Arc::new(invoker)).await;
        // Buffered trace spans (an OpenTelemetry exporter's queue) go out before the exit.
        runner.shutdown().await;
        served?;
        Ok(ExitCode::SUCCESS)
    })
}

/// Logs on stderr: stdout carries the protocol; clients show stderr as a log.
struct StderrLog;

impl ServeLog for StderrLog {
    fn refused(&self, agent: &str, tool: &str, reason: &str, hint: Option<&ApprovalHint>) {
        let advice = match hint {
            Some(ApprovalHint::ApproveLevels { levels }) => {
                let levels: Vec<String> =
                    levels.iter().map(|level| format!("\"{level}\"")).collect();
                format!(
                    "; to allow it, set \"approvals\": {{\"autoApprove\": [{}]}} in the settings",
                    levels.join(", ")
                )
            }
            Some(ApprovalHint::AskAPerson) => {
                "; it touches a protected path, which only a person on a terminal can allow"
                    .to_owned()
            }
            _ => String::new(),
        };
        let _ = writeln!(
            std::io::stderr().lock(),
            "warning: agent `{agent}`: {tool} refused: {reason}{advice}"
        );
    }

    fn warning(&self, message: &str) {
        let _ = writeln!(std::io::stderr().lock(), "warning: {message}");
    }
}
