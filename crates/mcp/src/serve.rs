//! `agentctl mcp serve`: agents as MCP tools, so any MCP client (Claude Code, Gemini CLI, …)
//! can delegate to them.
//!
//! Each agent is a tool named after it whose input is `{"prompt": "..."}` and whose output is
//! the agent's final text. How an agent runs is the caller's business ([`AgentInvoker`]): the
//! CLI runs it with the runtime, tests plug in a fake.

use crate::error::{McpError, Result};
use async_trait::async_trait;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Value, json};
use std::sync::Arc;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_util::sync::CancellationToken;

/// An agent offered as an MCP tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServedAgent {
    /// Tool name: the agent's name.
    pub name: String,
    /// Tool description: the agent's description.
    pub description: String,
}

/// Runs an agent for an MCP client.
#[async_trait]
pub trait AgentInvoker: Send + Sync + 'static {
    /// Runs `agent` on `prompt` and returns its final text, or a message saying why it failed
    /// (returned to the client as a tool error). `cancel` fires when the client cancels.
    async fn invoke(
        &self,
        agent: &str,
        prompt: &str,
        cancel: CancellationToken,
    ) -> std::result::Result<String, String>;
}

struct AgentServer {
    agents: Vec<ServedAgent>,
    invoker: Arc<dyn AgentInvoker>,
}

fn input_schema() -> Arc<serde_json::Map<String, Value>> {
    let schema = json!({
        "type": "object",
        "properties": {
            "prompt": {"type": "string", "description": "The task or question for the agent."}
        },
        "required": ["prompt"]
    });
    Arc::new(match schema {
        Value::Object(map) => map,
        _ => serde_json::Map::new(),
    })
}

impl ServerHandler for AgentServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("agentctl", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Each tool is an agentctl agent: give it a prompt, it returns the agent's final answer.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<ListToolsResult, ErrorData> {
        let schema = input_schema();
        Ok(ListToolsResult::with_all_items(
            self.agents
                .iter()
                .map(|agent| {
                    rmcp::model::Tool::new(
                        agent.name.clone(),
                        agent.description.clone(),
                        Arc::clone(&schema),
                    )
                })
                .collect(),
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> std::result::Result<CallToolResponse, ErrorData> {
        let Some(agent) = self.agents.iter().find(|agent| agent.name == request.name) else {
            return Err(ErrorData::invalid_params(
                format!("no agent named `{}`", request.name),
                None,
            ));
        };
        let prompt = request
            .arguments
            .as_ref()
            .and_then(|args| args.get("prompt"))
            .and_then(Value::as_str);
        let Some(prompt) = prompt else {
            return Err(ErrorData::invalid_params(
                "`prompt` (a string) is required",
                None,
            ));
        };
        let result = match self.invoker.invoke(&agent.name, prompt, context.ct).await {
            Ok(text) => CallToolResult::success(vec![ContentBlock::text(text)]),
            Err(message) => CallToolResult::error(vec![ContentBlock::text(message)]),
        };
        Ok(CallToolResponse::Complete(result))
    }
}

/// Serves agents as MCP tools over a byte stream until the client disconnects.
pub async fn serve_agents<R, W>(
    agents: Vec<ServedAgent>,
    invoker: Arc<dyn AgentInvoker>,
    reader: R,
    writer: W,
) -> Result<()>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    let server = AgentServer { agents, invoker };
    let running = server
        .serve((reader, writer))
        .await
        .map_err(|error| McpError::Serve(format!("handshake failed: {error}")))?;
    running
        .waiting()
        .await
        .map_err(|error| McpError::Serve(error.to_string()))?;
    Ok(())
}

/// Serves agents as MCP tools on standard input and output (what `agentctl mcp serve` does).
pub async fn serve_agents_stdio(
    agents: Vec<ServedAgent>,
    invoker: Arc<dyn AgentInvoker>,
) -> Result<()> {
    serve_agents(agents, invoker, tokio::io::stdin(), tokio::io::stdout()).await
}
