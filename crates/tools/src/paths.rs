//! Confinement of tool paths to the project root, and the one reading of a path that the
//! approval gate and the file tools share.
//!
//! A path the model gives is read once, by [`ProjectRoot::normalise`], into a [`ToolPath`]:
//!
//! - Its characters are checked ([`check_characters`]): NUL, control characters, bidi
//!   controls and invisible code points are refused, and so is a blank (any Unicode
//!   `White_Space`: the space, U+00A0, U+3000, …) at either end of the path or of one of its
//!   names. Nothing is ever trimmed: `" .agentctl/settings.json"` is refused, not corrected.
//! - Absolute paths under `/proc` or `/dev` are refused, and so is a symlink that leads there:
//!   they are the process's and the system's files, not the project's, and their magic links
//!   (`/proc/self/cwd`, `/proc/self/root`, `/dev/fd/..`) would lead back into the project under
//!   a name no check recognises.
//! - `.` and `..` are removed as written, before any symlink is followed (`a/link/../b` is
//!   `a/b`), never climbing above the root; an absolute path must lie inside the root.
//!
//! The gate judges whether a write is protected from that normal path alone, which no change
//! on disk can alter between its decision and the tool's call. The tools then follow the
//! symlinks of the part that exists ([`ProjectRoot::resolve`]) and must stay inside the root; a
//! write whose symlinks lead it into a protected folder its name did not show is refused
//! ([`ProjectRoot::write_target`]). Files are finally opened from the root without following
//! any symlink (`open.rs`), so what was checked is what is touched.

mod characters;
mod follow;

pub use characters::check_characters;
pub(crate) use characters::{odd_character, shown};

use crate::protected::{Protection, judge};
use agentctl_core::ToolError;
use characters::check_blanks;
use std::io;
use std::path::{Component, Path, PathBuf};

/// Why a path was refused. The text is what the model reads.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PathError {
    /// The path leads outside the project root (`..`, absolute path, symlink).
    #[error("path escapes the project root: {0}")]
    Escapes(String),
    /// The path contains a character that has no business in a file name.
    #[error("path contains {what} (U+{code:04X}); refusing it: {shown}")]
    OddCharacter {
        /// The path with the character escaped.
        shown: String,
        /// What kind of character it is.
        what: &'static str,
        /// Its code point.
        code: u32,
    },
    /// The path, or one of its names, starts or ends with a blank.
    #[error("path {place} with a blank (U+{code:04X}); refusing it: {shown}")]
    Blank {
        /// The path with unusual characters escaped.
        shown: String,
        /// Where the blank is (`starts`, `ends`, `has a name that starts`, …).
        place: &'static str,
        /// The blank's code point.
        code: u32,
    },
    /// A path into the process's or the system's own files, as written or through a link.
    #[error(
        "{shown} {how} {prefix}, the system's process and device files, not a project file; \
         refusing it"
    )]
    NotProjectPath {
        /// The path as given, escaped.
        shown: String,
        /// `is under` or `leads through a symbolic link into`.
        how: &'static str,
        /// `/proc` or `/dev`.
        prefix: &'static str,
    },
    /// A write whose symlinks lead into a protected folder its name does not show.
    #[error(
        "{given} leads through a symbolic link to {target}, inside the protected folder \
         {dir}/; refusing it: name the protected path itself, so that a person is asked"
    )]
    IntoProtected {
        /// The path as given.
        given: String,
        /// Where it leads, relative to the root.
        target: String,
        /// The protected folder.
        dir: &'static str,
    },
    /// A write to the session database or the memory store, however spelled.
    #[error(
        "{shown} belongs to agentctl's session database; no tool may change it, even with \
         approval"
    )]
    SessionDatabase {
        /// The file, relative to the root.
        shown: String,
    },
    /// The path is empty where a file is needed.
    #[error("path is empty; give a path relative to the project root")]
    Empty,
    /// The file system refused to tell where the path leads.
    #[error("cannot resolve `{path}`: {message}")]
    Io {
        /// The path as given.
        path: String,
        /// What the OS reported.
        message: String,
    },
}

impl From<PathError> for ToolError {
    fn from(error: PathError) -> Self {
        ToolError::failed(error.to_string())
    }
}

/// A path the model gave, read once by [`ProjectRoot::normalise`]: what the approval gate
/// judges and where a tool starts from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolPath {
    normal: PathBuf,
    protection: Option<Protection>,
}

impl ToolPath {
    /// The absolute path inside the root, without `.` or `..`, symlinks not followed.
    pub fn path(&self) -> &Path {
        &self.normal
    }

    /// Whether the path, as named, is protected (see [`protection`](crate::protection)).
    pub fn protection(&self) -> Option<Protection> {
        self.protection.clone()
    }
}

/// Whether a write follows a symlink at the end of its path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LastLink {
    /// Follow it: writing or editing a file's content goes to the link's target.
    Follow,
    /// Keep it: deleting a link deletes the link itself.
    Keep,
}

/// The canonical project root every tool path must stay under.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectRoot {
    root: PathBuf,
}

impl ProjectRoot {
    /// Canonicalises `path` (it must exist) as the root.
    pub fn new(path: &Path) -> io::Result<Self> {
        Ok(Self {
            root: path.canonicalize()?,
        })
    }

    /// The canonical root.
    pub fn path(&self) -> &Path {
        &self.root
    }

    /// Reads a path the model gave, without touching the file system: characters checked,
    /// `/proc` and `/dev` refused, `.` and `..` removed as written, confined to the root. An
    /// empty path (or `.`) is the root itself.
    ///
    /// ```
    /// use agentctl_tools::{ProjectRoot, Protection};
    ///
    /// let dir = tempfile::tempdir().unwrap();
    /// let root = ProjectRoot::new(dir.path()).unwrap();
    /// let path = root.normalise("./sub/../sub/.git/config").unwrap();
    /// assert_eq!(path.path(), root.path().join("sub/.git/config"));
    /// assert_eq!(path.protection(), Some(Protection::Protected(".git")));
    /// assert!(root.normalise(" .agentctl/settings.json").is_err());
    /// assert!(root.normalise("/proc/self/cwd/.git/config").is_err());
    /// ```
    pub fn normalise(&self, given: &str) -> Result<ToolPath, PathError> {
        check_characters(given)?;
        check_blanks(given)?;
        let path = Path::new(given);
        self.refuse_system_files(path, given, false)?;
        let mut out = if path.is_absolute() {
            PathBuf::new()
        } else {
            self.root.clone()
        };
        for component in path.components() {
            match component {
                Component::Prefix(_) | Component::RootDir => out.push(component.as_os_str()),
                Component::CurDir => {}
                Component::ParentDir => {
                    if !out.pop() || !out.starts_with(&self.root) {
                        return Err(PathError::Escapes(given.to_owned()));
                    }
                }
                Component::Normal(part) => out.push(part),
            }
        }
        let Ok(relative) = out.strip_prefix(&self.root) else {
            return Err(PathError::Escapes(given.to_owned()));
        };
        Ok(ToolPath {
            protection: judge(relative),
            normal: out,
        })
    }

    /// Resolves a path the model gave to a canonical path inside the root, for reading: the
    /// [normal path](Self::normalise) with the symlinks of its existing part followed, which
    /// must stay inside. An empty path (or `.`) is the root itself.
    pub fn resolve(&self, given: &str) -> Result<PathBuf, PathError> {
        let path = self.normalise(given)?;
        self.follow(path.path(), given)
    }

    /// Like [`resolve`](Self::resolve), but the last component is not followed if it is a
    /// symlink: for deleting the link itself rather than what it points to.
    pub fn resolve_entry(&self, given: &str) -> Result<PathBuf, PathError> {
        let path = self.normalise(given)?;
        self.follow_entry(path.path(), given)
    }

    /// The entry a write, edit or delete of `given` changes — the same reading of the path as
    /// the gate's, then its symlinks followed (the last one only with [`LastLink::Follow`]).
    /// Refused, whatever approved the call, when it is the session database or the memory
    /// store (however spelled), and when symlinks lead it into a protected folder its name does
    /// not show: the gate asks about protected paths from the name alone, so a link planted
    /// after it decided cannot carry a write into `.git/`.
    ///
    /// ```
    /// use agentctl_tools::{LastLink, PathError, ProjectRoot};
    ///
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::create_dir(dir.path().join(".git")).unwrap();
    /// # #[cfg(unix)] {
    /// std::os::unix::fs::symlink(".git", dir.path().join("g")).unwrap();
    /// let root = ProjectRoot::new(dir.path()).unwrap();
    /// let error = root.write_target("g/config", LastLink::Follow).unwrap_err();
    /// assert!(matches!(error, PathError::IntoProtected { dir: ".git", .. }));
    /// assert!(root.write_target(".git/config", LastLink::Follow).is_ok());
    /// # }
    /// ```
    pub fn write_target(&self, given: &str, last: LastLink) -> Result<PathBuf, PathError> {
        if given.is_empty() {
            return Err(PathError::Empty);
        }
        let named = self.normalise(given)?;
        let target = match last {
            LastLink::Follow => self.follow(named.path(), given)?,
            LastLink::Keep => self.follow_entry(named.path(), given)?,
        };
        let reached = target.strip_prefix(&self.root).ok().and_then(judge);
        match (named.protection(), reached) {
            (Some(Protection::SessionDatabase), _) | (_, Some(Protection::SessionDatabase)) => {
                Err(PathError::SessionDatabase {
                    shown: self.display(&target),
                })
            }
            (None, Some(Protection::Protected(dir))) => Err(PathError::IntoProtected {
                given: given.to_owned(),
                target: self.display(&target),
                dir,
            }),
            _ => Ok(target),
        }
    }

    /// `path` relative to the root, with `/` separators, for output.
    pub fn display(&self, path: &Path) -> String {
        let relative = path.strip_prefix(&self.root).unwrap_or(path);
        let shown = relative.to_string_lossy().replace('\\', "/");
        if shown.is_empty() {
            ".".to_owned()
        } else {
            shown
        }
    }

    /// Refuses `path` (absolute, without `.` or `..` after its first name) when it lies under
    /// `/proc` or under `/dev` — unless the project itself lies there (`/dev/shm/…`). `path` is
    /// `given` itself, or where links took it (`through_link`).
    pub(super) fn refuse_system_files(
        &self,
        path: &Path,
        given: &str,
        through_link: bool,
    ) -> Result<(), PathError> {
        let mut components = path.components();
        if components.next() != Some(Component::RootDir) {
            return Ok(());
        }
        // `/..` is `/`: the first name after any `.` or `..` is the top folder.
        let first = components.find_map(|component| match component {
            Component::Normal(name) => Some(name),
            _ => None,
        });
        let prefix = match first.and_then(|name| name.to_str()) {
            Some("proc") => "/proc",
            Some("dev") if !self.root.starts_with("/dev") => "/dev",
            _ => return Ok(()),
        };
        let how = if through_link {
            "leads through a symbolic link into"
        } else {
            "is under"
        };
        Err(PathError::NotProjectPath {
            shown: shown(given),
            how,
            prefix,
        })
    }

    /// The parent of `normal` followed, and its last name kept as it is.
    fn follow_entry(&self, normal: &Path, given: &str) -> Result<PathBuf, PathError> {
        let (Some(parent), Some(name)) = (normal.parent(), normal.file_name()) else {
            return Err(PathError::Escapes(given.to_owned()));
        };
        if normal == self.root {
            return Err(PathError::Escapes(given.to_owned()));
        }
        Ok(self.follow(parent, given)?.join(name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexical_escapes_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = ProjectRoot::new(dir.path()).unwrap();
        assert_eq!(
            root.resolve("../etc/passwd").unwrap_err().to_string(),
            "path escapes the project root: ../etc/passwd"
        );
        assert!(root.resolve("a/../../x").is_err());
        assert!(root.resolve("/etc/passwd").is_err());
        assert_eq!(root.resolve("a/../b").unwrap(), root.path().join("b"));
        assert_eq!(root.resolve("").unwrap(), root.path());
        let inside = root.path().join("new/file.txt");
        assert_eq!(root.resolve(&inside.to_string_lossy()).unwrap(), inside);
    }

    #[test]
    fn odd_characters_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = ProjectRoot::new(dir.path()).unwrap();
        for bad in [
            "a\0b",
            "a\nb",
            "evil\u{202E}txt.rs",
            "zero\u{200B}width",
            "\u{E000}",
        ] {
            assert!(
                matches!(root.resolve(bad), Err(PathError::OddCharacter { .. })),
                "{bad:?}"
            );
        }
        assert!(root.resolve("ünïcödé/名前.txt").is_ok());
    }

    #[cfg(unix)]
    fn project() -> (tempfile::TempDir, ProjectRoot) {
        let dir = tempfile::tempdir().unwrap();
        let root = ProjectRoot::new(dir.path()).unwrap();
        std::fs::create_dir_all(root.path().join("a/b")).unwrap();
        std::fs::create_dir_all(root.path().join(".git/hooks")).unwrap();
        (dir, root)
    }

    #[cfg(unix)]
    #[test]
    fn links_are_followed_name_by_name_and_must_stay_inside() {
        use std::os::unix::fs::symlink;
        let (_dir, root) = project();
        let at = |name: &str| root.path().join(name);
        symlink("a/b", at("ab")).unwrap();
        symlink("../..", at("a/b/up")).unwrap();
        symlink(at("a"), at("abs")).unwrap();
        symlink("ab/../../x", at("twisty")).unwrap();
        symlink("loop2", at("loop1")).unwrap();
        symlink("loop1", at("loop2")).unwrap();
        symlink("missing/dir", at("dangling")).unwrap();
        // A link's own `..` climbs from where the link leads, as the kernel does.
        assert_eq!(root.resolve("ab/new.txt").unwrap(), at("a/b/new.txt"));
        assert_eq!(root.resolve("abs/b").unwrap(), at("a/b"));
        assert_eq!(root.resolve("a/b/up").unwrap(), root.path());
        assert!(matches!(root.resolve("twisty"), Err(PathError::Escapes(_))));
        assert!(matches!(
            root.resolve("twisty/y"),
            Err(PathError::Escapes(_))
        ));
        // `..` written in the path is taken before links: `a/b/up/..` is `a/b`.
        assert_eq!(root.resolve("a/b/up/../c").unwrap(), at("a/b/c"));
        let looping = root.resolve("loop1/x").unwrap_err().to_string();
        assert!(
            looping.ends_with("more than 40 symbolic links on the way"),
            "{looping}"
        );
        assert!(matches!(
            root.resolve("dangling"),
            Err(PathError::Escapes(_))
        ));
        assert!(matches!(
            root.resolve("dangling/x"),
            Err(PathError::Escapes(_))
        ));
        // The entry of a link is the link itself.
        assert_eq!(root.resolve_entry("ab").unwrap(), at("ab"));
        assert_eq!(root.resolve_entry("ab/c").unwrap(), at("a/b/c"));
    }

    #[cfg(unix)]
    #[test]
    fn no_way_through_proc_or_dev() {
        use std::os::unix::fs::symlink;
        let (_dir, root) = project();
        let at = |name: &str| root.path().join(name);
        let depth = root.path().components().count();
        let climb = "../".repeat(depth + 2);
        symlink(format!("{climb}proc/self/cwd"), at("cwd")).unwrap();
        symlink("/proc/self/root", at("slash")).unwrap();
        symlink("/dev/fd", at("fd")).unwrap();
        symlink("/dev/null", at("null")).unwrap();
        symlink("cwd", at("indirect")).unwrap();
        for (given, message) in [
            (
                "/proc/self/cwd/x",
                "/proc/self/cwd/x is under /proc, the system's process and device files, not a \
                 project file; refusing it",
            ),
            (
                "/dev/fd/../cwd/x",
                "/dev/fd/../cwd/x is under /dev, the system's process and device files, not a \
                 project file; refusing it",
            ),
            (
                "cwd/x",
                "cwd/x leads through a symbolic link into /proc, the system's process and device \
                 files, not a project file; refusing it",
            ),
            (
                "indirect/x",
                "indirect/x leads through a symbolic link into /proc, the system's process and \
                 device files, not a project file; refusing it",
            ),
        ] {
            assert_eq!(root.resolve(given).unwrap_err().to_string(), message);
        }
        let inside = format!("slash{}/a", root.path().display());
        for given in [inside.as_str(), "fd/0", "null", "slash/etc/passwd"] {
            assert!(
                matches!(root.resolve(given), Err(PathError::NotProjectPath { .. })),
                "{given}"
            );
        }
        // Deleting the link itself is fine: it is a project file.
        assert_eq!(root.resolve_entry("null").unwrap(), at("null"));
    }

    #[cfg(unix)]
    #[test]
    fn writes_refuse_protection_that_only_links_reveal() {
        use std::os::unix::fs::symlink;
        let (_dir, root) = project();
        let at = |name: &str| root.path().join(name);
        std::fs::create_dir_all(at(".agentctl")).unwrap();
        std::fs::write(at(".agentctl/sessions.db"), "").unwrap();
        symlink(".git/hooks", at("hooks")).unwrap();
        symlink(".agentctl/sessions.db", at("db")).unwrap();
        symlink("../../a/b", at(".git/hooks/out")).unwrap();
        let refused = root
            .write_target("hooks/pre-commit", LastLink::Follow)
            .unwrap_err();
        assert_eq!(
            refused.to_string(),
            "hooks/pre-commit leads through a symbolic link to .git/hooks/pre-commit, inside the \
             protected folder .git/; refusing it: name the protected path itself, so that a \
             person is asked"
        );
        // Named, it is the gate's to ask about; the tool takes it.
        assert_eq!(
            root.write_target(".git/hooks/pre-commit", LastLink::Follow)
                .unwrap(),
            at(".git/hooks/pre-commit")
        );
        // A protected name that leads out of the folder: asked about, and written where it leads.
        assert_eq!(
            root.write_target(".git/hooks/out/c", LastLink::Follow)
                .unwrap(),
            at("a/b/c")
        );
        for last in [LastLink::Follow, LastLink::Keep] {
            assert!(matches!(
                root.write_target(".agentctl/sessions.db", last),
                Err(PathError::SessionDatabase { .. })
            ));
        }
        assert!(matches!(
            root.write_target("db", LastLink::Follow),
            Err(PathError::SessionDatabase { .. })
        ));
        // Deleting the link leaves the database alone.
        assert_eq!(root.write_target("db", LastLink::Keep).unwrap(), at("db"));
        assert_eq!(
            root.write_target("", LastLink::Follow),
            Err(PathError::Empty)
        );
    }
}
