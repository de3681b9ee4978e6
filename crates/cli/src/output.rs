//! Rendering helpers shared by the commands.

use serde::Serialize;
use std::io::{IsTerminal, Write};

/// Prints an error and its causes on stderr, one line each.
#[expect(clippy::print_stderr, reason = "the CLI reports errors on stderr")]
pub(crate) fn print_error(error: &anyhow::Error) {
    eprintln!("error: {error}");
    for cause in error.chain().skip(1) {
        eprintln!("  caused by: {cause}");
    }
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
