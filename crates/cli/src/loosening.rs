//! The words of untrusted settings: why a project value loosens the user's own settings, and
//! the warning, once per command, about the values ignored because the project is not trusted.

use crate::output::terminal_safe;
use agentctl_session::config::{LoadedSettings, Loosening, LooseningReason, ProjectTrust};
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;

/// Warns, once per command, about the project values that were ignored because the project
/// is not trusted, and about a trust store that could not be read.
pub(crate) fn warn_ignored(loaded: &LoadedSettings, root: &Path) {
    static WARNED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if WARNED.swap(true, std::sync::atomic::Ordering::Relaxed) {
        return;
    }
    let mut text = String::new();
    ignored_warning(&mut text, loaded, root);
    if !text.is_empty() {
        let _ = std::io::stderr().lock().write_all(text.as_bytes());
    }
}

/// Why a project value loosens the user's settings, in the user's words.
pub(crate) fn reason(reason: &LooseningReason) -> String {
    let list = |items: &[String]| items.join(", ");
    match reason {
        LooseningReason::AutoApproves(levels) => {
            let levels: Vec<String> = levels.iter().map(ToString::to_string).collect();
            format!("approves {} without asking", list(&levels))
        }
        LooseningReason::SandboxMode { user, project } => format!(
            "sandbox `{}` confines less than your `{}`",
            project.as_str(),
            user.as_str()
        ),
        LooseningReason::Enables => "opens what your settings keep closed".into(),
        LooseningReason::Disables => "turns off a protection your settings turn on".into(),
        LooseningReason::AddsEntries(entries) => format!("adds {}", list(entries)),
        LooseningReason::RemovesEntries(entries) => format!("drops {}", list(entries)),
        LooseningReason::LowersRisk { from, to } => {
            format!("rates the tool {to} instead of {from}")
        }
        LooseningReason::RaisesLimit { user, project } => {
            format!("raises your limit of {user} to {project}")
        }
        LooseningReason::Differs => "differs from your setting".into(),
        LooseningReason::SendsCredentials(variables) => format!(
            "would send your key in {} to an endpoint the project chose",
            list(variables)
        ),
        LooseningReason::ReadsEnvironment(variables) => {
            format!("reads {} from your environment", list(variables))
        }
        LooseningReason::TrustsServer => {
            "marks the project's server trusted (its tools rated a level lower)".into()
        }
        LooseningReason::ReplacesServer => "replaces your server of the same name".into(),
        other => other.to_string(),
    }
}

/// `key = value  reason` lines, values as compact JSON, the reasons in one column.
pub(crate) fn loosening_lines(out: &mut String, loosenings: &[&Loosening]) {
    let lines: Vec<(String, String)> = loosenings
        .iter()
        .map(|loosening| {
            (
                terminal_safe(&format!("{} = {}", loosening.key, loosening.value)).into_owned(),
                terminal_safe(&reason(&loosening.reason)).into_owned(),
            )
        })
        .collect();
    let width = lines
        .iter()
        .map(|(line, _)| line.chars().count())
        .filter(|width| *width <= 56)
        .max()
        .unwrap_or(0);
    for (line, reason) in lines {
        let _ = writeln!(out, "  {line:<width$}  # {reason}");
    }
}

/// The settings files, relative to the project, joined.
pub(crate) fn files_named(loaded: &LoadedSettings) -> String {
    let files: Vec<&str> = loaded.policy_hashes.keys().map(String::as_str).collect();
    if files.is_empty() {
        agentctl_session::config::PROJECT_POLICY_FILES.join(", ")
    } else {
        files.join(", ")
    }
}

/// The warning about ignored values (empty when nothing was ignored).
fn ignored_warning(out: &mut String, loaded: &LoadedSettings, root: &Path) {
    if let ProjectTrust::Unreadable(message) = &loaded.trust {
        let _ = writeln!(
            out,
            "warning: {}; the project's loosening settings are ignored",
            terminal_safe(message)
        );
    }
    let ignored: Vec<&Loosening> = loaded.ignored().collect();
    if ignored.is_empty() {
        return;
    }
    let files = files_named(loaded);
    let why = match &loaded.trust {
        ProjectTrust::Changed { .. } => format!("{files} changed since you trusted the project"),
        _ => "the project is not trusted".to_owned(),
    };
    let _ = writeln!(
        out,
        "warning: {why}; these values of {files} loosen your own settings and are ignored:"
    );
    loosening_lines(out, &ignored);
    let _ = writeln!(
        out,
        "  (run `agentctl trust` in {} to apply them as written)",
        terminal_safe(&root.display().to_string())
    );
}
