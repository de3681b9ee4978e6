//! `agents create`: the wizard of seed 002 §3 (and, with `--extended`, §4.2.1), and its
//! scriptable form.
//!
//! Every question has a flag; a flag given skips its question. On a terminal the questions
//! left are asked ([`ui::Ui`]); without one (stdin or stderr not a terminal, `CI` set, or
//! `--no-input`) each takes its default, and the two answers with none — the name and the
//! description — are errors naming their flag. The front matter is then checked as
//! `agents validate` checks it, written atomically (never over an existing agent without
//! `--force` or a yes on the terminal), and the command ends with the next steps.

mod checks;
mod choices;
mod place;
mod routing;
mod template;
mod ui;
mod write;

use super::discover_agents;
use crate::args::CreateArgs;
use agentctl_core::{
    AgentSpec, ContextMode, ModelError, Scope, Settings, ToolPolicy, resolve_model,
};
use agentctl_session::Project;
use agentctl_session::definitions::{
    Discovery, TemplateContent, derive_description, is_valid_name,
};
use choices::{ModelPick, READ_ONLY_TOOLS};
use std::path::PathBuf;
use std::process::ExitCode;
use ui::{Question, Ui};

/// What `agents create` writes, once every question is answered.
struct CreateRequest {
    /// The front matter.
    spec: AgentSpec,
    /// The system prompt.
    body: String,
    /// Where it goes.
    scope: Scope,
    /// The file.
    path: PathBuf,
    /// Whether an existing file may be replaced.
    replace: bool,
    /// What the wizard changed on its own, for the user to know.
    notes: Vec<String>,
}

pub(super) fn run(context: &Project, args: CreateArgs) -> anyhow::Result<ExitCode> {
    if args.template.as_deref() == Some(template::LIST) {
        return template::list(context, args.format);
    }
    let ui = Ui::detect(args.no_input);
    let discovery = discover_agents(context);
    let request = request(context, &discovery, &ui, &args)?;
    write::finish(context, &discovery, request, args.format)
}

/// Asks what the flags did not say (or takes the defaults), in the seed's order.
fn request(
    context: &Project,
    discovery: &Discovery,
    ui: &Ui,
    args: &CreateArgs,
) -> anyhow::Result<CreateRequest> {
    let settings = &context.settings.settings;
    // An unknown template fails before any question.
    let template = args
        .template
        .as_deref()
        .map(|name| template::find(context, name))
        .transpose()?;
    ui.section(if args.extended {
        "✦ Create Extended Agent"
    } else {
        "✦ Create New Agent"
    })?;
    let name = name(ui, args)?;
    let TemplateContent { mut spec, prompt } = template::start(context, template.as_ref(), &name)?;
    spec.kind = Some("agent".to_owned());
    spec.title = title(ui, args, spec.title.take(), &name)?;
    spec.description = description(ui, args, spec.description.take())?;
    // No model chosen keeps the template's (a template file may name one).
    match model(ui, args, settings)? {
        Some(model) => spec.model = Some(model),
        None if args.model.is_some() => spec.model = None,
        None => {}
    }
    let place = place::place(ui, args, context, discovery, &name)?;
    ui.section("🔧 Tools")?;
    spec.tools = tools(ui, args, settings, spec.tools)?;
    spec.mcp.servers = mcp_servers(ui, args, settings, &spec.tools)?;
    spec.context_mode = context_mode(ui, args, settings)?;
    let agents: Vec<String> = discovery
        .agents
        .iter()
        .map(|a| a.name().to_owned())
        .collect();
    let known = routing::Known {
        agents: &agents,
        name: &name,
    };
    let ask = args.extended;
    spec.triggers = routing::triggers(ui, &args.p2, ask)?;
    spec.handoffs = routing::handoffs(ui, &args.p2, ask, &known)?;
    spec.guardrails = checks::guardrails(ui, &args.p2, ask)?;
    spec.memory = checks::memory(ui, &args.p2, ask, settings)?;
    spec.graph = routing::graph(ui, &args.p2, ask, &known)?;
    spec.tracing = checks::tracing(ui, &args.p2, ask)?;
    ui.section("")?;
    // The handoffs and memory the agent declares bring their tools whatever `tools.allow`
    // says: the allow list is written as given.
    let mut notes: Vec<String> = place.note.into_iter().collect();
    notes.extend(derive_missing_description(&mut spec, &prompt));
    notes.extend(
        spec.handoffs
            .iter()
            .filter(|handoff| !agents.contains(&handoff.to))
            .map(|handoff| {
                format!(
                    "no agent `{}` exists yet: the handoff to it fails until one does",
                    handoff.to
                )
            }),
    );
    Ok(CreateRequest {
        spec,
        body: prompt,
        scope: place.scope,
        path: place.path,
        replace: place.replace,
        notes,
    })
}

/// Gives an agent without a description one made from its title and prompt, and returns the
/// note that says so.
fn derive_missing_description(spec: &mut AgentSpec, prompt: &str) -> Option<String> {
    if spec.description.is_some() {
        return None;
    }
    let title = spec
        .title
        .clone()
        .unwrap_or_else(|| choices::title_case(&spec.name));
    let derived = derive_description(&title, prompt);
    let note = format!(
        "no --description: derived \"{derived}\" from the title and the system prompt; routers and other agents read it, so edit `description:` to say what the agent does and when to use it"
    );
    spec.description = Some(derived);
    Some(note)
}

/// The title: `--title`, else asked with the template's (or one made from the name) as the
/// default; `None` when left empty.
fn title(
    ui: &Ui,
    args: &CreateArgs,
    template: Option<String>,
    name: &str,
) -> anyhow::Result<Option<String>> {
    let title = match &args.title {
        Some(title) => title.trim().to_owned(),
        None => ui.text(
            &Question {
                prompt: "Title",
                flag: "--title TITLE",
                what: "title",
            },
            Some(template.unwrap_or_else(|| choices::title_case(name))),
            false,
            |_| Ok(()),
        )?,
    };
    Ok(Some(title).filter(|title| !title.is_empty()))
}

/// NAME, checked before anything is asked or written: kebab-case only, so no path
/// separators, `..` or absolute paths reach the file system.
fn name(ui: &Ui, args: &CreateArgs) -> anyhow::Result<String> {
    let name = match &args.name {
        Some(name) => name.clone(),
        None => ui.text(
            &Question {
                prompt: "Name (kebab-case)",
                flag: "NAME, e.g. `agentctl agents create code-reviewer`",
                what: "agent name",
            },
            None,
            false,
            |answer| {
                if is_valid_name(answer) {
                    Ok(())
                } else {
                    Err(format!(
                        "`{answer}` is not kebab-case: lowercase letters, digits and hyphens, e.g. `code-reviewer`"
                    ))
                }
            },
        )?,
    };
    anyhow::ensure!(
        is_valid_name(&name),
        "`{name}` is not a valid agent name: use kebab-case (lowercase letters, digits and hyphens), e.g. `code-reviewer`"
    );
    Ok(name)
}

/// Optional (seed: "Description (optional)"): `None` when neither the flag, the template nor
/// the answer gives one, and the caller derives it.
fn description(
    ui: &Ui,
    args: &CreateArgs,
    from_template: Option<String>,
) -> anyhow::Result<Option<String>> {
    let description = match &args.description {
        Some(description) => description.trim().to_owned(),
        None => ui.text(
            &Question {
                prompt: "Description (optional: what it does and when to use it)",
                flag: "--description '…' (what the agent does and when to use it)",
                what: "description",
            },
            from_template,
            true,
            |_| Ok(()),
        )?,
    };
    Ok((!description.is_empty()).then_some(description))
}

/// `--model`, or one of the default, the aliases and the configured providers' models.
fn model(ui: &Ui, args: &CreateArgs, settings: &Settings) -> anyhow::Result<Option<String>> {
    if let Some(model) = &args.model {
        return Ok(Some(model.trim().to_owned()).filter(|m| !m.is_empty()));
    }
    let choices = choices::model_choices(settings, &|var| std::env::var_os(var).is_some());
    let labels: Vec<String> = choices.iter().map(|(label, _)| label.clone()).collect();
    let question = Question {
        prompt: "Model",
        flag: "--model MODEL",
        what: "model",
    };
    let index = ui.select(&question, &labels, 0)?;
    match &choices[index].1 {
        ModelPick::Default => Ok(None),
        ModelPick::Model(model) => Ok(Some(model.clone())),
        ModelPick::Other => {
            let model = ui.text(
                &Question {
                    prompt: "  Model (provider:model or alias)",
                    flag: "--model MODEL",
                    what: "model",
                },
                None,
                false,
                |answer| match resolve_model(answer, settings, None) {
                    Ok(_) | Err(ModelError::NothingToInherit) => Ok(()),
                    Err(error) => Err(error.to_string()),
                },
            )?;
            Ok(Some(model))
        }
    }
}

/// Allowed and denied tools: the flags, else the pickers (the built-in tools and each MCP
/// server's `mcp.<server>.*`). Without a terminal and flags: the template's lists, or none.
fn tools(
    ui: &Ui,
    args: &CreateArgs,
    settings: &Settings,
    from_template: ToolPolicy,
) -> anyhow::Result<ToolPolicy> {
    let names = choices::tool_choices(settings);
    let allow = if !args.allow.is_empty() {
        Some(args.allow.clone())
    } else if ui.is_terminal() {
        let ticked: Vec<&str> = match &from_template.allow {
            Some(allow) => allow.iter().map(String::as_str).collect(),
            None => READ_ONLY_TOOLS.to_vec(),
        };
        let mut items = vec!["every tool (no allow list)".to_owned()];
        items.extend(names.iter().cloned());
        let mut checked = vec![false];
        checked.extend(names.iter().map(|n| ticked.contains(&n.as_str())));
        let question = Question {
            prompt: "Allowed tools (space to tick, enter to confirm)",
            flag: "--allow TOOLS",
            what: "allowed tools",
        };
        let picked = ui.multi_select(&question, &items, &checked)?;
        if picked.contains(&0) {
            None
        } else {
            Some(picked.into_iter().map(|i| items[i].clone()).collect())
        }
    } else {
        from_template.allow.clone()
    };
    let deny = if !args.deny.is_empty() {
        args.deny.clone()
    } else if ui.is_terminal() {
        let items: Vec<String> = names
            .into_iter()
            .filter(|n| allow.as_ref().is_none_or(|allow| !allow.contains(n)))
            .collect();
        let checked: Vec<bool> = items
            .iter()
            .map(|n| from_template.deny.contains(n))
            .collect();
        let question = Question {
            prompt: "Denied tools (deny wins over allow; enter for none)",
            flag: "--deny TOOLS",
            what: "denied tools",
        };
        if items.is_empty() {
            Vec::new()
        } else {
            let picked = ui.multi_select(&question, &items, &checked)?;
            picked.into_iter().map(|i| items[i].clone()).collect()
        }
    } else {
        from_template.deny
    };
    Ok(ToolPolicy { allow, deny })
}

/// 🔌 MCP servers from settings, ticked at first when the allowed tools name them.
fn mcp_servers(
    ui: &Ui,
    args: &CreateArgs,
    settings: &Settings,
    tools: &ToolPolicy,
) -> anyhow::Result<Vec<String>> {
    if !args.mcp_servers.is_empty() {
        return Ok(args.mcp_servers.clone());
    }
    let servers: Vec<String> = settings.mcp_servers.keys().cloned().collect();
    ui.section("🔌 MCP Servers")?;
    if servers.is_empty() {
        ui.note("No MCP servers in settings (`mcpServers`): none to add.")?;
        return Ok(Vec::new());
    }
    let named: Vec<&str> = tools
        .allow
        .iter()
        .flatten()
        .filter_map(|tool| choices::mcp_server_of(tool))
        .collect();
    let checked: Vec<bool> = servers
        .iter()
        .map(|s| named.contains(&s.as_str()))
        .collect();
    let question = Question {
        prompt: "MCP servers (space to tick, enter to confirm)",
        flag: "--mcp-server SERVERS",
        what: "MCP servers",
    };
    let picked = ui.multi_select(&question, &servers, &checked)?;
    Ok(picked.into_iter().map(|i| servers[i].clone()).collect())
}

/// `--context-mode`, else asked (default: settings `agents.defaultContextMode`); without a
/// terminal left out, so the settings decide.
fn context_mode(
    ui: &Ui,
    args: &CreateArgs,
    settings: &Settings,
) -> anyhow::Result<Option<ContextMode>> {
    let parse = |mode: &str| match mode {
        "shared" => ContextMode::Shared,
        "run" => ContextMode::Run,
        _ => ContextMode::Isolated,
    };
    if let Some(mode) = &args.context_mode {
        return Ok(Some(parse(mode)));
    }
    if !ui.is_terminal() {
        return Ok(None);
    }
    ui.section("🧠 Context")?;
    let modes = [ContextMode::Isolated, ContextMode::Shared, ContextMode::Run];
    let items = [
        "isolated: its own conversation history".to_owned(),
        "shared: sees the main conversation".to_owned(),
        "run: a fresh context each run; only its summary returns".to_owned(),
    ];
    let default = modes
        .iter()
        .position(|m| *m == settings.agents.default_context_mode)
        .unwrap_or(0);
    let question = Question {
        prompt: "Context mode",
        flag: "--context-mode isolated|shared|run",
        what: "context mode",
    };
    Ok(Some(modes[ui.select(&question, &items, default)?]))
}
