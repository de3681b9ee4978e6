//! `agentctl route PROMPT`: which agents the prompt's words route to, and why; and the
//! auto-routing step of `agentctl run`, which picks the agent the same way.
//!
//! Both go through the library's router (`Router::decide` over the runnable agents, with
//! `agents.defaultAgent` as the fallback — what a session's `route` does), so what `route`
//! shows is what `run --auto` does.

use crate::args::{GlobalArgs, TextFormat, route::RouteArgs};
use crate::output::{print_json, terminal_safe};
use agentctl_session::definitions::Discovery;
use agentctl_session::routing::{
    Matched, RouteDecision, RouteExplanation, RouteMatch, Router, Skipped,
};
use agentctl_session::{Session, Target};
use anyhow::Context as _;
use serde::Serialize;
use std::io::{IsTerminal as _, Write as _};
use std::process::ExitCode;

/// `route --format json`: the prompt, the ranked matches, the selection and unused entries.
#[derive(Serialize)]
struct RouteJson<'a> {
    prompt: &'a str,
    #[serde(flatten)]
    decision: &'a RouteDecision,
    skipped: &'a [Skipped],
}

/// Runs `agentctl route`.
pub(crate) fn run(global: &GlobalArgs, args: &RouteArgs) -> anyhow::Result<ExitCode> {
    let project = crate::context::load(global)?;
    let RouteExplanation {
        discovery,
        router,
        decision,
        ..
    } = project.explain_route(&args.prompt);
    let router = &router;
    match args.format {
        TextFormat::Json => print_json(&RouteJson {
            prompt: &args.prompt,
            decision: &decision,
            skipped: router.skipped(),
        })?,
        TextFormat::Text => {
            warn_unrouted(router, &discovery)?;
            print_text(&args.prompt, &decision, router, &discovery)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Warnings for what the router cannot use: entries it skipped, and agents with triggers
/// whose files have errors (they never run, so they are not routed to).
fn warn_unrouted(router: &Router, discovery: &Discovery) -> anyhow::Result<()> {
    let mut err = std::io::stderr().lock();
    for skipped in router.skipped() {
        writeln!(
            err,
            "warning: not routed by: {}",
            terminal_safe(&skipped.to_string())
        )?;
    }
    for invalid in &discovery.invalid {
        if !invalid.agent.definition.spec.triggers.is_empty() {
            writeln!(
                err,
                "warning: agent `{}` is not routed to: its file has errors (see `agentctl agents validate {}`)",
                terminal_safe(invalid.agent.definition.name()),
                terminal_safe(invalid.agent.definition.name()),
            )?;
        }
    }
    Ok(())
}

fn print_text(
    prompt: &str,
    decision: &RouteDecision,
    router: &Router,
    discovery: &Discovery,
) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    if decision.matches.is_empty() {
        writeln!(out, "No agent's triggers match this prompt.")?;
        let listing = targets_listing(router);
        if !listing.is_empty() {
            writeln!(out, "\nAgents with triggers:\n{listing}")?;
        }
    }
    for (rank, found) in decision.matches.iter().enumerate() {
        writeln!(out, "{}. {}", rank + 1, heading(found))?;
        for matched in &found.matches {
            writeln!(out, "     {}", describe(prompt, matched))?;
        }
    }
    let selected = match (&decision.selected, decision.selected_match()) {
        (Some(selected), Some(found)) => format!(
            "{} ({})",
            terminal_safe(&selected.agent),
            terminal_safe(&found.explain())
        ),
        (Some(selected), None) => {
            let broken = match discovery.require(&selected.agent) {
                Ok(_) => String::new(),
                Err(_) => format!(
                    "; it cannot run: see `agentctl agents show {}`",
                    selected.agent
                ),
            };
            terminal_safe(&format!(
                "{} (agents.defaultAgent: no trigger matched{broken})",
                selected.agent
            ))
            .into_owned()
        }
        (None, _) => "none (run with --agent NAME, or set agents.defaultAgent)".to_owned(),
    };
    writeln!(out, "\nselected: {selected}")?;
    Ok(())
}

/// `debug-analyzer (project)  priority 10, trigger 0, intent debug`.
fn heading(found: &RouteMatch) -> String {
    let mut line = format!(
        "{} ({})  priority {}, trigger {}",
        terminal_safe(&found.agent),
        found.scope,
        found.priority,
        found.trigger
    );
    if let Some(intent) = &found.intent {
        line.push_str(&format!(", intent {}", terminal_safe(intent)));
    }
    line
}

/// `keyword bug: "Bug" at 10..13` or `regex /fix.*test/: "fix the test" at 0..12`.
fn describe(prompt: &str, matched: &Matched) -> String {
    let kind = match matched {
        Matched::Keyword { .. } => "keyword",
        Matched::Regex { .. } => "regex",
    };
    let span = matched.span();
    let text = prompt.get(span.clone()).unwrap_or_default();
    format!(
        "{kind} {}: {} at {}..{}",
        terminal_safe(&matched.label()),
        terminal_safe(&format!("{text:?}")),
        span.start,
        span.end
    )
}

/// One line per agent with triggers: `  debug-analyzer: bug, error, /fix.*test/`.
fn targets_listing(router: &Router) -> String {
    router
        .targets()
        .iter()
        .map(|target| {
            format!(
                "  {}: {}",
                terminal_safe(&target.name),
                terminal_safe(&target.cues().join(", "))
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Auto-routing for `agentctl run`: the agent the session routes the prompt to, announced on
/// stderr (`Auto-routing to: debug-analyzer (matched: bug)`), or the `agents.defaultAgent`
/// fallback with a note. When nothing matches and no default agent is set, the main
/// conversation answers if it has a model (`model`: `--model` or `agents.defaultModel`) —
/// `None`, announced; without one, an error lists what the agents' triggers would match.
pub(crate) fn pick(
    session: &Session,
    prompt: &str,
    model: Option<&str>,
) -> anyhow::Result<Option<String>> {
    let decision = session.route(prompt);
    let Some(selected) = &decision.selected else {
        if model.is_none() {
            return Err(no_match(session.router()));
        }
        let mut err = std::io::stderr().lock();
        writeln!(
            err,
            "No agent's triggers match the prompt; the main conversation answers \
             (agents.defaultAgent names an agent for this instead)"
        )?;
        return Ok(None);
    };
    let line = match decision.selected_match() {
        Some(found) => format!("Auto-routing to: {} ({})", selected.agent, found.explain()),
        None => format!(
            "No agent's triggers match the prompt; running the default agent {} (agents.defaultAgent)",
            selected.agent
        ),
    };
    let agent = crate::lookup::require(session, &selected.agent);
    if selected.fallback {
        agent.with_context(|| {
            format!(
                "agents.defaultAgent names `{}`, which cannot run",
                selected.agent
            )
        })?;
    } else {
        agent?;
    }
    let mut err = std::io::stderr().lock();
    // The seed's robot marks the line on a terminal; logs get plain text.
    let mark = if err.is_terminal() { "🤖 " } else { "" };
    writeln!(err, "{mark}{}", terminal_safe(&line))?;
    Ok(Some(selected.agent.clone()))
}

/// The target auto-routing picks for `prompt` (see [`pick`]), made the session's active
/// agent; `model` is `--model`, which the main conversation would run on.
pub(crate) fn routed(
    session: &Session,
    prompt: &str,
    model: Option<&str>,
) -> anyhow::Result<Target> {
    let main_agent = session.main_agent();
    let main_model = model.or(main_agent.spec.model.as_deref());
    Ok(match pick(session, prompt, main_model)? {
        Some(name) => {
            session.set_active(&name)?;
            Target::Agent(name)
        }
        None => Target::Main,
    })
}

/// Nothing matched and there is no default agent: say what would have matched.
fn no_match(router: &Router) -> anyhow::Error {
    if router.targets().is_empty() {
        return anyhow::anyhow!(
            "no agent given and no agent has triggers to route by: pass NAME or --agent NAME, \
             or add `triggers:` to an agent"
        );
    }
    anyhow::anyhow!(
        "no agent's triggers match the prompt: pass --agent NAME, or set agents.defaultAgent \
         for prompts no trigger matches\nagents with triggers:\n{}",
        targets_listing(router)
    )
}
