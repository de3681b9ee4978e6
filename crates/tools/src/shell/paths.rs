//! Where a path word points: inside the project, outside it, a system path, a disk, another
//! process, a protected folder — as the kernel resolves it (`paths/resolve.rs`), from every
//! folder `cd` may have moved the shell to.

mod glob;
mod resolve;

use super::words::Word;
pub(crate) use glob::Pattern;
use resolve::{Node, Part, Target};
use std::path::{Component, Path, PathBuf};

/// Folders whose files run commands or hold the session: writing there is `high`, at any
/// depth (`sub/.git/config` of a nested repository too), in any case (`.GIT` on macOS).
const PROTECTED: &[(&str, &str)] = &[
    (".git", "hooks and config there run commands"),
    (
        ".agentctl",
        "it holds agentctl's settings and session database",
    ),
    (".claude", "agent settings there run commands"),
    (".gemini", "agent settings there run commands"),
];

/// Names of the session database and the memory store (with their journals) in `.agentctl/`.
const DATABASES: &[&str] = &["sessions.db", "memory.db"];

/// Block devices and memory: writing there destroys a disk or the running system.
#[rustfmt::skip]
const DISKS: &[&str] = &[
    "/dev/sd", "/dev/hd", "/dev/vd", "/dev/xvd", "/dev/nvme", "/dev/mmcblk", "/dev/disk",
    "/dev/rdisk", "/dev/mapper", "/dev/dm-", "/dev/md", "/dev/loop", "/dev/mem", "/dev/kmem",
    "/dev/port",
];

/// Folders of the operating system.
#[rustfmt::skip]
const SYSTEM: &[&str] = &[
    "/etc", "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/boot", "/sys",
    "/proc", "/var", "/opt", "/root", "/dev", "/srv", "/snap", "/System", "/Library",
    "/Applications", "/private",
];

/// A root no file system has (a NUL byte cannot be in a path): without a project root,
/// relative paths resolve under it, lexically.
const NO_ROOT: &str = "/\0project";

/// Where a path points, the worst over every place it may resolve to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Place {
    pub kind: Kind,
    /// A protected folder the path is in, if any.
    pub protected: Option<Protected>,
    /// The path opens a file descriptor again (`/dev/stdin`, `/dev/fd/3`): whatever file a
    /// redirection put there, even one opened only for reading, is opened anew.
    pub descriptor: bool,
}

/// A protected path a word reaches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Protected {
    /// The protected folder's name (`.git`).
    pub name: &'static str,
    /// Why it is protected.
    pub why: &'static str,
    /// The path, relative to the project root when it is inside (`.git/hooks/pre-commit`).
    pub path: String,
    /// It is the session database or the memory store (or one of their journals).
    pub database: bool,
}

/// Kinds of places, from harmless to worst.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Kind {
    /// `/dev/null`, stdin, stdout.
    Sink,
    /// Inside the project root.
    Inside,
    /// Outside the project (absolute, `..`, a symbolic link out).
    Outside,
    /// In a home folder (`~`).
    Home,
    /// Computed when the command runs (`$HOME/x`).
    Dynamic,
    /// A place the rater cannot know (a descriptor above 2, another process's folder).
    Unknown,
    /// A file of a process (`/proc/<pid>/environ`, `/proc/self/mem`).
    Process,
    /// An operating-system folder.
    System,
    /// A disk or memory device.
    Disk,
}

/// What a destination folder holds, for copies that may replace protected folders.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Folder {
    /// It exists and is a folder.
    pub exists: bool,
    /// It is the project root.
    pub root: bool,
    /// A protected folder it holds (`.git`), which a copy of a folder's contents may replace.
    pub protected_child: Option<&'static str>,
}

/// Most entries walked below a folder to look for links out of the project.
const MAX_WALK: usize = 20_000;

/// Most folders tracked after `cd`s; past this the shell's folder is unknown.
const MAX_CWDS: usize = 16;

/// The project root and the folders the shell may be in.
#[derive(Debug)]
pub(crate) struct Paths {
    /// The root as given (lexically normalised), to recognise it in words.
    given_root: Option<PathBuf>,
    /// The root with symbolic links resolved (or [`NO_ROOT`]).
    real_root: PathBuf,
    /// The home folder `~` stands for.
    home: Option<PathBuf>,
    cwds: Vec<Node>,
}

impl Paths {
    pub(crate) fn new(root: Option<&Path>) -> Self {
        let given_root = root.map(normalize);
        let real_root = match &given_root {
            Some(root) => root.canonicalize().unwrap_or_else(|_| root.clone()),
            None => PathBuf::from(NO_ROOT),
        };
        let home = std::env::var_os("HOME")
            .map(PathBuf::from)
            .filter(|home| home.is_absolute());
        Self {
            given_root,
            cwds: vec![Node::Fs(real_root.clone())],
            real_root,
            home,
        }
    }

    /// Where `word` points.
    pub(crate) fn place(&self, word: &Word) -> Place {
        let named = self.protected_by_name(word);
        let Some(targets) = self.targets(word) else {
            return Place {
                kind: Kind::Dynamic,
                protected: named,
                descriptor: false,
            };
        };
        let descriptor = targets.iter().any(|target| target.descriptor);
        let kind = targets
            .iter()
            .map(|target| self.kind(target, word))
            .max()
            .unwrap_or(Kind::Unknown);
        let resolved = targets.iter().find_map(|target| match &target.node {
            Node::Fs(path) => self.protected_at(path),
            _ => None,
        });
        // The resolved path names the file; the name in the word is the fallback (a path
        // through an unknown folder, a pattern, a computed word).
        let protected = match (resolved, named) {
            (Some(resolved), Some(named)) if named.database && !resolved.database => Some(named),
            (Some(resolved), _) => Some(resolved),
            (None, named) => named,
        };
        Place {
            kind,
            protected,
            descriptor,
        }
    }

    /// Applies `cd word`: the shell may now be there too (or still here, if `cd` fails).
    /// `cd` is logical in `sh`: it removes `..` from the text before the kernel follows the
    /// links, so both that folder and the one the kernel reaches from here count.
    pub(crate) fn cd(&mut self, word: &Word) {
        let Some(mut targets) = self.targets(word) else {
            self.enter(vec![Node::Unknown(
                "a folder computed when the command runs",
            )]);
            return;
        };
        if word.globs.is_empty() && !word.tilde {
            for node in &self.cwds {
                let Node::Fs(base) = node else { continue };
                let logical = lexical(&base.join(&word.text));
                let text = Word::literal(logical.to_string_lossy());
                let root = [Node::Fs(PathBuf::from("/"))];
                targets.extend(resolve::resolve(&root, components(&text, 0), &self.cwds));
            }
        }
        let next = targets
            .into_iter()
            .map(|target| match target.node {
                Node::Fs(path) if !target.foreign => Node::Fs(path),
                _ => Node::Unknown("a folder the rater cannot know"),
            })
            .collect();
        self.enter(next);
    }

    /// The shell may have gone to a folder the rater cannot know (`cd`, `cd -`).
    pub(crate) fn cd_unknown(&mut self) {
        self.enter(vec![Node::Unknown("a folder the rater cannot know")]);
    }

    fn enter(&mut self, next: Vec<Node>) {
        for node in next {
            if !self.cwds.contains(&node) {
                self.cwds.push(node);
            }
        }
        if self.cwds.len() > MAX_CWDS {
            self.cwds = vec![Node::Unknown("too many folders to follow")];
        }
    }

    /// The folders the shell may be in (`None` for one the rater cannot know).
    pub(crate) fn cwd_dirs(&self) -> Vec<Option<PathBuf>> {
        self.cwds
            .iter()
            .map(|node| match node {
                Node::Fs(path) if self.has_root() => Some(path.clone()),
                _ => None,
            })
            .collect()
    }

    /// The project root with its links resolved, when there is one.
    pub(crate) fn real_root(&self) -> Option<&Path> {
        self.has_root().then_some(self.real_root.as_path())
    }

    fn has_root(&self) -> bool {
        self.given_root.is_some()
    }

    /// Whether a plain path exists, from any folder the shell may be in; `None` without a
    /// root or for a word computed at run time.
    pub(crate) fn exists(&self, word: &Word) -> Option<bool> {
        if !self.has_root() {
            return None;
        }
        let targets = self.targets(word)?;
        Some(targets.iter().any(|target| match &target.node {
            Node::Fs(path) => path.symlink_metadata().is_ok(),
            _ => false,
        }))
    }

    /// Whether `word` may be the project root or one of its parents.
    pub(crate) fn is_root_or_above(&self, word: &Word) -> bool {
        self.reaches_root(word, true)
    }

    /// Whether `word` may be a parent of the project root (`..`, `/home`).
    pub(crate) fn is_above_root(&self, word: &Word) -> bool {
        self.reaches_root(word, false)
    }

    fn reaches_root(&self, word: &Word, root_too: bool) -> bool {
        self.targets(word).is_some_and(|targets| {
            targets.iter().any(|target| match &target.node {
                Node::Fs(path) => {
                    self.real_root.starts_with(path) && (root_too || *path != self.real_root)
                }
                _ => false,
            })
        })
    }

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
                if seen > MAX_WALK {
                    return Some(format!(
                        "more than {MAX_WALK} files below {}",
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
                folder.protected_child = PROTECTED
                    .iter()
                    .map(|(name, _)| *name)
                    .find(|name| path.join(name).symlink_metadata().is_ok());
            }
        }
        folder
    }

    /// Every place `word` may resolve to; `None` for a word computed when the command runs.
    fn targets(&self, word: &Word) -> Option<Vec<Target>> {
        if !word.plain {
            return None;
        }
        if word.text == "-" {
            return Some(vec![Target {
                node: Node::Stream,
                foreign: false,
                descriptor: false,
            }]);
        }
        let (starts, offset) = if word.tilde {
            let rest = word.text.strip_prefix('~')?;
            if !(rest.is_empty() || rest.starts_with('/')) {
                // `~user/…`: another user's home.
                return Some(vec![Target {
                    node: Node::Unknown("another user's home folder"),
                    foreign: false,
                    descriptor: false,
                }]);
            }
            (vec![Node::Fs(self.home.clone()?)], 1)
        } else if word.text.starts_with('/') {
            (vec![Node::Fs(PathBuf::from("/"))], 0)
        } else {
            (self.cwds.clone(), 0)
        };
        let parts = components(word, offset);
        let found = resolve::resolve(&starts, parts, &self.cwds);
        Some(if found.is_empty() {
            vec![Target {
                node: Node::Unknown("a path the rater cannot follow"),
                foreign: false,
                descriptor: false,
            }]
        } else {
            found
        })
    }

    fn kind(&self, target: &Target, word: &Word) -> Kind {
        let kind = match &target.node {
            Node::Fs(path) if path.starts_with(&self.real_root) => Kind::Inside,
            Node::Fs(_) if word.tilde => Kind::Home,
            Node::Fs(path) => self.outside_kind(path),
            Node::Proc => Kind::System,
            Node::Process { .. }
            | Node::Fds { .. }
            | Node::Tasks { .. }
            | Node::ProcFile { .. } => Kind::Process,
            Node::Stream => Kind::Sink,
            Node::Unknown(_) => Kind::Unknown,
        };
        if target.foreign {
            kind.max(Kind::Process)
        } else {
            kind
        }
    }

    fn outside_kind(&self, path: &Path) -> Kind {
        let text = path.to_string_lossy();
        if DISKS.iter().any(|disk| text.starts_with(disk)) {
            return Kind::Disk;
        }
        if text == "/" {
            return Kind::System;
        }
        let under = |prefix: &str| {
            text == prefix
                || text
                    .strip_prefix(prefix)
                    .is_some_and(|rest| rest.starts_with('/'))
        };
        // A project kept under `/opt` or `/srv` has neighbours there, not system files.
        let root_under = |prefix: &str| self.real_root.starts_with(prefix);
        if SYSTEM.iter().any(|p| under(p) && !root_under(p)) {
            Kind::System
        } else {
            Kind::Outside
        }
    }

    /// The protected folder a resolved path is in: below the root, any component after it;
    /// elsewhere (`~/.claude/settings.json`), any component.
    fn protected_at(&self, path: &Path) -> Option<Protected> {
        let (inside, rest) = match path.strip_prefix(&self.real_root) {
            Ok(rest) => (true, rest),
            Err(_) => (false, path),
        };
        let parts: Vec<String> = rest
            .components()
            .filter_map(|part| match part {
                Component::Normal(name) => Some(name.to_string_lossy().into_owned()),
                _ => None,
            })
            .collect();
        let shown = if inside {
            parts.join("/")
        } else {
            path.display().to_string()
        };
        protected_in(&parts, shown)
    }

    /// The protected folder the word names as written: a component (after the root, for a
    /// path that starts with it), or a pattern that may match one (`.g*`).
    fn protected_by_name(&self, word: &Word) -> Option<Protected> {
        let mut text = word.text.as_str();
        if text.starts_with('/') {
            for root in [self.given_root.as_deref(), Some(self.real_root.as_path())]
                .into_iter()
                .flatten()
            {
                let root = root.to_string_lossy();
                if let Some(rest) = text.strip_prefix(root.as_ref())
                    && (rest.is_empty() || rest.starts_with('/'))
                {
                    text = rest;
                    break;
                }
            }
        }
        let offset = word.text.len() - text.len();
        let mut parts = Vec::new();
        let mut start = offset;
        for part in text.split('/') {
            let range = start..start + part.len();
            start += part.len() + 1;
            let pattern = Pattern::new(part, |at| {
                word.has_glob_in(range.start + at..range.start + at + 1)
            });
            match pattern {
                Some(pattern) => {
                    let matched = PROTECTED.iter().find(|(name, _)| pattern.matches(name));
                    parts.push(
                        matched.map_or_else(|| part.to_owned(), |(name, _)| (*name).to_owned()),
                    );
                }
                None => parts.push(part.to_owned()),
            }
        }
        protected_in(&parts, word.text.clone())
    }
}

/// The first protected folder among `parts`, and whether they end in a database file there.
fn protected_in(parts: &[String], shown: String) -> Option<Protected> {
    let at = parts
        .iter()
        .position(|part| protected_name(part).is_some())?;
    let (name, why) = protected_name(&parts[at])?;
    let database = parts.iter().enumerate().any(|(index, part)| {
        index + 2 == parts.len()
            && protected_name(part).is_some_and(|(name, _)| name == ".agentctl")
            && is_database(&parts[index + 1])
    });
    Some(Protected {
        name,
        why,
        path: shown,
        database,
    })
}

fn protected_name(part: &str) -> Option<(&'static str, &'static str)> {
    PROTECTED
        .iter()
        .find(|(name, _)| part.eq_ignore_ascii_case(name))
        .copied()
}

/// `sessions.db`, `sessions.db-wal`, `memory.db-journal`, … (any case).
fn is_database(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    DATABASES.iter().any(|db| lower.starts_with(db))
}

/// The components of a word from byte `offset` on, each with its pattern if it has one.
fn components(word: &Word, offset: usize) -> Vec<Part> {
    let text = &word.text[offset.min(word.text.len())..];
    let mut parts = Vec::new();
    let mut start = offset;
    for part in text.split('/') {
        let range = start..start + part.len();
        start += part.len() + 1;
        if part.is_empty() {
            continue;
        }
        let pattern = Pattern::new(part, |at| {
            word.has_glob_in(range.start + at..range.start + at + 1)
        });
        parts.push(Part {
            text: part.to_owned(),
            pattern,
        });
    }
    parts
}

/// `path` with `.` and `..` resolved lexically (`/a/../b` → `/b`).
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// An absolute path with `.` and `..` removed as text (`/a/b/../c` → `/a/c`; never above `/`).
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::from("/");
    for component in path.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(name) => out.push(name),
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
        }
    }
    out
}

#[cfg(test)]
mod tests;
