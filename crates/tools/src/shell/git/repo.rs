//! The repository a `git` command would use, found as git finds it: from the folder it runs
//! in, upwards, the first folder with a `.git` (a folder, or a file saying `gitdir: …`) or
//! that is itself a repository (`HEAD`, `objects/`, `refs/`). Read-only git is only proven
//! harmless in the project's own repository (at the root or above it), and only when its
//! configuration sets nothing that runs a program (`config.rs`).

use super::config;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Longest `.git` file (`gitdir: …`) or `commondir` file read.
const MAX_POINTER_BYTES: u64 = 4096;

/// Why git in `start` may run something the rater cannot see; `None` when it uses no
/// repository or the project's own with a configuration that runs nothing.
pub(crate) fn risk(start: Option<&Path>, root: &Path) -> Option<String> {
    let Some(start) = start else {
        return Some("git runs in a folder the rater cannot locate".to_owned());
    };
    if !start.starts_with(root) {
        return Some(format!(
            "git runs outside the project ({}), with that repository's configuration",
            start.display()
        ));
    }
    let (top, git_dir) = discover(start)?;
    let project_dir = root.join(".git");
    let own = !top.starts_with(root) || top == root || git_dir == project_dir;
    if !own {
        let shown = top.strip_prefix(root).unwrap_or(&top).display().to_string();
        return Some(format!(
            "git would use the nested repository {shown}/, whose configuration can run programs"
        ));
    }
    let files = config_files(&git_dir);
    config::check(&files).err()
}

/// The folder whose repository git uses, and that repository's git folder.
fn discover(start: &Path) -> Option<(PathBuf, PathBuf)> {
    let mut dir = Some(start);
    while let Some(here) = dir {
        let dot_git = here.join(".git");
        if let Ok(meta) = dot_git.symlink_metadata() {
            let git_dir = if meta.is_file() {
                pointer(&dot_git, "gitdir:").unwrap_or(dot_git)
            } else {
                dot_git
            };
            return Some((here.to_path_buf(), git_dir));
        }
        if is_git_dir(here) {
            return Some((here.to_path_buf(), here.to_path_buf()));
        }
        dir = here.parent();
    }
    None
}

/// Whether `dir` is a repository's git folder itself (a bare repository, or `.git/`).
fn is_git_dir(dir: &Path) -> bool {
    dir.join("HEAD").is_file()
        && (dir.join("commondir").is_file()
            || (dir.join("objects").is_dir() && dir.join("refs").is_dir()))
}

/// The configuration files of a git folder: its `config` and `config.worktree`, and for a
/// linked worktree the `config` of the common folder it names.
fn config_files(git_dir: &Path) -> Vec<PathBuf> {
    let mut files = vec![git_dir.join("config"), git_dir.join("config.worktree")];
    let commondir = git_dir.join("commondir");
    if let Some(common) = pointer(&commondir, "") {
        files.push(common.join("config"));
    }
    files
}

/// A path written in a small file (`gitdir: ../x`), relative to the file's folder.
fn pointer(file: &Path, prefix: &str) -> Option<PathBuf> {
    // Only a regular file: opening a FIFO would wait for a writer forever.
    if !file.metadata().is_ok_and(|meta| meta.is_file()) {
        return None;
    }
    let mut text = String::new();
    std::fs::File::open(file)
        .ok()?
        .take(MAX_POINTER_BYTES)
        .read_to_string(&mut text)
        .ok()?;
    let value = text.lines().next()?.strip_prefix(prefix)?.trim();
    if value.is_empty() {
        return None;
    }
    let path = Path::new(value);
    Some(if path.is_absolute() {
        path.to_path_buf()
    } else {
        file.parent()?.join(path)
    })
}
