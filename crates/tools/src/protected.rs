//! Protected paths: the folders that hold agentctl's, git's and other agents' own state.
//!
//! A write, rename or delete under `.agentctl/`, `.git/`, `.claude/` or `.gemini/` of the
//! project is rated at least `high` and is never auto-approved: a person must say yes each
//! time. The session database (`.agentctl/sessions.db` and its journal files) and the
//! long-term memory store beside it (`.agentctl/memory.db`) are never writable by a tool at all. Paths are judged after resolving `.`/`..` and any symlinks of
//! the part that exists, so `src/../.git/config` or a link to `.agentctl` are caught too.

use agentctl_core::PROTECTED_DIRS;
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
}

/// Judges `path` (relative to `root`, or absolute) against the protected paths of `root`.
///
/// ```
/// use agentctl_tools::{Protection, protection};
/// use std::path::Path;
///
/// let root = Path::new("/nonexistent/project");
/// assert_eq!(protection(root, Path::new("src/../.git/config")), Some(Protection::Protected(".git")));
/// assert_eq!(protection(root, Path::new(".agentctl/sessions.db-wal")), Some(Protection::SessionDatabase));
/// assert_eq!(protection(root, Path::new("src/main.rs")), None);
/// ```
pub fn protection(root: &Path, path: &Path) -> Option<Protection> {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        root.join(path)
    };
    let root = root.canonicalize().unwrap_or_else(|_| normalize(root));
    let resolved = resolve_existing(&normalize(&joined));
    let relative = resolved.strip_prefix(&root).ok()?;
    let mut parts = relative.components().filter_map(|part| match part {
        Component::Normal(name) => name.to_str(),
        _ => None,
    });
    let first = parts.next()?;
    let dir = PROTECTED_DIRS.iter().find(|dir| **dir == first)?;
    let second = parts.next();
    if *dir == ".agentctl" && parts.next().is_none() && second.is_some_and(is_database_file) {
        return Some(Protection::SessionDatabase);
    }
    Some(Protection::Protected(dir))
}

fn is_database_file(name: &str) -> bool {
    DATABASE_FILES.contains(&name)
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
        assert_eq!(protection(root, Path::new("src/.git")), None);
        assert_eq!(protection(root, Path::new("/etc/passwd")), None);
    }
}
