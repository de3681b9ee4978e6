//! `mcp list`, `mcp tools`, `mcp call`, `mcp resources`, `mcp prompts`.
//!
//! A server chooses every name, description, result and message these print: in text output
//! each goes through [`terminal_safe`], as `run` shows tool output, so a server cannot set the
//! window title, clear the screen, rewrite a line or reorder it with bidi controls. JSON output
//! (`--format json`) keeps the raw text.

use crate::args::mcp::{CallArgs, ListArgs, PromptsArgs, ResourcesArgs, ToolsArgs};
use crate::args::{TableFormat, TextFormat};
use crate::output::{print_json, terminal_safe};
use agentctl_session::mcp::{McpManager, McpToolInfo};
use anyhow::Context as _;
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::Write as _;
use std::process::ExitCode;

pub(super) async fn list(manager: &McpManager, args: &ListArgs) -> anyhow::Result<ExitCode> {
    let status = manager.status().await;
    if args.format == TableFormat::Json {
        print_json(&status)?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = std::io::stdout().lock();
    if status.is_empty() {
        writeln!(
            out,
            "No MCP servers configured (settings `mcpServers`); see `agentctl config show`."
        )?;
        return Ok(ExitCode::SUCCESS);
    }
    let width = status
        .iter()
        .map(|s| terminal_safe(&s.name).len())
        .max()
        .unwrap_or(4)
        .max(4);
    writeln!(
        out,
        "{:width$}  {:9}  {:9}  {:>5}  ERROR",
        "NAME", "TRANSPORT", "STATUS", "TOOLS"
    )?;
    for server in &status {
        let error = server.error.as_deref().unwrap_or("");
        // Keep the table to one line per server; JSON has the full message.
        let error = terminal_safe(error.lines().next().unwrap_or(""));
        writeln!(
            out,
            "{:width$}  {:9}  {:9}  {:>5}  {error}",
            terminal_safe(&server.name),
            server.transport,
            server.status,
            server.tools
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

pub(super) async fn tools(manager: &McpManager, args: &ToolsArgs) -> anyhow::Result<ExitCode> {
    let servers = match &args.server {
        Some(server) => vec![server.clone()],
        None => manager.server_names(),
    };
    let mut infos: Vec<McpToolInfo> = Vec::new();
    let mut failed = false;
    for server in &servers {
        match manager.tools(server).await {
            Ok(tools) => infos.extend(tools.iter().map(|tool| tool.info().clone())),
            // One server: its failure is the command's. Several: warn and go on.
            Err(error) if args.server.is_some() => return Err(error.into()),
            Err(error) => {
                failed = true;
                crate::output::print_error(&anyhow::anyhow!("{error}"));
            }
        }
    }
    if args.format == TableFormat::Json {
        print_json(&infos)?;
    } else {
        let mut out = std::io::stdout().lock();
        let width = infos
            .iter()
            .map(|t| terminal_safe(&t.name).len())
            .max()
            .unwrap_or(4)
            .max(4);
        writeln!(out, "{:width$}  {:8}  DESCRIPTION", "TOOL", "RISK")?;
        for tool in &infos {
            let description = terminal_safe(tool.description.lines().next().unwrap_or(""));
            writeln!(
                out,
                "{:width$}  {:8}  {description}",
                terminal_safe(&tool.name),
                tool.risk.as_str()
            )?;
        }
    }
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

pub(super) async fn call(manager: &McpManager, args: &CallArgs) -> anyhow::Result<ExitCode> {
    let arguments: Value = serde_json::from_str(&args.args)
        .with_context(|| format!("the arguments are not valid JSON: {}", args.args))?;
    anyhow::ensure!(
        arguments.is_object(),
        "the arguments must be a JSON object, like '{{\"message\": \"hi\"}}'"
    );
    let prefix = format!(
        "mcp.{}.",
        agentctl_session::mcp::sanitize_name(&args.server)
    );
    let tool = args.tool.strip_prefix(&prefix).unwrap_or(&args.tool);
    let outcome = manager.call_tool(&args.server, tool, arguments).await?;
    if args.format == TextFormat::Json {
        print_json(&outcome)?;
    } else if outcome.is_error {
        // `print_error` makes the message terminal-safe.
        crate::output::print_error(&anyhow::anyhow!(
            "tool `{tool}` of `{}` failed: {}",
            args.server,
            outcome.text
        ));
    } else {
        writeln!(std::io::stdout().lock(), "{}", terminal_safe(&outcome.text))?;
    }
    Ok(if outcome.is_error {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

pub(super) async fn resources(
    manager: &McpManager,
    args: &ResourcesArgs,
) -> anyhow::Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    if let Some(uri) = &args.read {
        let contents = manager.read_resource(&args.server, uri).await?;
        if args.format == TableFormat::Json {
            print_json(&contents)?;
        } else {
            for part in &contents {
                let uri = terminal_safe(&part.uri);
                match (&part.text, &part.blob) {
                    (Some(text), _) => writeln!(out, "{}", terminal_safe(text))?,
                    (None, Some(blob)) => writeln!(
                        out,
                        "[binary {uri} {}, {} bytes of base64; use --format json]",
                        terminal_safe(part.mime_type.as_deref().unwrap_or("")),
                        blob.len()
                    )?,
                    (None, None) => writeln!(out, "[empty {uri}]")?,
                }
            }
        }
        return Ok(ExitCode::SUCCESS);
    }
    let resources = manager.list_resources(&args.server).await?;
    if args.format == TableFormat::Json {
        print_json(&resources)?;
        return Ok(ExitCode::SUCCESS);
    }
    let width = resources
        .iter()
        .map(|r| terminal_safe(&r.uri).len())
        .max()
        .unwrap_or(3)
        .max(3);
    writeln!(out, "{:width$}  NAME", "URI")?;
    for resource in &resources {
        writeln!(
            out,
            "{:width$}  {}",
            terminal_safe(&resource.uri),
            terminal_safe(&resource.name)
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

pub(super) async fn prompts(manager: &McpManager, args: &PromptsArgs) -> anyhow::Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    if let Some(name) = &args.get {
        let mut arguments = BTreeMap::new();
        for pair in &args.args {
            let (key, value) = pair
                .split_once('=')
                .with_context(|| format!("--arg {pair}: expected KEY=VALUE"))?;
            arguments.insert(key.to_owned(), value.to_owned());
        }
        let messages = manager.get_prompt(&args.server, name, arguments).await?;
        if args.format == TableFormat::Json {
            print_json(&messages)?;
        } else {
            for message in &messages {
                writeln!(
                    out,
                    "[{}]\n{}\n",
                    terminal_safe(&message.role),
                    terminal_safe(&message.text)
                )?;
            }
        }
        return Ok(ExitCode::SUCCESS);
    }
    let prompts = manager.list_prompts(&args.server).await?;
    if args.format == TableFormat::Json {
        print_json(&prompts)?;
        return Ok(ExitCode::SUCCESS);
    }
    let width = prompts
        .iter()
        .map(|p| terminal_safe(&p.name).len())
        .max()
        .unwrap_or(6)
        .max(6);
    writeln!(out, "{:width$}  {:24}  DESCRIPTION", "PROMPT", "ARGUMENTS")?;
    for prompt in &prompts {
        let arguments: Vec<String> = prompt
            .arguments
            .iter()
            .map(|a| {
                let name = terminal_safe(&a.name);
                if a.required {
                    name.into_owned()
                } else {
                    format!("[{name}]")
                }
            })
            .collect();
        writeln!(
            out,
            "{:width$}  {:24}  {}",
            terminal_safe(&prompt.name),
            arguments.join(" "),
            terminal_safe(prompt.description.as_deref().unwrap_or(""))
        )?;
    }
    Ok(ExitCode::SUCCESS)
}
