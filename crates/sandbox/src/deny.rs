//! The paths `Read(…)` / `Edit(…)` deny rules name on disk when a command starts: what the
//! sandbox hides from it and what it makes read-only ([`Denied`]).
//!
//! A pattern names what it matches, and what lies below that. The files and folders that
//! exist when the command starts are found by a walk from the pattern's literal folder (no
//! symbolic link followed), bounded by [`DENY_WALK_CAP`] entries for each pattern. A folder
//! all of whose possible entries match (`secrets/**`, `secrets/*`) is denied as a whole, so
//! that files created in it later are covered too; for other globs (`config/*.key`, `*.pem`)
//! only the matching entries that exist are. With namespaces a denied entry is hidden (an
//! empty folder, an empty file) or mounted read-only; with Landlock alone the rights are
//! granted to every other entry of the folders on the way (see [`carve`]).

use crate::pattern::PathPattern;
use std::collections::VecDeque;
use std::path::{Path, PathBuf};

/// Most directory entries the walk for one deny pattern reads at each spawn.
/// Beyond it the sandbox enforces what was found, the permission gate's check of the
/// command's words still holds, and the status says so.
pub const DENY_WALK_CAP: usize = 20_000;

/// A name no pattern written for real files matches unless it covers every name in a folder.
const PROBE: &str = "\u{1}agentctl-any-name\u{1}";

/// The denied paths of one spawn.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Denied {
    /// Not to be read (nor written): hidden.
    pub read: Vec<PathBuf>,
    /// Not to be written: read-only.
    pub write: Vec<PathBuf>,
    /// A walk stopped at [`DENY_WALK_CAP`] entries.
    pub capped: bool,
}

impl Denied {
    /// The entries under the `visible` folders that `read` and `write` patterns (compiled
    /// against `root` and `home`) name now.
    pub(crate) fn find(
        (read, write): (&[String], &[String]),
        (root, home): (&Path, Option<&Path>),
        visible: &[PathBuf],
    ) -> Denied {
        let mut capped = false;
        let mut resolve = |patterns: &[String]| {
            let mut found = Vec::new();
            for text in patterns {
                // Each pattern its own budget: a wide one (`*.pem`) cut short leaves the
                // narrow ones (`./config/*.key`) whole.
                let mut budget = DENY_WALK_CAP;
                for pattern in PathPattern::new(text, &[root.to_path_buf()], home) {
                    capped |= walk(&pattern, visible, &mut budget, &mut found);
                }
            }
            let mut found = followed(found, visible);
            found.sort();
            found.dedup();
            found
        };
        let read = resolve(read);
        let write = resolve(write);
        Denied {
            read,
            write,
            capped,
        }
    }
}

/// Adds what `pattern` names below `visible` to `found`; `true` when the budget ran out.
fn walk(
    pattern: &PathPattern,
    visible: &[PathBuf],
    budget: &mut usize,
    found: &mut Vec<PathBuf>,
) -> bool {
    let literal = pattern.literal();
    // Where the pattern's own folder is visible, start there; where it is wider (`//**/x`,
    // `*.pem`), start at the visible folders inside it.
    let starts: Vec<PathBuf> = if visible.iter().any(|base| literal.starts_with(base)) {
        vec![literal.to_path_buf()]
    } else {
        visible
            .iter()
            .filter(|base| base.starts_with(literal))
            .cloned()
            .collect()
    };
    let mut queue = VecDeque::new();
    for start in starts {
        let Ok(meta) = std::fs::symlink_metadata(&start) else {
            continue;
        };
        if pattern.matches(&start) || (meta.is_dir() && pattern.matches(&start.join(PROBE))) {
            found.push(start);
        } else if meta.is_dir() {
            queue.push_back(start);
        }
    }
    while let Some(dir) = queue.pop_front() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.filter_map(Result::ok) {
            if *budget == 0 {
                return true;
            }
            *budget -= 1;
            let path = entry.path();
            let is_dir = entry.file_type().is_ok_and(|kind| kind.is_dir());
            if pattern.matches(&path) || (is_dir && pattern.matches(&path.join(PROBE))) {
                found.push(path);
            } else if is_dir {
                queue.push_back(path);
            }
        }
    }
    false
}

/// `found` with each symbolic link replaced by what it leads to, when that is visible (a
/// link elsewhere shows nothing, and the sandbox mounts by path, following links).
fn followed(found: Vec<PathBuf>, visible: &[PathBuf]) -> Vec<PathBuf> {
    found
        .into_iter()
        .filter_map(|path| {
            let is_link = std::fs::symlink_metadata(&path).is_ok_and(|meta| meta.is_symlink());
            if !is_link {
                return Some(path);
            }
            let target = path.canonicalize().ok()?;
            visible
                .iter()
                .any(|base| target.starts_with(base))
                .then_some(target)
        })
        .collect()
}

/// What Landlock grants for `dir` without reaching any of `denied`: `dir` itself when no
/// denied path lies in it, nothing when it is denied, else each of its entries carved the
/// same way (`granted`), and `dir` with every folder on the way to a denied path (`on_the_way`:
/// the caller gives them what cannot reveal or change a denied file's contents).
pub(crate) fn carve(dir: &Path, denied: &[PathBuf], granted: &mut Vec<PathBuf>) -> Vec<PathBuf> {
    let mut on_the_way = Vec::new();
    carve_into(dir, denied, granted, &mut on_the_way);
    on_the_way
}

fn carve_into(
    dir: &Path,
    denied: &[PathBuf],
    granted: &mut Vec<PathBuf>,
    on_the_way: &mut Vec<PathBuf>,
) {
    if denied.iter().any(|path| path == dir) {
        return;
    }
    if !denied.iter().any(|path| path.starts_with(dir)) {
        granted.push(dir.to_path_buf());
        return;
    }
    on_the_way.push(dir.to_path_buf());
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.filter_map(Result::ok) {
        carve_into(&entry.path(), denied, granted, on_the_way);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        for folder in ["secrets/deep", "config", "src/keys", "locked"] {
            std::fs::create_dir_all(root.join(folder)).unwrap();
        }
        for file in [
            "secrets/key.txt",
            "secrets/deep/k",
            "config/a.key",
            "config/b.toml",
            "src/keys/c.pem",
            "src/main.rs",
            "locked/f",
        ] {
            std::fs::write(root.join(file), "x").unwrap();
        }
        (dir, root)
    }

    fn find(root: &Path, read: &[&str], write: &[&str]) -> Denied {
        let owned = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        Denied::find(
            (&owned(read), &owned(write)),
            (root, Some(Path::new("/nonexistent-home"))),
            &[root.to_path_buf()],
        )
    }

    #[test]
    fn folder_patterns_deny_the_folder_and_file_globs_the_files_that_exist() {
        let (_dir, root) = tree();
        let denied = find(
            &root,
            &["./secrets/**", "./config/*.key", "*.pem", "gone/**"],
            &["/locked/"],
        );
        assert_eq!(
            denied.read,
            ["config/a.key", "secrets", "src/keys/c.pem"].map(|p| root.join(p))
        );
        assert_eq!(denied.write, [root.join("locked")]);
        assert!(!denied.capped);
        // A link the pattern names stands for what it leads to, when that is visible.
        std::os::unix::fs::symlink(root.join("src/keys"), root.join("keys")).unwrap();
        std::os::unix::fs::symlink("/usr", root.join("system")).unwrap();
        let denied = find(&root, &["/keys", "/system"], &[]);
        assert_eq!(denied.read, [root.join("src/keys")]);
        // `secrets/*` covers every name in the folder too; an exact file is itself.
        let denied = find(&root, &["secrets/*", "src/main.rs"], &[]);
        assert_eq!(
            denied.read,
            [root.join("secrets"), root.join("src/main.rs")]
        );
    }

    #[test]
    fn home_patterns_count_only_inside_visible_folders_and_walks_are_bounded() {
        let (_dir, root) = tree();
        let owned = vec!["~/secrets/**".to_string()];
        let denied = Denied::find(
            (&owned, &[]),
            (Path::new("/elsewhere"), Some(&root)),
            std::slice::from_ref(&root),
        );
        assert_eq!(denied.read, [root.join("secrets")]);
        let hidden_home = Denied::find(
            (&owned, &[]),
            (&root, Some(Path::new("/h"))),
            std::slice::from_ref(&root),
        );
        assert!(hidden_home.read.is_empty() && hidden_home.write.is_empty());
        let mut budget = 3;
        let mut found = Vec::new();
        let pattern = &PathPattern::new("*.pem", std::slice::from_ref(&root), None)[0];
        assert!(walk(
            pattern,
            std::slice::from_ref(&root),
            &mut budget,
            &mut found
        ));
    }

    #[test]
    fn carving_grants_every_other_entry_on_the_way() {
        let (_dir, root) = tree();
        let mut granted = Vec::new();
        let on_the_way = carve(&root, &[root.join("secrets/deep")], &mut granted);
        granted.sort();
        assert_eq!(on_the_way, [root.clone(), root.join("secrets")]);
        assert_eq!(
            granted,
            ["config", "locked", "secrets/key.txt", "src"].map(|p| root.join(p))
        );
        let mut granted = Vec::new();
        assert!(carve(&root, std::slice::from_ref(&root), &mut granted).is_empty());
        assert!(granted.is_empty());
    }
}
