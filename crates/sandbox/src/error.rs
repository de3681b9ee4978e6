//! Why a process could not be started: [`SandboxError`].
//!
//! A system that cannot confine is not an error (the process starts unconfined and the
//! [`SandboxStatus`](crate::SandboxStatus) says so); these are the failures that leave no
//! process at all.

/// Why [`spawn`](crate::spawn) started no process.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SandboxError {
    /// `spawn` was called outside a tokio runtime.
    #[error("cannot start `{program}`: the sandbox must be called within a tokio runtime")]
    NoRuntime {
        /// The program that was to run.
        program: String,
    },
    /// The operating system refused a new thread.
    #[error("cannot start the thread that confines `{program}`: {source}")]
    Thread {
        /// The program that was to run.
        program: String,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// The confining thread panicked (a bug).
    #[error("the thread that confines `{program}` panicked")]
    ThreadPanicked {
        /// The program that was to run.
        program: String,
    },
    /// The program could not be started (not found, not executable, bad working directory).
    #[error("cannot start `{program}`: {source}")]
    Spawn {
        /// The program that was to run.
        program: String,
        /// The operating system's error.
        source: std::io::Error,
    },
}
