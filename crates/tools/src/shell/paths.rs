//! Where a path word points: inside the project, outside it, a system path, a disk, another
//! process, a protected folder — as the kernel resolves it (`paths/resolve.rs`), from every
//! folder `cd` may have moved the shell to.

mod glob;
mod names;
mod resolve;
mod walks;

use super::words::Word;
pub(crate) use glob::Pattern;
pub(crate) use names::named_in_text;
use resolve::{Node, Part, Target};
use std::cell::Cell;
use std::path::{Component, Path, PathBuf};

/// Block devices and memory: writing there destroys a disk or the running system.
#[rustfmt::skip]
const DISKS: &[&str] = &[
    "/dev/sd", "/dev/hd", "/dev/vd", "/dev/xvd", "/dev/nvme", "/dev/mmcblk", "/dev/disk",
    "/dev/rdisk", "/dev/mapper", "/dev/dm-", "/dev/md", "/dev/loop", "/dev/mem", "/dev/kmem",
    "/dev/port", "/proc/sysrq-trigger",
];

/// Folders of the operating system.
#[rustfmt::skip]
const SYSTEM: &[&str] = &[
    "/etc", "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/boot", "/sys",
    "/proc", "/var", "/opt", "/root", "/dev", "/srv", "/snap", "/System", "/Library",
    "/Applications", "/private",
];

/// A root no file system has (a NUL byte cannot be in a path): without a project root,
/// relative paths resolve under it, lexically. It is a few folders deep, so that `../x` is
/// somewhere outside, not a folder right under `/`.
const NO_ROOT: &str = "/\0/\0/\0/project";

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
    /// The protected folder's name (`.git`), or the path `sandbox.protectedPaths` names.
    pub name: std::borrow::Cow<'static, str>,
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

/// Most entries walked below one folder (for links out, for protected folders).
const MAX_WALK: usize = 20_000;
/// Most folder entries one rating reads in all (pattern matches and walks together).
const MAX_ENTRIES_READ: usize = 200_000;

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
    /// More protected paths (`sandbox.protectedPaths`): each as resolved, and as written.
    extra_protected: Vec<(PathBuf, String)>,
    cwds: Vec<Node>,
    /// Folder entries the rating may still read (patterns, walks); see [`Paths::exhausted`].
    budget: Cell<usize>,
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
            extra_protected: Vec::new(),
            budget: Cell::new(MAX_ENTRIES_READ),
        }
    }

    /// The same, with `paths` (relative to the root, or absolute) protected like the protected
    /// folders: a write there is high and asked every time.
    pub(crate) fn protecting(mut self, paths: &[PathBuf]) -> Self {
        for path in paths {
            let joined = normalize(&self.real_root.join(path));
            let real = joined.canonicalize().unwrap_or(joined);
            self.extra_protected
                .push((real, path.to_string_lossy().into_owned()));
        }
        self
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
                targets.extend(resolve::resolve(
                    &root,
                    components(&text, 0),
                    &self.cwds,
                    &self.budget,
                ));
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

    /// The same, allowed to read only `entries` folder entries.
    #[cfg(test)]
    pub(crate) fn with_budget(self, entries: usize) -> Self {
        self.budget.set(entries);
        self
    }

    /// Whether the rating read as many folder entries as it may: then what it did not read
    /// is not proven.
    pub(crate) fn exhausted(&self) -> bool {
        self.budget.get() == 0
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

    /// Whether `word` may be `/` or a folder right under it (`/etc`, `/dev/fd/../root/usr`).
    pub(crate) fn is_top_level(&self, word: &Word) -> bool {
        self.targets(word).is_some_and(|targets| {
            targets.iter().any(|target| match &target.node {
                Node::Fs(path) => path.components().count() <= 2 && *path != self.real_root,
                _ => false,
            })
        })
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
        let found = resolve::resolve(&starts, parts, &self.cwds, &self.budget);
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
