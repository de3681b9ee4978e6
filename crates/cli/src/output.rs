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
