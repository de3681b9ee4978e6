//! The checks of one agent: syntax and field values here, then the semantic checks the
//! program registered ([`Checks`]), assembled into a [`ValidationReport`].

use crate::declared_check;
use crate::discovery::Discovery;
use crate::error::{Diagnostic, Severity};
use crate::memory_check;
use crate::parse::LoadedAgent;
use crate::regex_check::regex_error;
use crate::report::{Check, ValidationReport};
use crate::semantic::{CheckStage, Checks};
use crate::suggest;
use agentctl_core::{
    BUILTIN_TOOLS, ContextMode, HANDOFF_TOOL_PREFIX, Hint, KnownTool, MEMORY_GET_TOOL,
    MEMORY_SET_TOOL, ModelCatalogue, ModelError, ModelRef, RECALL_TOOL, REMEMBER_TOOL, Settings,
    SourceFormat, is_known_tool, resolve_model,
};

/// Runs every check on `agent` against `settings` (model aliases, providers, MCP servers):
/// the syntactic ones, then `checks`' semantic ones in their order.
///
/// ```
/// use agentctl_core::{Scope, Settings, SourceFormat};
/// use agentctl_definitions::Checks;
/// use std::path::Path;
///
/// let text = "---\nname: helper\ndescription: Helps\nmodel: vllm:qwen\ntools: [read_file, todo_write]\n---\nHelp.\n";
/// let agent = agentctl_definitions::parse_str(text, Path::new("helper.md"), SourceFormat::Native, Scope::Project)?;
/// let report = agentctl_definitions::validate(&agent, &Settings::default(), &Checks::new());
/// assert!(!report.valid);
/// let model = report.checks.iter().find(|c| c.name == "model resolvable").unwrap();
/// assert!(model.diagnostics[0].to_string().starts_with("helper.md:4:1: field `model`: unknown provider `vllm`"));
/// // An agentctl file's allow list naming a tool nothing has is an error too.
/// let tools = report.checks.iter().find(|c| c.name == "tools exist").unwrap();
/// assert!(!tools.passed);
/// assert!(tools.diagnostics[0].to_string().contains("unknown tool `todo_write`"));
/// # Ok::<(), agentctl_definitions::DefinitionError>(())
/// ```
pub fn validate(agent: &LoadedAgent, settings: &Settings, checks: &Checks) -> ValidationReport {
    validate_among(agent, settings, checks, None)
}

impl Discovery {
    /// [`validate`](crate::validate) with the other discovered agents known to `checks`: a
    /// graph agent's `graph valid` check also says which nodes name an agent that is missing,
    /// cannot run, or is itself a graph. This is what `agents validate` runs.
    pub fn validate(
        &self,
        agent: &LoadedAgent,
        settings: &Settings,
        checks: &Checks,
    ) -> ValidationReport {
        validate_among(agent, settings, checks, Some(self))
    }
}

/// Every check; `agents` are the other agents, when known.
fn validate_among(
    agent: &LoadedAgent,
    settings: &Settings,
    checks: &Checks,
    agents: Option<&Discovery>,
) -> ValidationReport {
    let mut report = vec![
        Check::new("front matter parses", agent.warnings.clone(), None),
        required_fields(agent),
        field_values(agent, checks),
        model_resolvable(agent, settings),
        tools_exist(agent, settings),
        mcp_configured(agent, settings),
        prompt_not_empty(agent),
    ];
    report.extend(checks.run(agent, CheckStage::Validate { settings, agents }));
    let source = &agent.definition.source;
    ValidationReport {
        name: agent.name().to_owned(),
        path: source.path.clone(),
        format: Some(source.format),
        format_reason: agent
            .in_foreign_folder()
            .then(|| agent.format_reason().to_owned()),
        scope: Some(source.scope),
        valid: report.iter().all(|c| c.passed),
        checks: report,
    }
}

/// The errors that make an agent unrunnable whatever the settings: an invalid name, field
/// values out of range, an empty prompt, and what `checks` find at [`CheckStage::Load`].
/// Discovery keeps agents with such errors out of [`Discovery::agents`]. Checks that depend
/// on the settings (model, MCP servers) are left to [`validate`] and to the run itself.
pub(crate) fn definition_errors(agent: &LoadedAgent, checks: &Checks) -> Vec<Diagnostic> {
    // The prompt comes last: a graph agent (the only one a graph check finds errors in) never
    // has an empty-prompt error, so the order is the one the checks had in this crate.
    let mut all = vec![required_fields(agent), field_values(agent, checks)];
    all.extend(checks.run(agent, CheckStage::Load));
    all.push(prompt_not_empty(agent));
    all.into_iter()
        .flat_map(|check| check.diagnostics)
        .filter(|diagnostic| diagnostic.severity == Severity::Error)
        .collect()
}

/// The errors of `agent` among the other discovered agents ([`CheckStage::Discovered`]).
pub(crate) fn discovered_errors(
    agent: &LoadedAgent,
    checks: &Checks,
    found: &Discovery,
) -> Vec<Diagnostic> {
    checks
        .run(agent, CheckStage::Discovered(found))
        .into_iter()
        .flat_map(|check| check.diagnostics)
        .filter(|diagnostic| diagnostic.severity == Severity::Error)
        .collect()
}

/// `code-reviewer`: lowercase letters and digits in words joined by single hyphens.
pub(crate) fn is_kebab_case(name: &str) -> bool {
    !name.is_empty()
        && name.split('-').all(|word| {
            !word.is_empty()
                && word
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        })
}

fn required_fields(agent: &LoadedAgent) -> Check {
    let spec = &agent.definition.spec;
    let format = agent.definition.source.format;
    let mut out = Vec::new();
    let name = agent.own_name();
    // Gemini CLI names may contain underscores (`codebase_investigator`).
    let slug = if format == SourceFormat::Gemini {
        name.replace('_', "-")
    } else {
        name.to_owned()
    };
    // Claude Code documents names as lowercase letters and hyphens, Gemini CLI as a slug of
    // lowercase letters, digits, hyphens and underscores: an invalid name is an error in every
    // format (the agent could not be called by it reliably).
    if !is_kebab_case(&slug) || name.len() > 64 {
        let allowed = if format == SourceFormat::Gemini {
            "lowercase letters, digits, hyphens and underscores"
        } else {
            "lowercase letters, digits and hyphens"
        };
        out.push(agent.diagnostic(
            Severity::Error,
            "name",
            format!(
                "`{name}` is not a valid name: use kebab-case ({allowed}, up to 64 characters)"
            ),
        ));
    }
    // `agentctl chat` records the main conversation under this name (agentctl-session's
    // `MAIN_AGENT`); an agent of the same name would be indistinguishable in the timeline.
    if name == "main" {
        out.push(agent.diagnostic(
            Severity::Warning,
            "name",
            "`main` is the name of the main conversation (`agentctl chat`) in the session \
             timeline: pick another name so the two can be told apart",
        ));
    }
    if spec
        .description
        .as_deref()
        .is_none_or(|d| d.trim().is_empty())
    {
        out.push(agent.diagnostic(
            Severity::Warning,
            "description",
            "no description: routers and other agents cannot tell when to use this one",
        ));
    }
    Check::new("required fields", out, None)
}

/// `contextFilter` only shapes what an agent sees of the main conversation: on an agent that
/// does not share it, say so; a `recent` of 0 lets nothing through.
fn context_filter(agent: &LoadedAgent, out: &mut Vec<Diagnostic>) {
    let spec = &agent.definition.spec;
    let Some(filter) = &spec.context_filter else {
        return;
    };
    if let Some(mode) = spec
        .context_mode
        .filter(|mode| *mode != ContextMode::Shared)
    {
        out.push(agent.diagnostic(
            Severity::Warning,
            "contextFilter",
            format!("`contextFilter` applies to the main conversation a shared agent sees; this agent is `contextMode: {mode}`, so it has no effect"),
        ));
    }
    if filter.recent == Some(0) {
        out.push(agent.diagnostic(
            Severity::Error,
            "contextFilter.recent",
            "`recent: 0` lets no message through; use `contextMode: run` for an agent that sees none",
        ));
    }
}

/// Trigger patterns that are not regular expressions, each located.
fn trigger_patterns(agent: &LoadedAgent, out: &mut Vec<Diagnostic>) {
    let spec = &agent.definition.spec;
    for (i, trigger) in spec.triggers.iter().enumerate() {
        for (j, pattern) in trigger.regex.iter().enumerate() {
            if let Some(reason) = regex_error(pattern) {
                let reason = reason
                    .lines()
                    .rev()
                    .find(|l| !l.trim().is_empty())
                    .unwrap_or("invalid");
                out.push(agent.diagnostic(
                    Severity::Error,
                    &format!("triggers[{i}].regex[{j}]"),
                    format!(
                        "invalid regular expression `{pattern}`: {}",
                        reason.trim_start_matches("error: ")
                    ),
                ));
            }
        }
    }
}

fn field_values(agent: &LoadedAgent, checks: &Checks) -> Check {
    let spec = &agent.definition.spec;
    let mut out = Vec::new();
    trigger_patterns(agent, &mut out);
    for (i, handoff) in spec.handoffs.iter().enumerate() {
        if handoff.to.trim().is_empty() {
            out.push(agent.diagnostic(
                Severity::Error,
                &format!("handoffs[{i}].to"),
                "hand-off target is empty: name the agent to hand over to",
            ));
        } else if handoff.to == spec.name {
            out.push(agent.diagnostic(
                Severity::Warning,
                &format!("handoffs[{i}].to"),
                "the agent hands off to itself",
            ));
        }
    }
    out.extend(checks.field_values(agent));
    context_filter(agent, &mut out);
    memory_check::long_term_values(agent, &mut out);
    if let Some(rate) = spec.tracing.as_ref().and_then(|t| t.sample_rate)
        && !(0.0..=1.0).contains(&rate)
    {
        let field = agent.exact_field(&["tracing.sampleRate", "tracing.sample_rate"]);
        out.push(agent.diagnostic(
            Severity::Error,
            field,
            format!("sample rate {rate} is outside 0..=1"),
        ));
    }
    if let Some(temperature) = spec.temperature
        && !(0.0..=2.0).contains(&temperature)
    {
        let problem = if temperature.is_finite() {
            format!("temperature {temperature} is outside 0..=2")
        } else {
            // `.nan`, `.inf`, or a number too large for a float (`1e40`).
            format!("temperature {temperature} is not a number from 0 to 2")
        };
        out.push(agent.diagnostic(Severity::Error, "temperature", problem));
    }
    // `local` and `remote` are Gemini CLI's kinds, met in files of mixed folders.
    if let Some(kind) = spec.kind.as_deref()
        && !matches!(kind, "agent" | "local" | "remote")
    {
        out.push(agent.diagnostic(
            Severity::Warning,
            "kind",
            format!("unknown kind `{kind}`: expected `agent` (or Gemini CLI's `local`/`remote`); the file is read as an agent"),
        ));
    }
    if spec.max_turns == Some(0) {
        out.push(agent.diagnostic(
            Severity::Error,
            "maxTurns",
            "maxTurns is 0: the agent could never answer",
        ));
    }
    budgets(agent, &mut out);
    Check::new("field values", out, None)
}

/// `maxTokens` and `maxCost` that no run could stay under.
fn budgets(agent: &LoadedAgent, out: &mut Vec<Diagnostic>) {
    let spec = &agent.definition.spec;
    if spec.max_tokens == Some(0) {
        out.push(agent.diagnostic(
            Severity::Error,
            "maxTokens",
            "maxTokens is 0: the agent could never answer",
        ));
    }
    if let Some(cost) = spec
        .max_cost
        .filter(|cost| !(cost.is_finite() && *cost > 0.0))
    {
        out.push(agent.diagnostic(
            Severity::Error,
            "maxCost",
            format!("maxCost {cost} is not a positive number of US dollars"),
        ));
    }
}

fn model_resolvable(agent: &LoadedAgent, settings: &Settings) -> Check {
    let mut check = chat_model_resolvable(agent, settings);
    let (diagnostics, embeddings) = memory_check::embedding_model(agent, settings);
    check.diagnostics.extend(diagnostics);
    let note = match (check.note, embeddings) {
        (Some(note), Some(model)) => Some(format!("{note}; embeddings: {model}")),
        (note, _) => note,
    };
    Check::new(check.name, check.diagnostics, note)
}

fn chat_model_resolvable(agent: &LoadedAgent, settings: &Settings) -> Check {
    let Some(model) = agent.definition.spec.model.as_deref() else {
        let note = match &settings.agents.default_model {
            _ if agent.definition.spec.graph.is_some() => {
                "graph agent: each node's agent uses its own model".to_owned()
            }
            Some(default) => format!("no model: uses the default `{default}`"),
            None => {
                // What `agentctl run NAME` would say; as a `task` sub-agent it still runs on
                // its caller's model, so this is a warning, not an error.
                let mut warning = agent.diagnostic(
                    Severity::Warning,
                    "model",
                    "no model resolvable (as a `task` sub-agent it uses its caller's model): a \
                     run of it fails; set `model:` here or `agents.defaultModel` in settings",
                );
                warning.hint = Some(Hint::ChooseModel);
                return Check::new("model resolvable", vec![warning], None);
            }
        };
        return Check::new("model resolvable", Vec::new(), Some(note));
    };
    match resolve_model(model, settings, None) {
        Ok(resolved) => Check::new(
            "model resolvable",
            unknown_model(agent, settings, &resolved)
                .into_iter()
                .chain(crate::effort_check::effort_on_model(agent, &resolved))
                .collect(),
            Some(resolved.to_string()),
        ),
        Err(ModelError::NothingToInherit) => Check::new(
            "model resolvable",
            Vec::new(),
            Some("`inherit`: uses the caller's model".to_owned()),
        ),
        Err(error) => Check::new(
            "model resolvable",
            vec![agent.diagnostic(Severity::Error, "model", error.to_string())],
            None,
        ),
    }
}

/// A warning when `model` is not in the catalogue of its provider (a typo, or a model newer
/// than the catalogue: it runs all the same). Providers the catalogue does not cover, or that
/// the settings configure themselves (a proxy may serve other models), are not checked.
fn unknown_model(agent: &LoadedAgent, settings: &Settings, model: &ModelRef) -> Option<Diagnostic> {
    let catalogue = ModelCatalogue::builtin();
    if settings.providers.contains_key(&model.provider)
        || catalogue.knows(&model.provider, &model.model)
    {
        return None;
    }
    let known = catalogue.models(&model.provider)?;
    let hint = suggest::similar(&model.model, known.iter().copied())
        .first()
        .map(|best| format!("did you mean `{best}`? "))
        .unwrap_or_default();
    Some(agent.diagnostic(
        Severity::Warning,
        "model",
        format!(
            "`{}` is not among the {} models agentctl knows ({hint}known as of {}: {}); a \
             model newer than that list runs all the same",
            model.model,
            model.provider,
            catalogue.updated,
            known.join(", ")
        ),
    ))
}

fn tools_exist(agent: &LoadedAgent, settings: &Settings) -> Check {
    let spec = &agent.definition.spec;
    let lists = [
        (
            "tools.allow",
            spec.tools.allow.as_deref().unwrap_or_default(),
        ),
        ("tools.deny", &spec.tools.deny[..]),
    ];
    let mut out = Vec::new();
    let declares_memory = spec
        .memory
        .as_ref()
        .is_some_and(|memory| !memory.session.is_empty());
    for (list, tools) in lists {
        for (i, tool) in tools.iter().enumerate() {
            let field = format!("{list}[{i}]");
            match is_known_tool(tool) {
                KnownTool::Builtin | KnownTool::Pattern => {}
                KnownTool::Mcp { server } => {
                    let known = settings.mcp_servers.contains_key(&server)
                        || spec.mcp.inline.contains_key(&server)
                        || spec.mcp.servers.contains(&server);
                    if !known {
                        out.push(agent.diagnostic(
                            Severity::Warning,
                            &field,
                            format!("tool `{tool}` belongs to MCP server `{server}`, which is neither in settings `mcpServers` nor defined in the agent"),
                        ));
                    }
                }
                KnownTool::Unknown if tool.starts_with(HANDOFF_TOOL_PREFIX) => {
                    if let Some(problem) = declared_check::undeclared_handoff_tool(agent, tool) {
                        out.push(agent.diagnostic(Severity::Warning, &field, problem));
                    }
                }
                KnownTool::Unknown if is_long_term_tool(tool) => {
                    if !memory_check::declares_long_term(agent) {
                        out.push(agent.diagnostic(
                            Severity::Warning,
                            &field,
                            format!("`{tool}` is only offered to agents that declare `memory.longTerm`; this one does not"),
                        ));
                    }
                }
                KnownTool::Unknown if is_memory_tool(tool) => {
                    if !declares_memory {
                        out.push(agent.diagnostic(
                            Severity::Warning,
                            &field,
                            format!("`{tool}` is only offered to agents that declare `memory.session` keys; this one declares none"),
                        ));
                    }
                }
                KnownTool::Unknown => out.push(unknown_tool(agent, list, &field, tool)),
            }
        }
    }
    out.extend(declared_check::denied_declarations(agent));
    Check::new("tools exist", out, None)
}

/// A tool name nothing here has. In an agentctl file's `tools.allow` it is an error (a typo
/// leaves the agent without a tool it was written for); in a deny list, or in a Claude Code or
/// Gemini CLI file (written for another tool's names), a warning.
fn unknown_tool(agent: &LoadedAgent, list: &str, field: &str, tool: &str) -> Diagnostic {
    let hint = suggest::similar(tool, BUILTIN_TOOLS.iter().copied())
        .first()
        .map(|best| format!(" (did you mean `{best}`?)"))
        .unwrap_or_default();
    let native = agent.definition.source.format == SourceFormat::Native;
    if native && list == "tools.allow" {
        return agent.diagnostic(
            Severity::Error,
            field,
            format!("unknown tool `{tool}`{hint}: no built-in tool has this name; name a built-in tool, an MCP tool (`mcp.<server>.<tool>`) or a pattern"),
        );
    }
    agent.diagnostic(
        Severity::Warning,
        field,
        format!(
            "unknown tool `{tool}`{hint}: no built-in tool has this name; it will be unavailable"
        ),
    )
}

fn is_memory_tool(name: &str) -> bool {
    name == MEMORY_GET_TOOL || name == MEMORY_SET_TOOL
}

/// True for `remember` and `recall`.
fn is_long_term_tool(name: &str) -> bool {
    name == REMEMBER_TOOL || name == RECALL_TOOL
}

fn mcp_configured(agent: &LoadedAgent, settings: &Settings) -> Check {
    let mcp = &agent.definition.spec.mcp;
    let mut out = Vec::new();
    for (i, server) in mcp.servers.iter().enumerate() {
        if !settings.mcp_servers.contains_key(server) && !mcp.inline.contains_key(server) {
            let mut configured: Vec<&str> =
                settings.mcp_servers.keys().map(String::as_str).collect();
            configured.extend(mcp.inline.keys().map(String::as_str));
            let known = if configured.is_empty() {
                "none is configured".to_owned()
            } else {
                format!("configured: {}", configured.join(", "))
            };
            out.push(agent.diagnostic(
                Severity::Error,
                &format!("mcp.servers[{i}]"),
                format!("MCP server `{server}` is not configured: add it to settings `mcpServers` or define it inline ({known})"),
            ));
        }
    }
    for (name, config) in &mcp.inline {
        if config.command.is_none() && config.url.is_none() && config.http_url.is_none() {
            out.push(agent.diagnostic(
                Severity::Error,
                &format!("mcp.inline.{name}"),
                format!("inline MCP server `{name}` has no `command`, `url` or `httpUrl`"),
            ));
        }
    }
    let note =
        (!mcp.is_empty()).then(|| format!("{} server(s)", mcp.servers.len() + mcp.inline.len()));
    Check::new("MCP servers configured", out, note)
}

fn prompt_not_empty(agent: &LoadedAgent) -> Check {
    if !agent.definition.system_prompt.trim().is_empty() {
        return Check::new("prompt not empty", Vec::new(), None);
    }
    if agent.definition.spec.graph.is_some() {
        let note = "graph agent: each node's agent has its own prompt".to_owned();
        return Check::new("prompt not empty", Vec::new(), Some(note));
    }
    let severity = if agent.is_remote() {
        Severity::Warning
    } else {
        Severity::Error
    };
    let mut diagnostic = agent.diagnostic(severity, "", "the system prompt is empty");
    diagnostic.field = None;
    Check::new("prompt not empty", vec![diagnostic], None)
}

#[cfg(test)]
mod tests;
