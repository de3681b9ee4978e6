//! What a rated command runs, and short quotes of command text for reasons.

/// What a command runs, for the rules that look at more than one command.
#[derive(Debug, Clone, Default)]
pub(crate) struct Info {
    /// The program, after wrappers such as `sudo` or `env` (basename).
    pub program: String,
    /// It runs what it reads on stdin as code (`sh`, `python -`).
    pub stdin_script: bool,
    /// It runs its arguments as code (`sh -c`, `eval`, `source`, `python`).
    pub runs_code: bool,
    /// It downloads (`curl`, `wget`).
    pub download: bool,
    /// What it prints, if that is known (`echo` of plain words), for `echo … | sh`.
    pub printed: Option<String>,
}

impl Info {
    pub(crate) fn named(program: &str) -> Self {
        Self {
            program: program.to_owned(),
            ..Self::default()
        }
    }
}

/// Shortens a text for a reason.
pub(crate) fn short(text: &str) -> String {
    const MAX: usize = 60;
    if text.chars().count() <= MAX {
        return text.replace('\n', " ");
    }
    let head: String = text.chars().take(MAX).collect();
    format!("{}…", head.replace('\n', " "))
}
