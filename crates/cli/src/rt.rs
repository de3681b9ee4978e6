//! The process's one tokio runtime, built on first use by the commands that need one (most
//! need none: `--help`, `agents list`, `config show` start no threads). It lives until the
//! process exits, so a blocking stdin read left in flight (a REPL left at its prompt) is never
//! waited for.

use anyhow::Context as _;
use std::future::Future;
use std::sync::OnceLock;

static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();

/// Runs `work` to its end on the process's runtime.
pub(crate) fn block_on<F: Future>(work: F) -> anyhow::Result<F::Output> {
    let runtime = match RUNTIME.get() {
        Some(runtime) => runtime,
        None => {
            let built = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .context("cannot start the async runtime")?;
            // Commands run one after another on the main thread: nobody built one meanwhile.
            RUNTIME.get_or_init(|| built)
        }
    };
    Ok(runtime.block_on(work))
}
