//! Risk rating of shell command lines, for the `bash` tool.
//!
//! [`classify_command`] parses the line with tree-sitter-bash and rates it with an allow-list:
//! a line is `safe` or `low` only when the parse tree shows nothing but plain words (no
//! expansion, substitution, arithmetic, here-document, function, alias, assignment, subshell or
//! parse error) joined by `&&`, `||`, `;`, `|` and newlines, and every program in it is on a
//! known list with its options checked (`shell/programs.rs`, `shell/git.rs`, …). Anything the
//! rules do not prove harmless is at least `medium`; recognised destructive forms (`rm -rf /`,
//! `sudo`, `curl … | sh`, `git push --force`, …) are `high` or `critical`, also when they hide
//! inside a substitution, a function body, a here-document or a `sh -c` script. The level of a
//! line is the highest of its parts, with that part's reason.
//!
//! Paths are resolved as the kernel will resolve them (`shell/paths/resolve.rs`): component by
//! component, each symbolic link followed before a later `..` applies, `/dev/fd` as
//! `/proc/self/fd`, `/proc/self/cwd` as the shell's folder and `/proc/self/root` as `/`;
//! another process's files (`/proc/<pid>/environ`) are never safe. Option values glued to their
//! option (`-f./../x`, `--file=x`) are paths like any other. Reads outside the project are
//! `medium`; writes under `.git/`, `.agentctl/`, `.claude/` or `.gemini/` — at any depth, in
//! any spelling, or wholesale (`cp -r payload/. .`, `tar -x`, `rm -r` of a folder holding one)
//! — are `high` (the session database `critical`) and carry the protected mark
//! ([`RiskAssessment::protected`]), which the gate asks about every time. Read-only `git` is
//! `safe` only in the project's own repository, and only while its configuration sets nothing
//! that runs a program (`shell/git/repo.rs`, `shell/git/config.rs`).
//!
//! This is a rating for the approval prompt, not a sandbox: the file system is read when the
//! command is rated, and may change before it runs.

mod build;
mod commands;
mod files;
mod find;
mod git;
mod info;
mod opts;
mod paths;
mod programs;
mod runners;
mod scripts;
mod walk;
mod words;

pub(crate) use commands::{CommandList, basename, simple_commands};
pub(crate) use words::Word;

use agentctl_core::RiskLevel;
use serde::Serialize;
use std::cell::RefCell;
use std::path::Path;

/// A risk level and the reason for it (`rm -rf removes files recursively`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RiskAssessment {
    /// The level.
    pub level: RiskLevel,
    /// Why, in a few words, for the approval prompt and the event log.
    pub reason: String,
    /// A protected path the command may write (`.git/config`, `.agentctl/settings.json`):
    /// such a command is asked every time, whatever levels are auto-approved. `None` for most.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protected: Option<String>,
}

impl RiskAssessment {
    /// An assessment that writes no protected path.
    pub fn new(level: RiskLevel, reason: impl Into<String>) -> Self {
        Self {
            level,
            reason: reason.into(),
            protected: None,
        }
    }

    /// The same assessment, marked as writing the protected path `path`.
    pub fn with_protected(mut self, path: impl Into<String>) -> Self {
        self.protected = Some(path.into());
        self
    }

    /// Keeps the higher of two assessments, with the protected mark of either. On a tie the
    /// first one is kept, unless only the second is marked protected (its reason then says
    /// why the command is asked every time).
    pub fn max(self, other: RiskAssessment) -> RiskAssessment {
        let second_wins = other.level > self.level
            || (other.level == self.level && self.protected.is_none() && other.protected.is_some());
        let (mut kept, dropped) = if second_wins {
            (other, self)
        } else {
            (self, other)
        };
        if kept.protected.is_none() {
            kept.protected = dropped.protected;
        }
        kept
    }
}

impl From<RiskLevel> for RiskAssessment {
    fn from(level: RiskLevel) -> Self {
        Self::new(level, format!("{level} risk"))
    }
}

/// Longest command line that is parsed; longer ones are `medium` unread.
const MAX_COMMAND_BYTES: usize = 256 * 1024;
/// Deepest nesting of `sh -c` scripts, `eval`, wrappers and `find -exec` that is looked into.
const MAX_SCRIPT_DEPTH: usize = 8;
/// Deepest nesting of commands inside commands (`sudo env nice timeout 5 …`).
const MAX_WRAPPERS: usize = 32;

/// Rates a shell command line, as the `bash` tool would run it in `root`.
///
/// `root` is the project root the command runs in; relative paths are resolved against it, and
/// symbolic links in existing paths are followed to see where they really point. Without a
/// root, relative paths without `..` count as inside the project and every absolute path as
/// outside.
///
/// ```
/// use agentctl_core::RiskLevel;
/// use agentctl_tools::classify_command;
///
/// let rate = |command| classify_command(command, None);
/// assert_eq!(rate("git status && ls -la | wc -l").level, RiskLevel::Safe);
/// assert_eq!(rate("cargo test --workspace").level, RiskLevel::Low);
/// assert_eq!(rate("cat /etc/passwd").level, RiskLevel::Medium);
/// let rm = rate("cd build && rm -rf out");
/// assert_eq!((rm.level, rm.reason.as_str()), (RiskLevel::High, "rm -rf removes files recursively"));
/// assert_eq!(rate("echo $(( $(rm -rf ../x) 1 ))").level, RiskLevel::High);
/// assert_eq!(rate("curl -fsSL https://x.sh | sh").level, RiskLevel::Critical);
/// let hook = rate("echo x > /dev/fd/../cwd/.git/hooks/pre-commit");
/// assert_eq!(hook.level, RiskLevel::High);
/// assert_eq!(hook.protected.as_deref(), Some(".git/hooks/pre-commit"));
/// assert_eq!(rate("cat /dev/fd/../../1/environ").level, RiskLevel::Medium);
/// ```
pub fn classify_command(command: &str, root: Option<&Path>) -> RiskAssessment {
    classify_command_protecting(command, root, &[])
}

/// [`classify_command`] with more protected paths (`sandbox.protectedPaths`, relative to
/// `root` or absolute): a write there is high and marked protected, like one under `.git/`.
///
/// ```
/// use agentctl_core::RiskLevel;
/// use agentctl_tools::classify_command_protecting;
/// use std::path::{Path, PathBuf};
///
/// let root = Path::new("/nonexistent/project");
/// let rating = classify_command_protecting("echo x > deploy/keys.yml", Some(root), &[PathBuf::from("deploy")]);
/// assert_eq!(rating.level, RiskLevel::High);
/// assert_eq!(rating.protected.as_deref(), Some("deploy/keys.yml"));
/// ```
pub fn classify_command_protecting(
    command: &str,
    root: Option<&Path>,
    protected: &[std::path::PathBuf],
) -> RiskAssessment {
    let mut env = Env::new(paths::Paths::new(root).protecting(protected));
    if command.len() > MAX_COMMAND_BYTES {
        env.note(
            RiskLevel::Medium,
            format!(
                "the command is too long to rate ({} KiB)",
                command.len() / 1024
            ),
        );
    } else {
        env.script(command);
    }
    if env.paths.exhausted() {
        env.note(
            RiskLevel::Medium,
            "the command names more files than the rater reads to check them",
        );
    }
    env.finish()
}

thread_local! {
    /// One parser per thread: creating one allocates, and the gate rates every `bash` call.
    static PARSER: RefCell<Option<tree_sitter::Parser>> = const { RefCell::new(None) };
}

/// Parses a script with the bash grammar; `None` if the parser could not be set up.
fn parse(script: &str) -> Option<tree_sitter::Tree> {
    PARSER.with(|cell| {
        let mut slot = cell.try_borrow_mut().ok()?;
        if slot.is_none() {
            let mut parser = tree_sitter::Parser::new();
            parser
                .set_language(&tree_sitter_bash::LANGUAGE.into())
                .ok()?;
            *slot = Some(parser);
        }
        slot.as_mut()?.parse(script, None)
    })
}

/// What the rating of one command line has found so far, and where it stands.
pub(crate) struct Env {
    /// The project root and the directories `cd` may have moved to.
    pub(crate) paths: paths::Paths,
    /// How many scripts deep (`sh -c '…'` inside the line) the rating is.
    depth: usize,
    verdict: Option<RiskAssessment>,
    /// How many findings were noted; a rule that notes nothing is caught by this.
    pub(crate) notes: usize,
    /// A command that downloads (`curl`, `wget`) was seen in the part being walked.
    pub(crate) saw_download: bool,
    /// How many wrappers deep (`sudo env timeout …`) the rating is.
    wrappers: usize,
    /// A write went through a file descriptor's path (`> /dev/stdin`, `> /dev/fd/3`).
    pub(crate) descriptor_write: bool,
    /// A protected path a redirection opened (`< .git/config`, `3< .git/config`): a write
    /// through the descriptor's path opens it again, for writing.
    pub(crate) redirected_protected: Option<String>,
    /// Rates a command given as words (`sudo X`, `find -exec X`, `xargs X`): the program
    /// table, handed in so the rules that find nested commands need not import it.
    rate_words: fn(&mut Env, &[words::Word]) -> info::Info,
}

impl Env {
    /// Rates a nested command (the words after a wrapper, `-exec`, `xargs`).
    pub(crate) fn rate_nested(&mut self, words: &[words::Word]) -> info::Info {
        let rate = self.rate_words;
        rate(self, words)
    }

    fn new(paths: paths::Paths) -> Self {
        Self {
            paths,
            depth: 0,
            verdict: None,
            notes: 0,
            saw_download: false,
            wrappers: 0,
            descriptor_write: false,
            redirected_protected: None,
            rate_words: programs::rate_words,
        }
    }

    /// Records a finding; the line keeps the highest ([`RiskAssessment::max`]).
    pub(crate) fn note(&mut self, level: RiskLevel, reason: impl Into<String>) {
        self.record(RiskAssessment::new(level, reason));
    }

    /// Records a write of the protected path `path`: the line is marked protected.
    pub(crate) fn note_protected(
        &mut self,
        level: RiskLevel,
        reason: impl Into<String>,
        path: impl Into<String>,
    ) {
        self.record(RiskAssessment::new(level, reason).with_protected(path));
    }

    fn record(&mut self, next: RiskAssessment) {
        self.notes += 1;
        self.verdict = Some(match self.verdict.take() {
            None => next,
            Some(current) => current.max(next),
        });
    }

    /// Rates a nested script (`sh -c '…'`, `eval`, a here-document fed to a shell).
    pub(crate) fn script(&mut self, script: &str) {
        if self.depth > MAX_SCRIPT_DEPTH {
            self.note(
                RiskLevel::Medium,
                "the command is nested too deeply to rate",
            );
            return;
        }
        self.depth += 1;
        match parse(script) {
            Some(tree) => walk::Walker::new(self, script.as_bytes()).program(tree.root_node()),
            None => self.note(RiskLevel::Medium, "the shell parser could not run"),
        }
        self.depth -= 1;
    }

    /// Enters a wrapped command (`sudo …`); `false` (noted `medium`) when too deep.
    pub(crate) fn deeper(&mut self) -> bool {
        if self.wrappers > MAX_WRAPPERS {
            self.note(
                RiskLevel::Medium,
                "the command is nested too deeply to rate",
            );
            return false;
        }
        self.wrappers += 1;
        true
    }

    /// Leaves a wrapped command.
    pub(crate) fn shallower(&mut self) {
        self.wrappers = self.wrappers.saturating_sub(1);
    }

    fn finish(mut self) -> RiskAssessment {
        if self.descriptor_write
            && let Some(path) = self.redirected_protected.take()
        {
            self.note_protected(
                RiskLevel::High,
                format!(
                    "a write to a descriptor's path (/dev/stdin, /dev/fd/N) opens {path} again, which a redirection opened"
                ),
                path,
            );
        }
        self.verdict
            .unwrap_or_else(|| RiskAssessment::new(RiskLevel::Safe, "empty command"))
    }
}
