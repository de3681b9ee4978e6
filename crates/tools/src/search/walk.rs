//! The project walk behind `grep`, `glob` and `read_many_files`.
//!
//! It honours ignore files as ripgrep does — `.ignore` over `.gitignore` over
//! `.git/info/exclude` over the user's global excludes, deeper folders over shallower ones,
//! also outside a git repository — skips hidden entries and never follows symlinks. It does not
//! use the `ignore` crate's walker because that one opens every `.gitignore` with a plain
//! `File::open` and reads it whole: a FIFO named `.gitignore` would hang the walk and a huge one
//! would fill memory. Here the ignore files go through the same safe open as the tools (regular
//! files only, never blocking) and only their first [`MAX_RULES_BYTES`] are read. Ignore files
//! in folders above the project root are not read: they are not the project's.

use crate::open::open_read;
use crate::paths::ProjectRoot;
use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use std::io::Read as _;
use std::path::{Component, Path, PathBuf};

/// Most bytes of one ignore file that are read.
const MAX_RULES_BYTES: u64 = 1024 * 1024;

/// The ignore rules one folder contributes.
struct Rules {
    ignore: Option<Gitignore>,
    gitignore: Option<Gitignore>,
    exclude: Option<Gitignore>,
}

impl Rules {
    fn load(root: &ProjectRoot, dir: &Path) -> Self {
        let has_git = std::fs::symlink_metadata(dir.join(".git")).is_ok_and(|meta| meta.is_dir());
        Self {
            ignore: rules_file(root, dir, ".ignore"),
            gitignore: rules_file(root, dir, ".gitignore"),
            exclude: has_git
                .then(|| rules_file(root, dir, ".git/info/exclude"))
                .flatten(),
        }
    }
}

/// The rules of `dir/name`, if it is a readable regular file with any rules in it. A FIFO,
/// device or hard-linked file is passed over like a missing one.
fn rules_file(root: &ProjectRoot, dir: &Path, name: &str) -> Option<Gitignore> {
    let path = dir.join(name);
    // Most folders have none: one `lstat` instead of opening the way down from the root.
    if !std::fs::symlink_metadata(&path).is_ok_and(|meta| meta.is_file()) {
        return None;
    }
    let opened = open_read(root, &path).ok()?;
    let mut text = Vec::new();
    opened
        .file
        .take(MAX_RULES_BYTES)
        .read_to_end(&mut text)
        .ok()?;
    let mut builder = GitignoreBuilder::new(dir);
    for line in String::from_utf8_lossy(&text).lines() {
        // A malformed line is skipped, as git does.
        let _ = builder.add_line(Some(path.clone()), line);
    }
    builder.build().ok().filter(|rules| !rules.is_empty())
}

/// Regular files under `base` (a canonical path inside `root`), ignore files honoured, hidden
/// entries skipped, symlinks not followed. When `base` is itself a regular file it is the only
/// one, ignored or not, as when it is named on ripgrep's command line.
pub(crate) fn walk_files(root: &ProjectRoot, base: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let Ok(meta) = std::fs::symlink_metadata(base) else {
        return found;
    };
    if meta.is_file() {
        found.push(base.to_path_buf());
        return found;
    }
    if !meta.is_dir() {
        return found;
    }
    let global = Gitignore::global().0;
    // The rules of the folders from the root down to (not including) `base`.
    let mut rules = Vec::new();
    let mut dir = root.path().to_path_buf();
    for part in base
        .strip_prefix(root.path())
        .unwrap_or(Path::new(""))
        .components()
    {
        if let Component::Normal(part) = part {
            rules.push(Rules::load(root, &dir));
            dir.push(part);
        }
    }
    // Depth-first with an explicit stack, so a deep tree cannot overflow the thread's stack;
    // `rules` always holds the rules of the folders above the one being read.
    let mut todo = vec![(base.to_path_buf(), rules.len())];
    while let Some((dir, depth)) = todo.pop() {
        rules.truncate(depth);
        rules.push(Rules::load(root, &dir));
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.filter_map(Result::ok) {
            if entry.file_name().as_encoded_bytes().first() == Some(&b'.') {
                continue;
            }
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let path = entry.path();
            if kind.is_dir() {
                if !ignored(&rules, &global, &path, true) {
                    todo.push((path, depth + 1));
                }
            } else if kind.is_file() && !ignored(&rules, &global, &path, false) {
                found.push(path);
            }
            // Symlinks, FIFOs, sockets and devices are neither listed nor opened.
        }
    }
    found
}

/// ripgrep's precedence: the deepest folder with a verdict wins within each kind of file, and
/// `.ignore` beats `.gitignore`, which beats `.git/info/exclude`, which beats the global file.
fn ignored(rules: &[Rules], global: &Gitignore, path: &Path, is_dir: bool) -> bool {
    let verdict = |pick: fn(&Rules) -> Option<&Gitignore>| {
        rules
            .iter()
            .rev()
            .filter_map(pick)
            .map(|set| set.matched(path, is_dir))
            .find(|verdict| !verdict.is_none())
    };
    let verdict: Match<_> = verdict(|rules| rules.ignore.as_ref())
        .or_else(|| verdict(|rules| rules.gitignore.as_ref()))
        .or_else(|| verdict(|rules| rules.exclude.as_ref()))
        .unwrap_or_else(|| global.matched(path, is_dir));
    verdict.is_ignore()
}
