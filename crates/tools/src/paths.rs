//! Confinement of tool paths to the project root.
//!
//! Every built-in tool resolves the paths the model gives through [`ProjectRoot::resolve`]:
//! relative paths are taken from the canonical root, `..` may not climb above it, absolute paths
//! must already lie inside it, and symlinks are followed by canonicalising the deepest existing
//! ancestor — also for files that do not exist yet — so a link pointing out of the project is
//! refused before anything is read or written. Control characters, Unicode bidi overrides and
//! other invisible code points are refused outright: they make a path look like another one.

use agentctl_core::ToolError;
use std::io;
use std::path::{Component, Path, PathBuf};

/// Why a path was refused.
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

    /// Resolves a path the model gave to a canonical path inside the root; an empty path (or
    /// `.`) is the root itself. Symlinks along the way are followed and must stay inside.
    pub fn resolve(&self, path: &str) -> Result<PathBuf, PathError> {
        let normal = self.normalise(path)?;
        self.follow(&normal, path)
    }

    /// Like [`resolve`](Self::resolve), but the last component is not followed if it is a
    /// symlink: for deleting the link itself rather than what it points to.
    pub fn resolve_entry(&self, path: &str) -> Result<PathBuf, PathError> {
        let normal = self.normalise(path)?;
        let (Some(parent), Some(name)) = (normal.parent(), normal.file_name()) else {
            return Err(PathError::Escapes(path.to_owned()));
        };
        if normal == self.root {
            return Err(PathError::Escapes(path.to_owned()));
        }
        Ok(self.follow(parent, path)?.join(name))
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

    /// Checks the characters and removes `.` and `..` lexically, refusing to climb above the
    /// root.
    fn normalise(&self, path: &str) -> Result<PathBuf, PathError> {
        check_characters(path)?;
        let given = Path::new(path.trim());
        let start = if given.is_absolute() {
            PathBuf::new()
        } else {
            self.root.clone()
        };
        let mut out = start;
        for component in given.components() {
            match component {
                Component::Prefix(_) | Component::RootDir => out.push(component.as_os_str()),
                Component::CurDir => {}
                Component::ParentDir => {
                    if !out.pop() || !out.starts_with(&self.root) {
                        return Err(PathError::Escapes(path.to_owned()));
                    }
                }
                Component::Normal(part) => out.push(part),
            }
        }
        if !out.starts_with(&self.root) {
            return Err(PathError::Escapes(path.to_owned()));
        }
        Ok(out)
    }

    /// Canonicalises the deepest existing ancestor of `normal` and appends the rest, refusing
    /// anything that ends up outside the root (symlinks out, dangling symlinks).
    fn follow(&self, normal: &Path, given: &str) -> Result<PathBuf, PathError> {
        let mut missing = Vec::new();
        let mut current = normal;
        loop {
            match std::fs::symlink_metadata(current) {
                Ok(_) => {
                    // A dangling symlink fails here: refuse it rather than write through it.
                    let canonical = current.canonicalize().map_err(|error| {
                        if error.kind() == io::ErrorKind::NotFound {
                            PathError::Escapes(given.to_owned())
                        } else {
                            PathError::Io {
                                path: given.to_owned(),
                                message: error.to_string(),
                            }
                        }
                    })?;
                    if !canonical.starts_with(&self.root) {
                        return Err(PathError::Escapes(given.to_owned()));
                    }
                    let mut resolved = canonical;
                    resolved.extend(missing.iter().rev());
                    return Ok(resolved);
                }
                Err(error) if error.kind() == io::ErrorKind::NotFound => {
                    let (Some(parent), Some(name)) = (current.parent(), current.file_name()) else {
                        return Err(PathError::Escapes(given.to_owned()));
                    };
                    missing.push(name.to_owned());
                    current = parent;
                }
                Err(error) => {
                    return Err(PathError::Io {
                        path: given.to_owned(),
                        message: error.to_string(),
                    });
                }
            }
        }
    }
}

/// Refuses NUL and other control characters, bidi controls, zero-width and other invisible or
/// confusable code points.
pub fn check_characters(path: &str) -> Result<(), PathError> {
    for ch in path.chars() {
        if let Some(what) = odd_character(ch) {
            return Err(PathError::OddCharacter {
                shown: path.escape_default().to_string(),
                what,
                code: u32::from(ch),
            });
        }
    }
    Ok(())
}

fn odd_character(ch: char) -> Option<&'static str> {
    match ch {
        '\0' => Some("a NUL byte"),
        c if c.is_control() => Some("a control character"),
        '\u{202A}'..='\u{202E}'
        | '\u{2066}'..='\u{2069}'
        | '\u{200E}'
        | '\u{200F}'
        | '\u{061C}' => Some("a bidirectional text control"),
        '\u{200B}'..='\u{200D}' | '\u{2060}'..='\u{2064}' | '\u{FEFF}' | '\u{00AD}' => {
            Some("an invisible character")
        }
        '\u{2028}' | '\u{2029}' => Some("a line separator"),
        '\u{E000}'..='\u{F8FF}' | '\u{F0000}'..='\u{10FFFF}' => Some("a private-use character"),
        '\u{FFF9}'..='\u{FFFB}' | '\u{FFFE}' | '\u{FFFF}' | '\u{FFFD}' => {
            Some("a special or replacement character")
        }
        _ => None,
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
}
