//! Where a path word points: inside the project, outside it, a system path, a disk, a
//! protected folder — as seen from every directory `cd` may have moved the shell to.

use super::words::Word;
use std::path::{Component, Path, PathBuf};

/// Folders whose files run commands or hold the session: writing there is `high`.
const PROTECTED: &[(&str, &str)] = &[
    (".git", "hooks and config there run commands"),
    (".agentctl", "it holds the session database"),
    (".claude", "agent settings there run commands"),
    (".gemini", "agent settings there run commands"),
];

/// Files that are harmless to read from or write to.
#[rustfmt::skip]
const SINKS: &[&str] = &[
    "/dev/null", "/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/tty", "-",
];

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

/// Where a path points, the worst over every directory the shell may be in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Place {
    pub kind: Kind,
    /// A protected folder the path is in (`.git`) and why it is protected.
    pub protected: Option<(&'static str, &'static str)>,
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
    /// An operating-system folder.
    System,
    /// A disk or memory device.
    Disk,
}

/// A directory the shell may be in, relative to the project root.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Cwd {
    Inside(Vec<String>),
    Outside,
}

/// Most directories tracked after `cd`s; past this every relative path counts as outside.
const MAX_CWDS: usize = 16;

/// The project root and the directories the shell may be in.
#[derive(Debug)]
pub(crate) struct Paths {
    root: Option<PathBuf>,
    /// The root with symbolic links resolved, to compare resolved paths with.
    real_root: Option<PathBuf>,
    cwds: Vec<Cwd>,
}

impl Paths {
    pub(crate) fn new(root: Option<&Path>) -> Self {
        let root = root.map(normalize);
        let real_root = root.as_ref().and_then(|root| root.canonicalize().ok());
        Self {
            root,
            real_root,
            cwds: vec![Cwd::Inside(Vec::new())],
        }
    }

    /// Where `word` points.
    pub(crate) fn place(&self, word: &Word) -> Place {
        let protected = protected_in(word);
        let kind = if !word.plain {
            Kind::Dynamic
        } else if SINKS.contains(&word.as_str()) || word.text.starts_with("/dev/fd/") {
            Kind::Sink
        } else if word.tilde {
            Kind::Home
        } else if word.text.starts_with('/') {
            self.absolute(word)
        } else {
            self.cwds
                .iter()
                .map(|cwd| match cwd {
                    Cwd::Outside => Kind::Outside,
                    Cwd::Inside(base) => self.relative(base, word),
                })
                .max()
                .unwrap_or(Kind::Outside)
        };
        // `cd .git/hooks && echo x > pre-commit`: the folder the shell is in counts too.
        let protected = protected
            .or_else(|| {
                if word.text.starts_with('/') {
                    return None;
                }
                self.cwds.iter().find_map(|cwd| match cwd {
                    Cwd::Inside(base) => self
                        .join(base, word)?
                        .iter()
                        .find_map(|part| protected_name(part)),
                    Cwd::Outside => None,
                })
            })
            .or_else(|| {
                (kind == Kind::Inside)
                    .then(|| self.real_protected(word))
                    .flatten()
            });
        Place { kind, protected }
    }

    /// Applies `cd word`: the shell may now be there too (or still here, if `cd` fails).
    pub(crate) fn cd(&mut self, word: &Word) {
        let mut added = Vec::new();
        for cwd in &self.cwds {
            let next = match cwd {
                Cwd::Outside => Cwd::Outside,
                Cwd::Inside(base) => match self.join(base, word) {
                    Some(parts) if self.resolves_inside(&parts) => Cwd::Inside(parts),
                    _ => Cwd::Outside,
                },
            };
            if !self.cwds.contains(&next) && !added.contains(&next) {
                added.push(next);
            }
        }
        self.cwds.extend(added);
        if self.cwds.len() > MAX_CWDS {
            self.cwds = vec![Cwd::Outside];
        }
    }

    /// Whether a plain path exists, from any directory the shell may be in; `None` without a
    /// root or for a word computed at run time.
    pub(crate) fn exists(&self, word: &Word) -> Option<bool> {
        let root = self.root.as_ref()?;
        if !word.plain {
            return None;
        }
        let found = self.cwds.iter().any(|cwd| match cwd {
            Cwd::Outside => false,
            Cwd::Inside(base) => self.join(base, word).is_some_and(|parts| {
                parts
                    .iter()
                    .fold(root.clone(), |path, part| path.join(part))
                    .symlink_metadata()
                    .is_ok()
            }),
        });
        Some(found)
    }

    /// Whether `path`, as written, is the project root or one of its parents.
    pub(crate) fn is_root_or_above(&self, text: &str) -> bool {
        let Some(root) = &self.root else {
            return false;
        };
        text.starts_with('/') && root.starts_with(normalize(Path::new(text)))
    }

    fn absolute(&self, word: &Word) -> Kind {
        let path = normalize(Path::new(&word.text));
        let text = path.to_string_lossy();
        if DISKS.iter().any(|disk| text.starts_with(disk)) {
            return Kind::Disk;
        }
        if let Some(root) = &self.root {
            let inside = [Some(root), self.real_root.as_ref()]
                .into_iter()
                .flatten()
                .find_map(|base| path.strip_prefix(base).ok());
            if let Some(rest) = inside {
                let parts: Vec<String> = rest
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                return self.inside_parts(&parts, word);
            }
        }
        let under = |prefix: &str| {
            text == prefix
                || text
                    .strip_prefix(prefix)
                    .is_some_and(|rest| rest.starts_with('/'))
        };
        let root_under = |prefix: &str| {
            self.root
                .as_ref()
                .is_some_and(|root| root.starts_with(prefix))
        };
        if text != "/" && SYSTEM.iter().any(|p| under(p) && !root_under(p)) {
            return Kind::System;
        }
        if text == "/" {
            return Kind::System;
        }
        Kind::Outside
    }

    fn relative(&self, base: &[String], word: &Word) -> Kind {
        if may_match_dot_dot(word) {
            return Kind::Outside;
        }
        match self.join(base, word) {
            Some(parts) => self.inside_parts(&parts, word),
            None => Kind::Outside,
        }
    }

    /// Checks a lexically-inside path against the file system: a symbolic link may lead out.
    fn inside_parts(&self, parts: &[String], word: &Word) -> Kind {
        if may_match_dot_dot(word) {
            return Kind::Outside;
        }
        if self.resolves_inside(parts) {
            Kind::Inside
        } else {
            Kind::Outside
        }
    }

    /// `base` joined with a relative word, `..` resolved; `None` if it climbs above the root.
    fn join(&self, base: &[String], word: &Word) -> Option<Vec<String>> {
        let mut parts = if word.text.starts_with('/') {
            let root = self.root.as_ref()?;
            let path = normalize(Path::new(&word.text));
            let rest = path
                .strip_prefix(root)
                .or_else(|_| path.strip_prefix(self.real_root.as_ref().unwrap_or(root)))
                .ok()?;
            return Some(
                rest.components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect(),
            );
        } else {
            base.to_vec()
        };
        for part in word.text.split('/') {
            match part {
                "" | "." => {}
                ".." => {
                    parts.pop()?;
                }
                other => parts.push(other.to_owned()),
            }
        }
        Some(parts)
    }

    /// Follows symbolic links in the existing part of `root/parts`; without a root, trusts
    /// the lexical answer.
    fn resolves_inside(&self, parts: &[String]) -> bool {
        let (Some(root), Some(real_root)) = (&self.root, &self.real_root) else {
            return true;
        };
        let full = parts
            .iter()
            .fold(root.clone(), |path, part| path.join(part));
        match existing_real(&full) {
            Some(real) => real.starts_with(real_root),
            None => true,
        }
    }

    /// A protected folder the word reaches through a symbolic link (`hooks` → `.git/hooks`).
    fn real_protected(&self, word: &Word) -> Option<(&'static str, &'static str)> {
        let (Some(root), Some(real_root)) = (&self.root, &self.real_root) else {
            return None;
        };
        self.cwds.iter().find_map(|cwd| {
            let Cwd::Inside(base) = cwd else { return None };
            let parts = self.join(base, word)?;
            let full = parts
                .iter()
                .fold(root.clone(), |path, part| path.join(part));
            let real = existing_real(&full)?;
            let rest = real.strip_prefix(real_root).ok()?;
            rest.components()
                .find_map(|c| protected_name(&c.as_os_str().to_string_lossy()))
        })
    }
}

/// The longest existing ancestor of `path` (or `path` itself), with links resolved.
fn existing_real(path: &Path) -> Option<PathBuf> {
    let mut tail = Vec::new();
    let mut current = path;
    loop {
        if let Ok(real) = current.canonicalize() {
            return Some(
                tail.iter()
                    .rev()
                    .fold(real, |p: PathBuf, part| p.join(part)),
            );
        }
        tail.push(current.file_name()?.to_owned());
        current = current.parent()?;
    }
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

/// Whether a path component with glob characters could match `..` or a dot folder.
fn may_match_dot_dot(word: &Word) -> bool {
    let mut start = 0;
    for part in word.text.split('/') {
        let range = start..start + part.len();
        if word.has_glob_in(range) && (part.starts_with('.') || part.starts_with('[')) {
            return true;
        }
        start += part.len() + 1;
    }
    false
}

/// The protected folder a word names as one of its components (any case: macOS and Windows
/// file systems ignore it), or may name through a glob (`.g*`).
fn protected_in(word: &Word) -> Option<(&'static str, &'static str)> {
    let mut start = 0;
    for part in word.text.split('/') {
        let range = start..start + part.len();
        start += part.len() + 1;
        if let Some(found) = protected_name(part) {
            return Some(found);
        }
        if word.has_glob_in(range) && (part.starts_with('.') || part.starts_with('[')) {
            return Some((".git", "a pattern there may match .git/ or .agentctl/"));
        }
    }
    None
}

fn protected_name(part: &str) -> Option<(&'static str, &'static str)> {
    PROTECTED
        .iter()
        .find(|(name, _)| part.eq_ignore_ascii_case(name))
        .copied()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shell::words::lex;

    fn word(text: &str) -> Word {
        let lexed = lex(text);
        Word {
            text: lexed.text,
            plain: lexed.problem.is_none(),
            globs: lexed.globs,
            tilde: lexed.tilde,
        }
    }

    #[test]
    fn kinds_without_a_root() {
        let paths = Paths::new(None);
        let kind = |text: &str| paths.place(&word(text)).kind;
        assert_eq!(kind("src/main.rs"), Kind::Inside);
        assert_eq!(kind("src/../../x"), Kind::Outside);
        assert_eq!(kind("/etc/passwd"), Kind::System);
        assert_eq!(kind("/"), Kind::System);
        assert_eq!(kind("/home/u/x"), Kind::Outside);
        assert_eq!(kind("/dev/sda1"), Kind::Disk);
        assert_eq!(kind("/dev/null"), Kind::Sink);
        assert_eq!(kind("~/.bashrc"), Kind::Home);
        assert_eq!(kind(".*/x"), Kind::Outside);
        assert_eq!(kind("src/*.rs"), Kind::Inside);
    }

    #[test]
    fn protected_folders_in_any_case_and_through_dot_dot() {
        let paths = Paths::new(None);
        let protected = |text: &str| paths.place(&word(text)).protected.map(|(name, _)| name);
        assert_eq!(protected(".git/hooks/pre-commit"), Some(".git"));
        assert_eq!(protected("src/../.GIT/config"), Some(".git"));
        assert_eq!(protected(".agentctl"), Some(".agentctl"));
        assert_eq!(protected(".g*/hooks"), Some(".git"));
        assert_eq!(protected("src/git/x"), None);
    }

    #[test]
    fn cd_adds_places_and_leaving_the_root_is_remembered() {
        let mut paths = Paths::new(None);
        paths.cd(&word("src"));
        assert_eq!(paths.place(&word("../x")).kind, Kind::Outside);
        paths.cd(&word("../.git/hooks"));
        let hook = paths.place(&word("pre-commit"));
        assert_eq!(hook.protected.map(|(name, _)| name), Some(".git"));
        let mut paths = Paths::new(None);
        paths.cd(&word(".."));
        assert_eq!(paths.place(&word("x")).kind, Kind::Outside);
    }

    #[test]
    fn absolute_paths_under_the_root_are_inside_and_links_are_followed() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("project");
        std::fs::create_dir_all(root.join(".git/hooks")).unwrap();
        let paths = Paths::new(Some(&root));
        let inside = format!("{}/src/x.rs", root.display());
        assert_eq!(paths.place(&word(&inside)).kind, Kind::Inside);
        assert!(paths.is_root_or_above(&root.display().to_string()));
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink("/etc", root.join("etc")).unwrap();
            std::os::unix::fs::symlink(root.join(".git/hooks"), root.join("hooks")).unwrap();
            let paths = Paths::new(Some(&root));
            assert_eq!(paths.place(&word("etc/passwd")).kind, Kind::Outside);
            let hooks = paths.place(&word("hooks/pre-commit"));
            assert_eq!(
                (hooks.kind, hooks.protected.map(|p| p.0)),
                (Kind::Inside, Some(".git"))
            );
        }
    }
}
