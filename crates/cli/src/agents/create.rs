//! `agents create`.

use super::{display_path, prompt, validate::render};
use crate::args::{CreateArgs, TemplateName, TextFormat};
use crate::output::{print_json, stdin_is_terminal};
use agentctl_core::{AgentSpec, ContextMode, Scope, SourceFormat};
use agentctl_definitions::{
    DEFAULT_PROMPT, Template, is_valid_name, load_file, render_agent_file, validate,
};
use agentctl_session::Project;
use anyhow::Context as _;
use std::process::ExitCode;

/// What `agents create` writes, after defaults and prompts.
struct CreateRequest {
    spec: AgentSpec,
    body: &'static str,
    scope: Scope,
    force: bool,
}

fn template(name: TemplateName) -> Template {
    match name {
        TemplateName::Debugging => Template::Debugging,
        TemplateName::CodeReview => Template::CodeReview,
        TemplateName::Documentation => Template::Documentation,
        TemplateName::TestGenerator => Template::TestGenerator,
        TemplateName::Security => Template::Security,
    }
}

fn request(context: &Project, args: CreateArgs) -> anyhow::Result<CreateRequest> {
    let interactive = stdin_is_terminal();
    let name = match args.name {
        Some(name) => name,
        None if interactive => prompt("Agent name (kebab-case): ")?,
        None => anyhow::bail!(
            "missing agent name: pass NAME (e.g. `agentctl agents create code-reviewer`)"
        ),
    };
    anyhow::ensure!(
        is_valid_name(&name),
        "`{name}` is not a valid agent name: use kebab-case (lowercase letters, digits and hyphens), e.g. `code-reviewer`"
    );
    let template = args.template.map(template);
    let mut spec = template.map_or_else(
        || AgentSpec {
            name: name.clone(),
            ..AgentSpec::default()
        },
        |t| t.spec(&name),
    );
    if args.description.is_some() {
        spec.description = args.description;
    }
    if spec.description.is_none() {
        let description = if interactive {
            prompt("Description (what the agent does and when to use it): ")?
        } else {
            anyhow::bail!("missing description: pass --description '…' or --template NAME")
        };
        anyhow::ensure!(!description.is_empty(), "a description is required");
        spec.description = Some(description);
    }
    if args.title.is_some() {
        spec.title = args.title;
    }
    if args.model.is_some() {
        spec.model = args.model;
    }
    if !args.tools.is_empty() {
        spec.tools.allow = Some(args.tools);
    }
    if !args.deny.is_empty() {
        spec.tools.deny = args.deny;
    }
    if !args.mcp.is_empty() {
        spec.mcp.servers = args.mcp;
    }
    spec.context_mode = match args.context.as_deref() {
        Some("shared") => Some(ContextMode::Shared),
        Some("run") => Some(ContextMode::Run),
        Some("isolated") => Some(ContextMode::Isolated),
        _ => None,
    };
    let scope = if args.global {
        Scope::Global
    } else {
        context.settings.settings.agents.default_scope
    };
    Ok(CreateRequest {
        spec,
        body: template.map_or(DEFAULT_PROMPT, Template::system_prompt),
        scope,
        force: args.force,
    })
}

pub(super) fn run(context: &Project, args: CreateArgs) -> anyhow::Result<ExitCode> {
    let format = args.format;
    let request = request(context, args)?;
    let locations = &context.locations;
    let dir = match request.scope {
        Scope::Global => locations.global_agents_dir(),
        Scope::Project => locations.project_agents_dir().context(
            "not inside a project (no .agentctl, .claude, .gemini or .git folder found): pass --project-dir DIR or --global",
        )?,
    };
    let path = dir.join(format!("{}.md", request.spec.name));
    anyhow::ensure!(
        request.force || !path.exists(),
        "{} already exists: pass --force to replace it, or `agentctl agents edit {}`",
        display_path(&path, locations),
        request.spec.name
    );
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    std::fs::write(&path, render_agent_file(&request.spec, request.body))
        .with_context(|| format!("cannot write {}", path.display()))?;
    let agent = load_file(&path, SourceFormat::Native, request.scope)?;
    let report = validate(&agent, &context.settings.settings);
    match format {
        TextFormat::Json => {
            print_json(&serde_json::json!({ "path": path, "validation": report }))?;
        }
        TextFormat::Text => {
            let text = render(context, std::slice::from_ref(&report), false)?;
            print_created(&display_path(&path, locations), &text);
        }
    }
    Ok(if report.valid {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

#[expect(clippy::print_stdout, reason = "the result is the command's output")]
fn print_created(path: &str, report: &str) {
    println!("Created {path}\n");
    print!("{report}");
}
