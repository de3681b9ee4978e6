//! `mcp serve`: every (or each named) agent as an MCP tool on stdin/stdout.
//!
//! Each call runs the agent with the built-in tools plus the MCP tools it names, through the
//! approval gate with the non-terminal approver: stdin carries the protocol, so nobody can
//! answer a question, and anything that needs approval is denied at once (never a hang).

use super::ServeArgs;
use crate::approvals::McpTools;
use crate::args::ApprovalArgs;
use crate::context::CommandContext;
use agentctl_core::{AgentDefinition, Settings};
use agentctl_mcp::{AgentInvoker, CancellationToken, McpManager, ServedAgent, serve_agents_stdio};
use agentctl_providers::ProviderOptions;
use agentctl_runtime::{RunOptions, Runtime};
use agentctl_tools::NonTerminalApprover;
use async_trait::async_trait;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

pub(super) async fn serve(
    context: &CommandContext,
    manager: &McpManager,
    root: PathBuf,
    args: &ServeArgs,
) -> anyhow::Result<ExitCode> {
    let discovery = agentctl_definitions::discover(&context.locations);
    let mut agents = BTreeMap::new();
    if args.agents.is_empty() {
        for loaded in &discovery.agents {
            agents.insert(
                loaded.definition.name().to_owned(),
                loaded.definition.clone(),
            );
        }
    } else {
        for name in &args.agents {
            let loaded = discovery.require(name).map_err(|error| {
                anyhow::anyhow!("--agents: {}", crate::agents::lookup_message(&error))
            })?;
            agents.insert(name.clone(), loaded.definition.clone());
        }
    }
    anyhow::ensure!(
        !agents.is_empty(),
        "no agents to serve: run `agentctl agents list`"
    );
    let served = agents
        .values()
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
    let invoker = CliInvoker {
        settings: context.settings.settings.clone(),
        root,
        agents,
        manager: manager.clone(),
    };
    serve_agents_stdio(served, Arc::new(invoker)).await?;
    Ok(ExitCode::SUCCESS)
}

/// Runs served agents with the runtime.
struct CliInvoker {
    settings: Settings,
    root: PathBuf,
    agents: BTreeMap<String, AgentDefinition>,
    manager: McpManager,
}

impl CliInvoker {
    /// The runtime for one call: built-in tools plus the agent's MCP tools, behind a gate that
    /// denies whatever needs approval.
    async fn runtime(&self, agent: &AgentDefinition) -> Result<Runtime, String> {
        // Warnings go to stderr: stdout carries the protocol; clients show stderr as a log.
        let registry =
            crate::approvals::agent_registry(&self.manager, agent, McpTools::Allowed).await;
        let error = |error: anyhow::Error| format!("{error:#}");
        // `mcp serve` takes no approval flags; nobody can answer a question on its stdin.
        let approver = Arc::new(NonTerminalApprover);
        let gate = crate::approvals::gate(&self.settings, &ApprovalArgs::default(), approver)
            .map_err(error)?;
        let options = ProviderOptions {
            working_dir: Some(self.root.clone()),
            ..ProviderOptions::default()
        };
        Ok(
            Runtime::with_providers(self.settings.clone(), options, registry)
                .with_gate(Arc::new(gate)),
        )
    }
}

#[async_trait]
impl AgentInvoker for CliInvoker {
    async fn invoke(
        &self,
        agent: &str,
        prompt: &str,
        cancel: CancellationToken,
    ) -> Result<String, String> {
        let definition = self
            .agents
            .get(agent)
            .ok_or_else(|| format!("no agent named `{agent}`"))?;
        let runtime = self.runtime(definition).await?;
        let options = RunOptions {
            working_dir: Some(self.root.clone()),
            cancel: Some(cancel),
            ..RunOptions::default()
        };
        runtime
            .run_to_completion(definition, prompt, options)
            .await
            .map(|result| result.text)
            .map_err(|error| format!("agent `{agent}` failed: {error}"))
    }
}
