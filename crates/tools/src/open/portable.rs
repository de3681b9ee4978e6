//! The safe open on systems without `O_NOFOLLOW` and `*at` calls: the same refusals, checked
//! by path, so only the race windows differ from Unix.

use super::{Existing, FileError, Intent, Opened, temp_name};
use crate::paths::ProjectRoot;
use std::fs::{File, Metadata};
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};

/// One directory entry of the project.
#[derive(Debug)]
pub(crate) struct Entry {
    path: PathBuf,
    shown: String,
}

impl Entry {
    /// The entry at `path` (resolved by [`ProjectRoot::resolve`]), creating missing folders
    /// when `create` is set.
    pub(crate) fn new(root: &ProjectRoot, path: &Path, create: bool) -> Result<Self, FileError> {
        let shown = root.display(path);
        let Some(parent) = path.parent().filter(|_| path != root.path()) else {
            return Err(FileError::Directory { shown });
        };
        if create {
            std::fs::create_dir_all(parent).map_err(|source| FileError::Io {
                action: "create the folders of",
                shown: shown.clone(),
                source,
            })?;
        }
        Ok(Self {
            path: path.to_path_buf(),
            shown,
        })
    }

    /// The path relative to the root, for messages.
    pub(crate) fn shown(&self) -> &str {
        &self.shown
    }

    /// Opens the entry for reading if it is a regular file.
    pub(crate) fn open(&self, intent: Intent) -> Result<Opened, FileError> {
        let _ = intent;
        let action = "read";
        self.check(&self.stat(action)?)?;
        let file = File::open(&self.path).map_err(|source| self.io(action, source))?;
        let meta = file.metadata().map_err(|source| self.io(action, source))?;
        self.check(&meta)?;
        Ok(Opened {
            file,
            len: meta.len(),
            existing: existing(&meta),
        })
    }

    /// The regular file at the entry, `None` when there is nothing.
    pub(crate) fn existing(&self) -> Result<Option<Existing>, FileError> {
        let meta = match std::fs::symlink_metadata(&self.path) {
            Ok(meta) => meta,
            Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(source) => return Err(self.io("write", source)),
        };
        self.check(&meta)?;
        Ok(Some(existing(&meta)))
    }

    /// Replaces the entry through a temporary file renamed over it.
    pub(crate) fn replace(&self, content: &[u8], keep: Option<Existing>) -> Result<(), FileError> {
        let temp = self.path.with_file_name(temp_name());
        let result = (|| {
            let mut file = File::create_new(&temp)?;
            file.write_all(content)?;
            file.sync_data()?;
            if keep.is_some_and(|keep| keep.permissions == 1) {
                let mut permissions = file.metadata()?.permissions();
                permissions.set_readonly(true);
                std::fs::set_permissions(&temp, permissions)?;
            }
            drop(file);
            std::fs::rename(&temp, &self.path)
        })();
        if result.is_err() {
            let _ = std::fs::remove_file(&temp);
        }
        result.map_err(|source| self.io("write", source))
    }

    /// Deletes the entry (a regular file or a symlink, never a folder).
    pub(crate) fn remove(&self) -> Result<(), FileError> {
        let meta = self.stat("delete")?;
        if !meta.file_type().is_symlink() {
            self.check(&meta)?;
        }
        std::fs::remove_file(&self.path).map_err(|source| self.io("delete", source))
    }

    fn stat(&self, action: &'static str) -> Result<Metadata, FileError> {
        std::fs::symlink_metadata(&self.path).map_err(|source| self.io(action, source))
    }

    fn check(&self, meta: &Metadata) -> Result<(), FileError> {
        if meta.is_dir() {
            return Err(FileError::Directory {
                shown: self.shown.clone(),
            });
        }
        if !meta.is_file() {
            return Err(FileError::NotRegular {
                shown: self.shown.clone(),
                kind: "special file",
            });
        }
        Ok(())
    }

    fn io(&self, action: &'static str, source: io::Error) -> FileError {
        FileError::Io {
            action,
            shown: self.shown.clone(),
            source,
        }
    }
}

/// Only the read-only flag is portable; `identity` is not checked here.
fn existing(meta: &Metadata) -> Existing {
    Existing {
        permissions: u32::from(meta.permissions().readonly()),
        identity: (0, 0, 0),
    }
}
