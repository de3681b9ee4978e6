//! `agentctl trace show|export`: the trace spans a session's traced runs left in the store.

use crate::args::GlobalArgs;
use crate::args::TextFormat;
use crate::args::trace::{ExportFormat, TraceCommand, TraceExportArgs, TraceShowArgs};
use crate::output::{print_json, terminal_safe};
use crate::wire::{TraceSpan, TraceTree};
use agentctl_core::Span;
use agentctl_session::Project;
use agentctl_session::store::SessionStore;
use agentctl_session::trace::{build_trees, render_waterfall};
use anyhow::Context as _;
use std::io::Write as _;
use std::process::ExitCode;
use std::sync::Arc;

/// Runs `agentctl trace …`.
pub(crate) fn run(global: &GlobalArgs, command: TraceCommand) -> anyhow::Result<ExitCode> {
    let project = crate::context::load(global)?;
    match command {
        TraceCommand::Show(args) => show(&project, &args),
        TraceCommand::Export(args) => export(&project, &args),
    }
}

/// The store holding `session`, checked to have it.
fn store_of(project: &Project, session: &str) -> anyhow::Result<Arc<dyn SessionStore>> {
    let store = project.open_store(false)?.with_context(|| {
        format!(
            "no session `{session}`: no session has been recorded here yet (agentctl sessions list)"
        )
    })?;
    store.session(session)?;
    Ok(store)
}

fn no_trace(session: &str) -> anyhow::Error {
    anyhow::anyhow!(
        "session `{session}` has no trace: its runs were not traced. Trace a run with \
         `agentctl run … --trace`, `tracing:` in the agent file or `agents.tracing: true` in \
         the settings (a `sampleRate` below 1 leaves some runs out)"
    )
}

fn show(project: &Project, args: &TraceShowArgs) -> anyhow::Result<ExitCode> {
    let store = store_of(project, &args.session)?;
    let mut spans: Vec<Span> = Vec::new();
    store.for_each_span(&args.session, &mut |span| spans.push(span))?;
    if spans.is_empty() {
        return Err(no_trace(&args.session));
    }
    let trees = build_trees(spans);
    match args.format {
        TextFormat::Text => print_text(&terminal_safe(&render_waterfall(&trees)))?,
        TextFormat::Json => {
            print_json(&trees.into_iter().map(TraceTree::from).collect::<Vec<_>>())?
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn export(project: &Project, args: &TraceExportArgs) -> anyhow::Result<ExitCode> {
    let store = store_of(project, &args.session)?;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let count = match args.format {
        ExportFormat::Jsonl => stream(&*store, &args.session, &mut out, "", "\n", "")?,
        ExportFormat::Json => stream(&*store, &args.session, &mut out, "[\n", ",\n", "\n]\n")?,
        ExportFormat::OtlpJson => {
            let mut spans: Vec<Span> = Vec::new();
            store.for_each_span(&args.session, &mut |span| spans.push(span))?;
            if !spans.is_empty() {
                // One request per line, as a collector's `otlpjsonfile` receiver reads it.
                let document = agentctl_session::trace::otlp_json(&spans, args.capture_content)?;
                serde_json::to_writer(&mut out, &document)?;
                writeln!(out)?;
            }
            spans.len()
        }
        ExportFormat::Seed => seed_events(&*store, &args.session, &mut out)?,
    };
    out.flush()?;
    if count == 0 {
        return Err(no_trace(&args.session));
    }
    Ok(ExitCode::SUCCESS)
}

/// Writes the session's spans as seed 002's trace events, one JSON array (spans the seed has
/// no event for left out); returns how many spans the session has.
fn seed_events(
    store: &dyn SessionStore,
    session: &str,
    out: &mut impl std::io::Write,
) -> anyhow::Result<usize> {
    let mut events = Vec::new();
    let mut spans = 0;
    store.for_each_span(session, &mut |span| {
        spans += 1;
        events.extend(agentctl_session::trace::seed_event(&span));
    })?;
    if spans > 0 {
        serde_json::to_writer_pretty(&mut *out, &events)?;
        writeln!(out)?;
    }
    Ok(spans)
}

/// Writes the session's spans one at a time (a long trace is never held whole): `open`,
/// then the spans separated by `separator`, then `close`. Nothing is written for a session
/// without spans.
fn stream(
    store: &dyn SessionStore,
    session: &str,
    out: &mut impl std::io::Write,
    open: &str,
    separator: &str,
    close: &str,
) -> anyhow::Result<usize> {
    let mut failure: Option<anyhow::Error> = None;
    let mut written = 0;
    store.for_each_span(session, &mut |span| {
        if failure.is_some() {
            return;
        }
        let write = || -> anyhow::Result<()> {
            out.write_all(if written == 0 { open } else { separator }.as_bytes())?;
            serde_json::to_writer(&mut *out, &TraceSpan::from(span))?;
            Ok(())
        };
        match write() {
            Ok(()) => written += 1,
            Err(error) => failure = Some(error),
        }
    })?;
    if let Some(error) = failure {
        return Err(error);
    }
    if written > 0 {
        // JSON Lines ends every line, the last one too.
        let close = if close.is_empty() { separator } else { close };
        out.write_all(close.as_bytes())?;
    }
    Ok(written)
}

#[expect(clippy::print_stdout, reason = "the result is the command's output")]
fn print_text(text: &str) -> anyhow::Result<()> {
    print!("{text}");
    Ok(())
}
