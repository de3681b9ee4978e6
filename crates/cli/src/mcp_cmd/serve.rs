//! `mcp serve`: every (or each named) agent as an MCP tool on stdin/stdout.
//!
//! Each call is a turn of one session (a graph agent runs its graph): the agent's own tools
//! (built-in, MCP, `task`), the approval gate with nobody to ask — stdin carries the protocol,
//! so anything that needs approval is refused at once (never a hang) and logged on stderr with
//! what would allow it — and one session per serve process, recorded like any run.

use crate::args::mcp::ServeArgs;
use agentctl_core::ApprovalHint;
use agentctl_session::mcp::ServedAgent;
use agentctl_session::store::{SessionChoice, Source};
use agentctl_session::{Project, Questions, ServeLog, ServedAgents, Session};
use std::io::Write as _;
use std::process::ExitCode;
use std::sync::Arc;

pub(super) fn serve(context: &Project, args: &ServeArgs) -> anyhow::Result<ExitCode> {
    crate::rt::block_on(async {
        let session = Session::from_project(context)
            .questions(Questions::Refuse)
            .session(SessionChoice::NewTitled("mcp serve".into()))
            .detached()
            .source(Source::MCP)
            .build()
            .await?;
        let served = served(&session, args)?;
        let manager = session.mcp().clone();
        let invoker = ServedAgents::new(session.clone(), Arc::new(StderrLog));
        let serving = async {
            invoker.serve_stdio(served).await?;
            Ok(ExitCode::SUCCESS)
        };
        let outcome = super::until_interrupted(&manager, serving).await;
        // Buffered trace spans (an OpenTelemetry exporter's queue) and the session's writes
        // go out before the exit.
        session.shutdown().await;
        outcome
    })?
}

/// The agents served: every one found, or the ones named.
fn served(session: &Session, args: &ServeArgs) -> anyhow::Result<Vec<ServedAgent>> {
    let mut agents = Vec::new();
    if args.agents.is_empty() {
        agents.extend(
            session
                .discovery()
                .agents
                .iter()
                .map(|loaded| loaded.definition.clone()),
        );
    } else {
        for name in &args.agents {
            let agent = crate::lookup::require(session, name)
                .map_err(|error| anyhow::anyhow!("--agents: {error}"))?;
            agents.push(agent);
        }
    }
    anyhow::ensure!(
        !agents.is_empty(),
        "no agents to serve: run `agentctl agents list`"
    );
    Ok(agents
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
        .collect())
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
            Some(ApprovalHint::AskedByRule { rule }) => {
                format!(
                    "; the permission rule `{rule}` asks each time, which only a person on a terminal can answer"
                )
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
