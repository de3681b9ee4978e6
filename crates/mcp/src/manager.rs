//! [`McpManager`]: the one owner of every MCP client.
//!
//! Servers start lazily, the first time an agent (or a command) needs them; the servers one
//! agent needs start concurrently. Each connection lists its tools once. A server that fails
//! to start, times out or dies is reported as an error naming it, and the next use tries to
//! connect again. [`McpManager::shutdown`] (or dropping the last clone) stops every child
//! process.

mod project_servers;

use crate::config::{ServerSpec, TransportSpec, resolve_server};
use crate::connection::Connection;
use crate::error::{McpError, Result};
use crate::names::qualified_names;
use crate::process::LaunchPolicy;
use crate::render::{
    CallOutcome, PromptInfo, PromptMessageInfo, ResourceContent, ResourceInfo, call_outcome,
    prompt_info, prompt_message, resource_content, resource_info,
};
use crate::tool::{McpTool, McpToolInfo, ServerCalls};
use agentctl_core::{AgentDefinition, KnownTool, McpServerConfig, Scope, Settings, is_known_tool};
use agentctl_core::{Tool, ToolFilter};
use agentctl_sandbox::SandboxPolicy;
use futures_util::future::join_all;
use rmcp::model::{CallToolRequestParams, GetPromptRequestParams, ReadResourceRequestParams};
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

/// Owns the connections to every configured MCP server. Cheap to clone; clones share the
/// connections.
///
/// ```no_run
/// # async fn demo(settings: agentctl_core::Settings, agent: agentctl_core::AgentDefinition) {
/// let manager = agentctl_mcp::McpManager::from_settings(&settings, std::path::Path::new("."));
/// let (tools, warnings) = manager.tools_for_agent(&agent).await;
/// for warning in &warnings {
///     eprintln!("warning: {warning}");
/// }
/// // register `tools` with the runtime, run the agent, then:
/// manager.shutdown().await;
/// # }
/// ```
#[derive(Clone)]
pub struct McpManager {
    inner: Arc<Inner>,
}

struct Inner {
    base_dir: PathBuf,
    launch: LaunchPolicy,
    configs: Mutex<BTreeMap<String, McpServerConfig>>,
    /// Keys of the inline servers of the project's own agent files.
    project_inline: Mutex<BTreeSet<String>>,
    /// The settings file of each configured server, for errors.
    sources: BTreeMap<String, PathBuf>,
    slots: Mutex<HashMap<String, Arc<tokio::sync::Mutex<Slot>>>>,
}

#[derive(Default)]
enum Slot {
    #[default]
    Idle,
    Connected(Arc<Connection>),
    Failed,
}

/// State of one server, as `agentctl mcp list` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerStatus {
    /// Server name.
    pub name: String,
    /// `stdio`, `http`, or `invalid` when the configuration cannot be resolved.
    pub transport: String,
    /// `connected`, `failed` or `idle` (never started).
    pub status: String,
    /// Number of tools exposed (after `includeTools` / `excludeTools`).
    pub tools: usize,
    /// Why the server is not connected.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl std::fmt::Debug for McpManager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpManager")
            .field("servers", &self.server_names())
            .finish_non_exhaustive()
    }
}

impl McpManager {
    /// A manager for these servers. Relative `cwd`s, and the working directory of stdio servers
    /// that set none, are resolved against `working_dir` (the project root for the CLI).
    /// Stdio servers start with the [default](LaunchPolicy::default) launch policy: the MCP
    /// SDKs' default environment, no sandbox.
    pub fn new(
        servers: BTreeMap<String, McpServerConfig>,
        working_dir: impl Into<PathBuf>,
    ) -> Self {
        Self::with_launch(servers, working_dir, LaunchPolicy::default())
    }

    /// [`McpManager::new`] with stdio servers started under `launch` (their environment and
    /// sandbox).
    pub fn with_launch(
        servers: BTreeMap<String, McpServerConfig>,
        working_dir: impl Into<PathBuf>,
        launch: LaunchPolicy,
    ) -> Self {
        Self {
            inner: Arc::new(Inner {
                base_dir: working_dir.into(),
                launch,
                configs: Mutex::new(servers),
                project_inline: Mutex::new(BTreeSet::new()),
                sources: BTreeMap::new(),
                slots: Mutex::new(HashMap::new()),
            }),
        }
    }

    /// A manager for the settings' `mcpServers`, started as `env.passthrough` and
    /// `sandbox.mcpServers` say.
    pub fn from_settings(settings: &Settings, working_dir: &Path) -> Self {
        Self::with_launch(
            settings.mcp_servers.clone(),
            working_dir,
            LaunchPolicy::from_settings(settings),
        )
    }

    /// Names of the configured servers (settings and inline servers seen so far), sorted.
    pub fn server_names(&self) -> Vec<String> {
        self.configs().keys().cloned().collect()
    }

    /// The same manager, naming in its errors the settings file of each server in `sources`
    /// (by server name). Call it before the manager is shared.
    pub fn with_sources(mut self, sources: BTreeMap<String, PathBuf>) -> Self {
        if let Some(inner) = Arc::get_mut(&mut self.inner) {
            inner.sources = sources;
        }
        self
    }

    /// A server's configuration with `${VAR}` expanded.
    pub fn server_spec(&self, server: &str) -> Result<ServerSpec> {
        let config = self.config(server)?;
        resolve_server(server, &config, &self.inner.base_dir).map_err(|error| self.located(error))
    }

    /// `error` naming the file of its server, when known.
    fn located(&self, error: McpError) -> McpError {
        match error {
            McpError::MissingVariable {
                server,
                file: None,
                field,
                variable,
            } => McpError::MissingVariable {
                file: self.inner.sources.get(&server).cloned(),
                server,
                field,
                variable,
            },
            other => other,
        }
    }

    /// The MCP tools an agent may use, and a warning (an error naming the server and cause)
    /// for every server it names that could not be used.
    ///
    /// Starts, concurrently, only the servers the agent names: in `mcp.servers`, inline in its
    /// file (Claude `mcpServers`, Gemini `mcp_servers`) or in `tools.allow` entries of the form
    /// `mcp.<server>.<tool>`. The tools are filtered by the servers' `includeTools` /
    /// `excludeTools` and by the agent's `tools.allow` / `tools.deny`.
    pub async fn tools_for_agent(
        &self,
        agent: &AgentDefinition,
    ) -> (Vec<Arc<dyn Tool>>, Vec<McpError>) {
        let (tools, warnings) = self.candidate_tools_for_agent(agent).await;
        let filter = ToolFilter::for_agent(&agent.spec).unwrap_or_default();
        let tools = tools
            .into_iter()
            .filter(|tool| filter.allows(tool.name()))
            .collect();
        (tools, warnings)
    }

    /// Like [`McpManager::tools_for_agent`], but before the agent's allow and deny lists are
    /// applied (for listings that show denied tools too, such as `agents tools --all`).
    pub async fn candidate_tools_for_agent(
        &self,
        agent: &AgentDefinition,
    ) -> (Vec<Arc<dyn Tool>>, Vec<McpError>) {
        let servers = self.register_agent(agent);
        let results = join_all(
            servers
                .iter()
                .map(|(name, key)| self.tools_with_key(name, key)),
        )
        .await;
        let mut tools: Vec<Arc<dyn Tool>> = Vec::new();
        let mut warnings = Vec::new();
        for result in results {
            match result {
                Ok(server_tools) => tools.extend(
                    server_tools
                        .into_iter()
                        .map(|tool| Arc::new(tool) as Arc<dyn Tool>),
                ),
                Err(error) => warnings.push(error),
            }
        }
        (tools, warnings)
    }

    /// The servers an agent names — in `mcp.servers`, inline in its file or in `tools.allow`
    /// entries `mcp.<server>.<tool>` — as `(name, key)`: the key the manager reaches the
    /// server under. Inline servers are added to the manager (those of a project agent file
    /// are the project's).
    pub fn register_agent(&self, agent: &AgentDefinition) -> Vec<(String, String)> {
        let mut servers: Vec<(String, String)> = Vec::new();
        let mut add = |name: &str, key: String| {
            if !servers.iter().any(|(n, _)| n == name) {
                servers.push((name.to_owned(), key));
            }
        };
        for (name, config) in &agent.spec.mcp.inline {
            add(name, self.register_inline(agent, name, config));
        }
        for name in &agent.spec.mcp.servers {
            add(name, name.clone());
        }
        for entry in agent.spec.tools.allow.iter().flatten() {
            if let KnownTool::Mcp { server } = is_known_tool(entry) {
                add(&server, server.clone());
            }
        }
        servers
    }

    /// Every tool of one server (connecting it if needed), under qualified names.
    pub async fn tools(&self, server: &str) -> Result<Vec<McpTool>> {
        self.tools_with_key(server, server).await
    }

    /// Calls a tool by the name the server gives it, with JSON arguments (an object or null).
    pub async fn call_tool(&self, server: &str, tool: &str, args: Value) -> Result<CallOutcome> {
        let connection = self.connection(server).await?;
        if !connection.tools.iter().any(|t| t.name == tool) {
            return Err(McpError::UnknownTool {
                server: connection.spec.name.clone(),
                tool: tool.to_owned(),
            });
        }
        let mut params = CallToolRequestParams::new(tool.to_owned());
        match args {
            Value::Object(map) => params = params.with_arguments(map),
            Value::Null => {}
            other => {
                return Err(McpError::Protocol {
                    server: connection.spec.name.clone(),
                    operation: format!("tools/call {tool}"),
                    message: format!("arguments must be a JSON object, not {other}"),
                });
            }
        }
        let operation = format!("tools/call {tool}");
        let result = connection
            .request(&operation, connection.client.call_tool(params))
            .await;
        self.settle(server, &connection, result)
            .await
            .map(|result| call_outcome(&result))
    }

    /// Resources a server offers.
    pub async fn list_resources(&self, server: &str) -> Result<Vec<ResourceInfo>> {
        let connection = self.connection(server).await?;
        let result = connection
            .request("resources/list", connection.client.list_all_resources())
            .await;
        let resources = self.settle(server, &connection, result).await?;
        Ok(resources.iter().map(resource_info).collect())
    }

    /// Reads a resource by URI.
    pub async fn read_resource(&self, server: &str, uri: &str) -> Result<Vec<ResourceContent>> {
        let connection = self.connection(server).await?;
        let params = ReadResourceRequestParams::new(uri.to_owned());
        let result = connection
            .request("resources/read", connection.client.read_resource(params))
            .await;
        let result = self.settle(server, &connection, result).await?;
        Ok(result.contents.iter().map(resource_content).collect())
    }

    /// Prompt templates a server offers.
    pub async fn list_prompts(&self, server: &str) -> Result<Vec<PromptInfo>> {
        let connection = self.connection(server).await?;
        let result = connection
            .request("prompts/list", connection.client.list_all_prompts())
            .await;
        let prompts = self.settle(server, &connection, result).await?;
        Ok(prompts.iter().map(prompt_info).collect())
    }

    /// Renders a prompt with its arguments.
    pub async fn get_prompt(
        &self,
        server: &str,
        name: &str,
        arguments: BTreeMap<String, String>,
    ) -> Result<Vec<PromptMessageInfo>> {
        let connection = self.connection(server).await?;
        let mut params = GetPromptRequestParams::new(name.to_owned());
        if !arguments.is_empty() {
            params = params.with_arguments(
                arguments
                    .into_iter()
                    .map(|(key, value)| (key, Value::String(value)))
                    .collect(),
            );
        }
        let result = connection
            .request("prompts/get", connection.client.get_prompt(params))
            .await;
        let result = self.settle(server, &connection, result).await?;
        Ok(result.messages.iter().map(prompt_message).collect())
    }

    /// Connects every configured server concurrently and reports each one's state.
    pub async fn status(&self) -> Vec<ServerStatus> {
        let names = self.server_names();
        join_all(names.iter().map(|name| self.status_of(name))).await
    }

    /// Process id of a connected stdio server (tests and diagnostics).
    pub async fn server_pid(&self, server: &str) -> Option<u32> {
        let slot = self.slot(server);
        let slot = slot.lock().await;
        match &*slot {
            Slot::Connected(connection) => connection.pid().await,
            _ => None,
        }
    }

    /// Closes every connection and stops every server process (and its process group).
    pub async fn shutdown(&self) {
        let slots: Vec<_> = self
            .inner
            .slots
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .values()
            .cloned()
            .collect();
        join_all(slots.iter().map(|slot| async move {
            let mut slot = slot.lock().await;
            if let Slot::Connected(connection) = std::mem::take(&mut *slot) {
                connection.shutdown().await;
            }
        }))
        .await;
    }

    async fn status_of(&self, name: &str) -> ServerStatus {
        let transport = self
            .server_spec(name)
            .map_or("invalid", |spec| spec.transport.kind())
            .to_owned();
        let (status, tools, error) = match self.connection(name).await {
            Ok(connection) => ("connected", connection.tools.len(), None),
            Err(error) => ("failed", 0, Some(error.to_string())),
        };
        ServerStatus {
            name: name.to_owned(),
            transport,
            status: status.to_owned(),
            tools,
            error,
        }
    }

    async fn tools_with_key(&self, name: &str, key: &str) -> Result<Vec<McpTool>> {
        let connection = self.connection(key).await?;
        let originals: Vec<&str> = connection.tools.iter().map(|t| t.name.as_ref()).collect();
        let names = qualified_names(name, &originals);
        Ok(connection
            .tools
            .iter()
            .zip(names)
            .map(|(tool, qualified)| {
                let info = McpToolInfo::new(name, qualified, tool, connection.spec.trust);
                McpTool::new(info, key.to_owned(), Arc::new(self.clone()))
            })
            .collect())
    }

    /// Adds an agent's inline server; returns the key it is reachable under. An inline server
    /// that differs from a settings server of the same name gets a key of its own, so each
    /// agent talks to the server its own file describes.
    fn register_inline(
        &self,
        agent: &AgentDefinition,
        name: &str,
        config: &McpServerConfig,
    ) -> String {
        let mut configs = self.configs();
        let key = match configs.get(name) {
            // The same server as in settings: it is whoever's the settings entry is.
            Some(existing) if existing == config => return name.to_owned(),
            None if !self.is_project_server(name) => name.to_owned(),
            _ => format!("{name}@{}", agent.name()),
        };
        if configs.get(&key) != Some(config) {
            configs.insert(key.clone(), config.clone());
        }
        drop(configs);
        if agent.source.scope == Scope::Project {
            self.inner
                .project_inline
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .insert(key.clone());
        }
        key
    }

    /// The live connection of a server, (re)connecting when there is none or it died.
    async fn connection(&self, key: &str) -> Result<Arc<Connection>> {
        let config = self.config(key)?;
        let slot = self.slot(key);
        let mut slot = slot.lock().await;
        if let Slot::Connected(connection) = &*slot {
            if connection.is_alive().await {
                return Ok(Arc::clone(connection));
            }
            connection.shutdown().await;
        }
        let outcome = match self.prepare(key, &config) {
            Ok((spec, launch)) => {
                Connection::open(Arc::new(spec), &self.inner.base_dir, &launch).await
            }
            Err(error) => Err(error),
        };
        match outcome {
            Ok(connection) => {
                let connection = Arc::new(connection);
                *slot = Slot::Connected(Arc::clone(&connection));
                Ok(connection)
            }
            Err(error) => {
                *slot = Slot::Failed;
                Err(error)
            }
        }
    }

    /// Resolves a server's configuration and decides how it starts: a project server's
    /// files are checked against their records first (and recorded on first use).
    fn prepare(&self, key: &str, config: &McpServerConfig) -> Result<(ServerSpec, LaunchPolicy)> {
        let spec = if self.is_project_inline(key) {
            self.resolve_project_inline(key, config)?
        } else {
            resolve_server(key, config, &self.inner.base_dir)
                .map_err(|error| self.located(error))?
        };
        let project = self.is_project_server(key);
        if let (true, Some(launch)) = (project, &self.inner.launch.project) {
            launch.check(&spec, &self.inner.base_dir)?;
        }
        // `name@agent` (an agent's own variant of a server) is named `name` by the user.
        let name = key.split_once('@').map_or(key, |(name, _)| name);
        let mut launch = self.inner.launch.for_server(name, project);
        launch.sandbox = launch
            .sandbox
            .map(|policy| showing_its_programs(policy, &spec, &self.inner.base_dir, project));
        Ok((spec, launch))
    }

    /// Passes a request's result through; after an error that means the connection is no good
    /// (the server died or hung), drops the connection so the next use reconnects.
    async fn settle<T>(
        &self,
        key: &str,
        connection: &Arc<Connection>,
        result: Result<T>,
    ) -> Result<T> {
        if let Err(error) = &result
            && error.is_retryable()
        {
            let slot = self.slot(key);
            let mut slot = slot.lock().await;
            if let Slot::Connected(current) = &*slot
                && Arc::ptr_eq(current, connection)
            {
                current.shutdown().await;
                *slot = Slot::Failed;
            }
        }
        result
    }

    fn config(&self, key: &str) -> Result<McpServerConfig> {
        let configs = self.configs();
        configs
            .get(key)
            .cloned()
            .ok_or_else(|| McpError::UnknownServer {
                server: key.to_owned(),
                known: if configs.is_empty() {
                    "none".into()
                } else {
                    configs.keys().cloned().collect::<Vec<_>>().join(", ")
                },
            })
    }

    fn configs(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, McpServerConfig>> {
        self.inner
            .configs
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    fn slot(&self, key: &str) -> Arc<tokio::sync::Mutex<Slot>> {
        let mut slots = self
            .inner
            .slots
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        Arc::clone(slots.entry(key.to_owned()).or_default())
    }
}

#[async_trait::async_trait]
impl ServerCalls for McpManager {
    async fn call_server_tool(&self, key: &str, tool: &str, args: Value) -> Result<CallOutcome> {
        self.call_tool(key, tool, args).await
    }
}

/// `policy` with what a stdio server's command line names made readable in the sandbox (see
/// [`program_roots`](agentctl_sandbox::program_roots)): the package of its program, and for a
/// server the user configured also the files and folders its arguments name and its working
/// folder. A project's server gets its program only: its arguments could name `~/.ssh`.
fn showing_its_programs(
    policy: SandboxPolicy,
    spec: &ServerSpec,
    base_dir: &Path,
    project: bool,
) -> SandboxPolicy {
    let TransportSpec::Stdio {
        command, args, cwd, ..
    } = &spec.transport
    else {
        return policy;
    };
    let cwd = cwd.as_deref().unwrap_or(base_dir);
    let args: Vec<&std::ffi::OsStr> = if project {
        Vec::new()
    } else {
        args.iter().map(std::ffi::OsStr::new).collect()
    };
    let path_var = std::env::var_os("PATH");
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let mut roots = agentctl_sandbox::program_roots(
        Path::new(command),
        &args,
        cwd,
        base_dir,
        path_var.as_deref(),
        home.as_deref(),
    );
    if !project && !cwd.starts_with(base_dir) && home.as_deref() != Some(cwd) {
        roots.push(cwd.to_path_buf());
    }
    roots
        .into_iter()
        .fold(policy, SandboxPolicy::with_readable_root)
}
