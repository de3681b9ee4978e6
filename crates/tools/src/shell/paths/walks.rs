//! Walks below a folder, bounded: for links that lead out of the project (programs that follow
//! links as they walk) and for protected folders (commands that change a whole tree).

use super::glob::take;
use super::names::{DATABASES, protected_name, protected_names};
use super::resolve::Node;
use super::{Folder, MAX_WALK, Paths, Protected, Word};
use std::path::Path;

impl Paths {
    /// A symbolic link below the folder `word` names that leads outside the project, for the
    /// programs that follow links as they walk (`grep -R`, `rg -L`, `find -L`, `diff -r`):
    /// the first one found, or why the walk stopped. `None` if there is none, or if the word
    /// is not a folder in the project (then it is rated as a read of its own).
    pub(crate) fn link_out_below(&self, word: &Word) -> Option<String> {
        for target in self.targets(word)? {
            let Node::Fs(start) = target.node else {
                continue;
            };
            if start.starts_with(&self.real_root)
                && start.is_dir()
                && let Some(found) = self.walk_for_links(&start)
            {
                return Some(found);
            }
        }
        None
    }

    fn walk_for_links(&self, start: &Path) -> Option<String> {
        let mut folders = vec![start.to_path_buf()];
        // Folders reached through links inside the project are walked too, once.
        let mut walked = std::collections::HashSet::new();
        let mut seen = 0;
        while let Some(folder) = folders.pop() {
            if !walked.insert(folder.canonicalize().unwrap_or_else(|_| folder.clone())) {
                continue;
            }
            let Ok(entries) = std::fs::read_dir(&folder) else {
                continue;
            };
            for entry in entries.flatten() {
                seen += 1;
                if seen > MAX_WALK || !take(&self.budget) {
                    return Some(format!(
                        "more files below {} than the rater reads",
                        self.shown(start)
                    ));
                }
                let Ok(kind) = entry.file_type() else {
                    continue;
                };
                let path = entry.path();
                if kind.is_symlink() {
                    match path.canonicalize() {
                        Ok(real) if !real.starts_with(&self.real_root) => {
                            return Some(self.shown(&path));
                        }
                        Ok(real) if real.is_dir() => folders.push(real),
                        _ => {}
                    }
                } else if kind.is_dir() {
                    folders.push(path);
                }
            }
        }
        None
    }

    /// A protected path below the folder `word` names, in the project, for commands that
    /// change a whole tree (`rm -r`, `mv`, `chmod -R`, `find -delete`, `find -exec … {}`): the
    /// first one (nearest first) whose name `wanted` accepts, anywhere inside a protected
    /// folder — the session database when an accepted `.agentctl/` holds one.
    pub(crate) fn protected_below(
        &self,
        word: &Word,
        wanted: &dyn Fn(&str) -> bool,
    ) -> Option<Protected> {
        for target in self.targets(word)? {
            let Node::Fs(start) = target.node else {
                continue;
            };
            if start.starts_with(&self.real_root)
                && start.is_dir()
                && let Some(found) = self.walk_for_protected(&start, wanted)
            {
                return Some(found);
            }
        }
        None
    }

    fn walk_for_protected(&self, start: &Path, wanted: &dyn Fn(&str) -> bool) -> Option<Protected> {
        let start_inside = self.protected_at(start).is_some();
        let mut folders = std::collections::VecDeque::from([(start.to_path_buf(), start_inside)]);
        let mut seen = 0;
        while let Some((folder, under)) = folders.pop_front() {
            let Ok(entries) = std::fs::read_dir(&folder) else {
                continue;
            };
            for entry in entries.flatten() {
                seen += 1;
                if seen > MAX_WALK || !take(&self.budget) {
                    return None;
                }
                let name = entry.file_name().to_string_lossy().into_owned();
                let path = entry.path();
                let inside = under || protected_name(&name).is_some();
                if inside && wanted(&name) {
                    let database = DATABASES
                        .iter()
                        .map(|db| path.join(db))
                        .find(|db| db.symlink_metadata().is_ok());
                    return self.protected_at(database.as_deref().unwrap_or(&path));
                }
                if entry.file_type().is_ok_and(|kind| kind.is_dir()) {
                    folders.push_back((path, inside));
                }
            }
        }
        None
    }

    /// A path for a reason: relative to the root when it is inside.
    fn shown(&self, path: &Path) -> String {
        path.strip_prefix(&self.real_root).map_or_else(
            |_| path.display().to_string(),
            |rest| rest.display().to_string(),
        )
    }

    /// What the folder `word` names holds, for a copy into it.
    pub(crate) fn folder(&self, word: &Word) -> Folder {
        let mut folder = Folder::default();
        for target in self.targets(word).unwrap_or_default() {
            let Node::Fs(path) = &target.node else {
                continue;
            };
            folder.root |= *path == self.real_root;
            folder.exists |= path.is_dir();
            if folder.protected_child.is_none() {
                folder.protected_child =
                    protected_names().find(|name| path.join(name).symlink_metadata().is_ok());
            }
        }
        folder
    }
}
