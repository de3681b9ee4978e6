//! Rendering helpers shared by the commands.

use agentctl_core::{Redactor, Settings};
use agentctl_session::{Project, TightenedFiles};
use serde::Serialize;
use std::io::{IsTerminal, Write};
use std::sync::{Mutex, OnceLock, PoisonError};

/// The secrets of the project's settings, once they are loaded.
static SECRETS: OnceLock<Redactor> = OnceLock::new();

/// Makes error output mask the secrets of the loaded settings too (not only those of the
/// environment).
pub(crate) fn remember_secrets(secrets: Redactor) {
    let _ = SECRETS.set(secrets);
}

/// The lists of files the loaded projects' stores made private, reported at the end.
static TIGHTENED: Mutex<Vec<TightenedFiles>> = Mutex::new(Vec::new());

/// Reports, at the next [`report_tightened`], the files `project`'s stores make private.
pub(crate) fn remember_tightened(project: &Project) {
    TIGHTENED
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(project.tightened_files().clone());
}

/// Prints a warning on stderr for each file made private since the last call
/// ("tightened …/.agentctl/sessions.db from 0644 to 0600"): each is reported once, as the next
/// opening finds it private.
#[expect(clippy::print_stderr, reason = "the CLI reports warnings on stderr")]
pub(crate) fn report_tightened() {
    let lists = TIGHTENED
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clone();
    for notice in lists.iter().flat_map(TightenedFiles::take) {
        eprintln!("warning: {}", terminal_safe(&notice.to_string()));
    }
}

/// Prints an error and its causes on stderr, one line each, secrets masked and
/// [terminal-safe](terminal_safe) (a message may quote a server, a file or a model).
#[expect(clippy::print_stderr, reason = "the CLI reports errors on stderr")]
pub(crate) fn print_error(error: &anyhow::Error) {
    let secrets = SECRETS.get().cloned().unwrap_or_else(|| {
        agentctl_session::secrets_of(&Settings::default(), &[], std::env::vars_os())
    });
    let shown = |text: String| terminal_safe(&secrets.redact(&text)).into_owned();
    // The first error in the chain that carries a hint gets the command line's advice.
    let mut advised = false;
    let mut line = |cause: &(dyn std::error::Error + 'static)| {
        if advised {
            return cause.to_string();
        }
        let text = crate::advice::with_advice(cause);
        advised = crate::advice::hint_of(cause).is_some();
        text
    };
    let mut chain = error.chain();
    if let Some(top) = chain.next() {
        eprintln!("error: {}", shown(line(top)));
    }
    for cause in chain {
        eprintln!("  caused by: {}", shown(line(cause)));
    }
}

/// True when the error is a write to a closed pipe.
pub(crate) fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            || cause
                .downcast_ref::<serde_json::Error>()
                .and_then(serde_json::Error::io_error_kind)
                == Some(std::io::ErrorKind::BrokenPipe)
    })
}

/// Prints a value as pretty JSON on stdout, followed by a newline.
pub(crate) fn print_json<T: Serialize + ?Sized>(value: &T) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    serde_json::to_writer_pretty(&mut out, value)?;
    writeln!(out)?;
    Ok(())
}

/// True when stdin is an interactive terminal, so the user can be asked questions.
pub(crate) fn stdin_is_terminal() -> bool {
    std::io::stdin().is_terminal()
}

/// Asks a yes/no `question` on the terminal (default no). Without a terminal nothing is
/// asked: the error says to pass `--yes` to `what`.
pub(crate) fn confirm(question: &str, what: &str) -> anyhow::Result<bool> {
    anyhow::ensure!(
        stdin_is_terminal(),
        "refusing to {what} without confirmation: pass --yes"
    );
    let mut err = std::io::stderr().lock();
    write!(err, "{question} [y/N] ")?;
    err.flush()?;
    drop(err);
    let mut line = String::new();
    std::io::stdin().read_line(&mut line)?;
    Ok(matches!(line.trim(), "y" | "Y" | "yes"))
}

/// Text from files, tools or the model made safe for a terminal: control characters and
/// escape sequences (which could move the cursor, rewrite earlier lines, change the window
/// title or hide text) are shown as `\x1b`-style escapes; line breaks and tabs stay. Raw text
/// is only in `--format json` output.
pub(crate) fn terminal_safe(text: &str) -> std::borrow::Cow<'_, str> {
    let unsafe_char = |c: char| {
        (c.is_control() && c != '\n' && c != '\t')
            || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    };
    if !text.chars().any(unsafe_char) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut safe = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if unsafe_char(c) {
            let code = u32::from(c);
            if code <= 0xff {
                safe.push_str(&format!("\\x{code:02x}"));
            } else {
                safe.push_str(&format!("\\u{{{code:x}}}"));
            }
        } else {
            safe.push(c);
        }
    }
    std::borrow::Cow::Owned(safe)
}

/// `n` and the noun that goes with it: "1 session", "2 sessions".
pub(crate) fn counted(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_are_shown_not_obeyed() {
        assert_eq!(terminal_safe("plain\ttext\n"), "plain\ttext\n");
        assert_eq!(
            terminal_safe("\x1b[2J\x1b]0;pwned\x07x"),
            "\\x1b[2J\\x1b]0;pwned\\x07x"
        );
        assert_eq!(terminal_safe("a\rb\u{9b}c"), "a\\x0db\\x9bc");
        assert_eq!(terminal_safe("safe\u{202e}txt"), "safe\\u{202e}txt");
    }
}
