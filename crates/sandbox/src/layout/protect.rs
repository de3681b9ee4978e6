//! The protected paths of a project: [`PROTECTED_DIRS`] at the root and in nested folders
//! (found by a bounded walk), the caller's extra paths, and the repository folders of a
//! project that is a git worktree or lies inside a repository.

use agentctl_core::PROTECTED_DIRS;
use std::collections::VecDeque;
use std::path::{Path, PathBuf};

/// Most folders the walk for nested protected folders reads, over all writable roots.
/// Beyond it nested repositories are not protected, and the status says so.
pub const WALK_CAP: usize = 50_000;

/// What the walk found.
#[derive(Debug, Default)]
pub(crate) struct Found {
    pub paths: Vec<PathBuf>,
    pub capped: bool,
}

/// The protected paths under `writable` (the project root first among them), plus `extra`
/// where they exist. Creates `<root>/.agentctl` (mode 0700) when it is missing, so that
/// agentctl's own folder is protected from the first command on.
pub(crate) fn find(root: &Path, writable: &[PathBuf], extra: &[PathBuf]) -> Found {
    let own = root.join(".agentctl");
    if std::fs::symlink_metadata(&own).is_err() {
        use std::os::unix::fs::DirBuilderExt as _;
        // A failure (a read-only project) leaves nothing to protect there.
        let _ = std::fs::DirBuilder::new().mode(0o700).create(&own);
    }
    let mut found = walk(writable, WALK_CAP);
    found.paths.extend(
        extra
            .iter()
            .map(|path| super::normalize(path))
            .filter(|path| std::fs::symlink_metadata(path).is_ok()),
    );
    found
}

/// Breadth-first over the folders of `roots` (no symbolic link followed, file types from the
/// directory entries), collecting every entry named as a protected folder (a folder, or a
/// file such as a worktree's `.git`) without descending into it. Stops after `cap` folders.
pub(crate) fn walk(roots: &[PathBuf], cap: usize) -> Found {
    let mut found = Found::default();
    let mut queue: VecDeque<PathBuf> = roots.iter().cloned().collect();
    let mut read = 0usize;
    while let Some(dir) = queue.pop_front() {
        if read == cap {
            found.capped = true;
            break;
        }
        read += 1;
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.filter_map(Result::ok) {
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_symlink() {
                continue;
            }
            let name = entry.file_name();
            if PROTECTED_DIRS.iter().any(|protected| name == *protected) {
                found.paths.push(entry.path());
            } else if kind.is_dir() {
                queue.push_back(entry.path());
            }
        }
    }
    found
}

/// The repository folders a project needs to read that lie outside it: for a root (or the
/// nearest ancestor) whose `.git` is a worktree's pointer file, the worktree's git folder
/// and the main repository's; for a root inside a repository, that repository's `.git`.
///
/// A pointer is followed only when the git folder it names points back at it (git's own
/// `gitdir` file of a worktree), so a `.git` file written by a command cannot make another
/// folder visible.
pub(crate) fn repository_dirs(root: &Path) -> Vec<PathBuf> {
    let Some(dotgit) = root
        .ancestors()
        .map(|dir| dir.join(".git"))
        .find(|dotgit| std::fs::symlink_metadata(dotgit).is_ok())
    else {
        return Vec::new();
    };
    let mut dirs = Vec::new();
    if !dotgit.starts_with(root) {
        dirs.push(dotgit.clone());
    }
    if dotgit.is_file()
        && let Some(gitdir) = worktree_gitdir(&dotgit)
    {
        if let Some(common) = read_pointer(&gitdir.join("commondir"), &gitdir) {
            dirs.push(common);
        }
        dirs.push(gitdir);
    }
    dirs
}

/// The git folder named by the pointer file `dotgit`, if it names `dotgit` back.
fn worktree_gitdir(dotgit: &Path) -> Option<PathBuf> {
    let base = dotgit.parent()?;
    let text = std::fs::read_to_string(dotgit).ok()?;
    let gitdir = text.strip_prefix("gitdir:")?.trim();
    let gitdir = super::normalize(&base.join(gitdir));
    let back = read_pointer(&gitdir.join("gitdir"), &gitdir)?;
    let same = match (back.canonicalize(), dotgit.canonicalize()) {
        (Ok(back), Ok(dotgit)) => back == dotgit,
        _ => false,
    };
    same.then_some(gitdir)
}

/// The path written in `file` (relative to `base`), normalized.
fn read_pointer(file: &Path, base: &Path) -> Option<PathBuf> {
    let text = std::fs::read_to_string(file).ok()?;
    let line = text.lines().next()?.trim();
    (!line.is_empty()).then(|| super::normalize(&base.join(line)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_walk_finds_nested_protected_folders_and_files_and_stops_at_the_cap() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for sub in [
            ".git/hooks",
            "a/b/.git",
            "a/.claude",
            "c/d/e",
            ".git/x/.agentctl",
        ] {
            std::fs::create_dir_all(root.join(sub)).unwrap();
        }
        std::fs::write(root.join("c/.git"), "gitdir: /elsewhere").unwrap();
        std::os::unix::fs::symlink(root.join("a"), root.join("link")).unwrap();
        let mut found = walk(&[root.to_path_buf()], WALK_CAP);
        found.paths.sort();
        assert_eq!(
            found.paths,
            [".git", "a/.claude", "a/b/.git", "c/.git"].map(|path| root.join(path))
        );
        assert!(!found.capped);
        let capped = walk(&[root.to_path_buf()], 2);
        assert!(capped.capped);
        assert!(capped.paths.contains(&root.join(".git")));
    }

    #[test]
    fn a_worktree_pointer_is_followed_only_when_it_is_pointed_back_at() {
        let dir = tempfile::tempdir().unwrap();
        let main = dir.path().join("main/.git");
        let gitdir = main.join("worktrees/wt");
        let root = dir.path().join("wt");
        std::fs::create_dir_all(&gitdir).unwrap();
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(root.join(".git"), format!("gitdir: {}\n", gitdir.display())).unwrap();
        std::fs::write(gitdir.join("commondir"), "../..\n").unwrap();
        assert!(repository_dirs(&root).is_empty(), "no back pointer");
        std::fs::write(
            gitdir.join("gitdir"),
            format!("{}\n", root.join(".git").display()),
        )
        .unwrap();
        assert_eq!(repository_dirs(&root), [main.clone(), gitdir.clone()]);
        // A folder inside the repository sees the same, and the pointer file itself.
        let sub = root.join("sub");
        std::fs::create_dir(&sub).unwrap();
        assert_eq!(repository_dirs(&sub), [root.join(".git"), main, gitdir]);
    }
}
