//! Protected paths: the folders that hold agentctl's, git's and other agents' own state.
//!
//! A write, rename or delete of anything under a folder named `.agentctl`, `.git`, `.claude` or
//! `.gemini` — at any depth, so a nested repository's `sub/.git/config` too — is rated at least
//! `high` and is never auto-approved: a person must say yes each time. Names are compared
//! ASCII-case-insensitively, and a trailing dot, a trailing blank or an NTFS stream suffix
//! (`.git::$INDEX_ALLOCATION`) is ignored, because case-insensitive file systems (macOS,
//! Windows) and Windows itself take `.GIT`, `.git.` and `.git ` for `.git`, and git with them.
//! The session database (`.agentctl/sessions.db` and its journal files) and the long-term
//! memory store beside it (`.agentctl/memory.db`) — the project's own, at the top — are never
//! writable by a tool at all.
//!
//! The approval gate and the file tools judge the same path, read once by
//! [`ProjectRoot::normalise`](crate::ProjectRoot::normalise); [`protection`] is the
//! conservative judgement of any path, as written and as resolved through the symlinks that
//! exist.

use crate::paths::odd_character;
use agentctl_core::PROTECTED_DIRS;
use std::borrow::Cow;
use std::path::{Component, Path, PathBuf};

/// File names under `.agentctl/` that belong to the session database or the long-term memory
/// store (which `remember` writes through its own checks: size caps, masking, one agent's rows).
const DATABASE_FILES: [&str; 8] = [
    "sessions.db",
    "sessions.db-wal",
    "sessions.db-shm",
    "sessions.db-journal",
    "memory.db",
    "memory.db-wal",
    "memory.db-shm",
    "memory.db-journal",
];

/// What a path is, for the policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Protection {
    /// Under one of [`PROTECTED_DIRS`] (the folder's name).
    Protected(&'static str),
    /// The session database or the memory store: never writable by a tool.
    SessionDatabase,
    /// Under a path `sandbox.protectedPaths` names (as written there).
    Named(String),
}

/// Judges `path` (relative to `root`, or absolute) against the protected paths of `root`,
/// conservatively: protected when the path is, either as written (`.` and `..` removed) or
/// with the symlinks of its existing part followed.
///
/// ```
/// use agentctl_tools::{Protection, protection};
/// use std::path::Path;
///
/// let root = Path::new("/nonexistent/project");
/// assert_eq!(protection(root, Path::new("src/../.git/config")), Some(Protection::Protected(".git")));
/// assert_eq!(protection(root, Path::new("vendor/lib/.git/hooks/pre-commit")), Some(Protection::Protected(".git")));
/// assert_eq!(protection(root, Path::new(".agentctl/sessions.db-wal")), Some(Protection::SessionDatabase));
/// assert_eq!(protection(root, Path::new("src/main.rs")), None);
/// assert_eq!(protection(root, Path::new(".gitignore")), None);
/// ```
pub fn protection(root: &Path, path: &Path) -> Option<Protection> {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        root.join(path)
    };
    let roots = [
        normalize(root),
        root.canonicalize().unwrap_or_else(|_| normalize(root)),
    ];
    let judged = |candidate: &Path| {
        roots
            .iter()
            .find_map(|root| candidate.strip_prefix(root).ok())
            .and_then(judge)
    };
    let written = normalize(&joined);
    let resolved = resolve_existing(&written);
    worst(judged(&written), judged(&resolved))
}

/// Judges a path relative to the project root, without `.` or `..`: the session database at
/// the top of `.agentctl/`, else protected when any of its names is a protected one.
pub(crate) fn judge(relative: &Path) -> Option<Protection> {
    let names: Vec<Cow<'_, str>> = relative
        .components()
        .filter_map(|component| match component {
            Component::Normal(name) => Some(name.to_string_lossy()),
            _ => None,
        })
        .collect();
    if let [first, second] = names.as_slice()
        && same_name(first, ".agentctl")
        && DATABASE_FILES.iter().any(|file| same_name(second, file))
    {
        return Some(Protection::SessionDatabase);
    }
    names.iter().find_map(|name| protected_name(name))
}

/// Judges a path that may lie anywhere, from its names alone: the session database when it
/// ends in `.agentctl/<database file>`, else protected when any name is a protected one. For
/// spellings the tools refuse (`/proc/self/cwd/.git/config`) but another tool might take.
pub(crate) fn judge_anywhere(path: &Path) -> Option<Protection> {
    let mut names = path
        .components()
        .rev()
        .filter_map(|component| match component {
            Component::Normal(name) => Some(name.to_string_lossy()),
            _ => None,
        });
    let last = names.next()?;
    let names: Vec<Cow<'_, str>> = names.collect();
    if names
        .first()
        .is_some_and(|parent| same_name(parent, ".agentctl"))
        && DATABASE_FILES.iter().any(|file| same_name(&last, file))
    {
        return Some(Protection::SessionDatabase);
    }
    std::iter::once(&last)
        .chain(&names)
        .find_map(|name| protected_name(name))
}

/// The more severe of two judgements.
fn worst(a: Option<Protection>, b: Option<Protection>) -> Option<Protection> {
    match (a, b) {
        (Some(Protection::SessionDatabase), _) | (_, Some(Protection::SessionDatabase)) => {
            Some(Protection::SessionDatabase)
        }
        (a, b) => a.or(b),
    }
}

/// The protected folder `name` stands for, if any.
fn protected_name(name: &str) -> Option<Protection> {
    PROTECTED_DIRS
        .iter()
        .find(|dir| same_name(name, dir))
        .map(|dir| Protection::Protected(dir))
}

/// Whether a file system, or a careless reader, could take `name` for `wanted`: ASCII case
/// ignored (macOS, Windows), invisible code points dropped (HFS+ ignores several), blanks at
/// either end and, as Windows does, trailing dots and an NTFS stream suffix ignored.
fn same_name(name: &str, wanted: &str) -> bool {
    let visible: String = name
        .chars()
        .filter(|&ch| odd_character(ch).is_none())
        .collect();
    let name = visible.split(':').next().unwrap_or(&visible);
    let name = name
        .trim_start_matches(char::is_whitespace)
        .trim_end_matches(|ch: char| ch == '.' || ch.is_whitespace());
    name.eq_ignore_ascii_case(wanted)
}

/// Removes `.` and resolves `..` lexically.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// Resolves the symlinks of the longest existing prefix of `path` and appends the rest.
fn resolve_existing(path: &Path) -> PathBuf {
    let mut rest = Vec::new();
    let mut current = path.to_path_buf();
    loop {
        if let Ok(real) = current.canonicalize() {
            let mut out = real;
            for part in rest.iter().rev() {
                out.push(part);
            }
            return out;
        }
        match (current.file_name().map(ToOwned::to_owned), current.parent()) {
            (Some(name), Some(parent)) => {
                rest.push(name);
                current = parent.to_path_buf();
            }
            _ => return path.to_path_buf(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symlinks_and_dot_dot_are_resolved() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join(".git/hooks")).unwrap();
        std::fs::create_dir_all(root.join("src")).unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(root.join(".git"), root.join("src/g")).unwrap();
        #[cfg(unix)]
        assert_eq!(
            protection(root, Path::new("src/g/hooks/pre-commit")),
            Some(Protection::Protected(".git"))
        );
        assert_eq!(
            protection(root, Path::new("./src/../.claude/agents/x.md")),
            Some(Protection::Protected(".claude"))
        );
        assert_eq!(
            protection(root, &root.join(".agentctl/sessions.db")),
            Some(Protection::SessionDatabase)
        );
        assert_eq!(
            protection(root, Path::new(".agentctl/memory.db-wal")),
            Some(Protection::SessionDatabase)
        );
        assert_eq!(
            protection(root, Path::new(".agentctl/settings.json")),
            Some(Protection::Protected(".agentctl"))
        );
        assert_eq!(protection(root, Path::new("/etc/passwd")), None);
    }

    #[test]
    fn protected_at_any_depth_and_in_any_spelling_a_file_system_takes_for_it() {
        for (path, expected) in [
            ("sub/.git/config", Some(Protection::Protected(".git"))),
            ("src/.git", Some(Protection::Protected(".git"))),
            (
                "a/b/.claude/settings.json",
                Some(Protection::Protected(".claude")),
            ),
            (".GIT/config", Some(Protection::Protected(".git"))),
            ("sub/.Gemini/x", Some(Protection::Protected(".gemini"))),
            (".git./config", Some(Protection::Protected(".git"))),
            (
                ".git::$INDEX_ALLOCATION/config",
                Some(Protection::Protected(".git")),
            ),
            (
                " .agentctl/settings.json",
                Some(Protection::Protected(".agentctl")),
            ),
            ("\u{200B}.git/config", Some(Protection::Protected(".git"))),
            (".g\u{200C}it/hooks/x", Some(Protection::Protected(".git"))),
            (".AGENTCTL/Sessions.DB", Some(Protection::SessionDatabase)),
            // Only the project's own database, at the top, is never writable.
            (
                "sub/.agentctl/sessions.db",
                Some(Protection::Protected(".agentctl")),
            ),
            (
                ".agentctl/old/sessions.db",
                Some(Protection::Protected(".agentctl")),
            ),
            (".gitignore", None),
            (".github/workflows/ci.yml", None),
            ("src/git/config", None),
            ("x.git/config", None),
        ] {
            assert_eq!(judge(Path::new(path)), expected, "{path}");
        }
    }

    #[test]
    fn anywhere_judges_names_alone() {
        for (path, expected) in [
            (
                "/proc/self/cwd/.git/config",
                Some(Protection::Protected(".git")),
            ),
            (
                "/proc/self/cwd/.agentctl/sessions.db",
                Some(Protection::SessionDatabase),
            ),
            (
                "/dev/fd/../cwd/.agentctl/settings.json",
                Some(Protection::Protected(".agentctl")),
            ),
            (
                "/elsewhere/.agentctl/memory.db-shm",
                Some(Protection::SessionDatabase),
            ),
            ("/etc/passwd", None),
            ("", None),
        ] {
            assert_eq!(judge_anywhere(Path::new(path)), expected, "{path}");
        }
    }
}
