//! The one way the file tools open, replace and delete project files.
//!
//! [`ProjectRoot::resolve`] checks a path, but the file system can change between that check
//! and the use — a folder swapped for a symlink, a file for a FIFO or a hard link to a file
//! outside the project. So every tool goes through here instead of `std::fs`:
//!
//! - The folder of the file is opened from the project root one component at a time, never
//!   following a symlink (`O_NOFOLLOW | O_DIRECTORY`); everything after that happens relative to
//!   that folder's descriptor, so a folder swapped for a link to `/etc` is refused rather than
//!   written into.
//! - Only regular files are opened. FIFOs, devices and sockets are refused from a `stat` before
//!   the open; the open itself is `O_NONBLOCK | O_NOFOLLOW | O_NOCTTY` and re-checked with
//!   `fstat`, so a FIFO swapped in between cannot make the tool hang.
//! - A file with more than one hard link is refused for reading and for changing: its other name
//!   may be outside the project, and the path check cannot see that.
//! - A write goes to a temporary file in the same folder, renamed over the target: the rename
//!   replaces whatever directory entry is there by then (even a freshly planted symlink or hard
//!   link) instead of writing through it, and readers never see half a file.

use crate::paths::ProjectRoot;
use agentctl_core::ToolError;
use std::fs::File;
use std::io;

#[cfg(not(unix))]
#[path = "open/portable.rs"]
mod imp;
#[cfg(unix)]
#[path = "open/unix.rs"]
mod imp;

pub(crate) use imp::Entry;

/// Why a file tool refused or failed to touch a file. The text is what the model reads.
#[derive(Debug, thiserror::Error)]
pub(crate) enum FileError {
    /// A FIFO, device, socket or (swapped-in) symlink.
    #[error(
        "{shown} is a {kind}, not a regular file; file tools only read and write regular files"
    )]
    NotRegular {
        /// The path relative to the root.
        shown: String,
        /// What it is instead.
        kind: &'static str,
    },
    /// A folder where a file is needed.
    #[error("{shown} is a directory")]
    Directory {
        /// The path relative to the root.
        shown: String,
    },
    /// A regular file with other names, possibly outside the project.
    #[cfg_attr(not(unix), allow(dead_code))]
    #[error(
        "{shown} has {links} hard links: one may be outside the project; refusing to {verb} it"
    )]
    HardLinked {
        /// The path relative to the root.
        shown: String,
        /// Its link count.
        links: u64,
        /// `read` or `change`.
        verb: &'static str,
    },
    /// A folder on the way stopped being a plain folder after the path was checked.
    #[cfg_attr(not(unix), allow(dead_code))]
    #[error(
        "{shown} changed while it was being opened (a folder on its way is now a symlink); \
         refusing it"
    )]
    Swapped {
        /// The path relative to the root.
        shown: String,
    },
    /// Another program replaced the file while the tool was working on it.
    #[cfg_attr(not(unix), allow(dead_code))]
    #[error(
        "{shown} was replaced by another program while it was being written; read it again \
         and retry"
    )]
    Changed {
        /// The path relative to the root.
        shown: String,
    },
    /// The file system refused.
    #[error("cannot {action} {shown}: {source}")]
    Io {
        /// What was being done (`read`, `write`, `delete`).
        action: &'static str,
        /// The path relative to the root.
        shown: String,
        /// What the OS reported.
        #[source]
        source: io::Error,
    },
}

impl From<FileError> for ToolError {
    fn from(error: FileError) -> Self {
        ToolError::failed(error.to_string())
    }
}

/// What the caller will do with the file, for the hard-link refusal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Intent {
    /// Show its content.
    Read,
    /// Overwrite, edit or delete it.
    Change,
}

impl Intent {
    #[cfg_attr(not(unix), allow(dead_code))]
    fn verb(self) -> &'static str {
        match self {
            Self::Read => "read",
            Self::Change => "change",
        }
    }
}

/// A regular file with one link, opened for reading (blocking reads again).
#[derive(Debug)]
pub(crate) struct Opened {
    /// The open file.
    pub(crate) file: File,
    /// Its size when it was opened.
    pub(crate) len: u64,
    /// What a replacement must keep and check.
    pub(crate) existing: Existing,
}

/// The regular file found at an entry before it is replaced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Existing {
    /// Permission bits to give the replacement (`rwx` for user, group and others).
    pub(crate) permissions: u32,
    /// Its inode and change time, to notice when someone else replaced or changed it in the
    /// meantime (an inode number alone is often reused at once).
    pub(crate) identity: (u64, i64, i64),
}

/// Opens `path` (resolved by [`ProjectRoot::resolve`]) for reading: a regular file with a single
/// link, reached without following any symlink after the check.
pub(crate) fn open_read(root: &ProjectRoot, path: &std::path::Path) -> Result<Opened, FileError> {
    Entry::new(root, path, false)?.open(Intent::Read)
}

/// The article-less name of a kind of file that is not a regular file.
#[cfg_attr(not(unix), allow(dead_code))]
fn special_kind(kind: SpecialKind) -> &'static str {
    match kind {
        SpecialKind::Fifo => "FIFO",
        SpecialKind::CharDevice => "character device",
        SpecialKind::BlockDevice => "block device",
        SpecialKind::Socket => "socket",
        SpecialKind::Symlink => "symbolic link",
        SpecialKind::Other => "special file",
    }
}

/// Kinds of directory entries the tools refuse to open.
#[cfg_attr(not(unix), allow(dead_code))]
#[derive(Debug, Clone, Copy)]
enum SpecialKind {
    Fifo,
    CharDevice,
    BlockDevice,
    Socket,
    Symlink,
    Other,
}

/// A unique name for a temporary file next to the target: short (the target's own name may
/// already be at the length limit) and hidden, so the project walk never lists it.
fn temp_name() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    format!(
        ".agentctl-write-{}-{}.tmp",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

#[cfg(test)]
#[cfg(unix)]
mod tests {
    //! What happens when the file system changes after `ProjectRoot::resolve` checked a path:
    //! each test builds the state a swap would leave and hands the checked path over.

    use super::*;
    use std::os::unix::fs::symlink;

    fn setup() -> (tempfile::TempDir, tempfile::TempDir, ProjectRoot) {
        let project = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret"), "secret").unwrap();
        let root = ProjectRoot::new(project.path()).unwrap();
        (project, outside, root)
    }

    #[test]
    fn a_folder_swapped_for_a_symlink_is_not_entered() {
        let (_project, outside, root) = setup();
        symlink(outside.path(), root.path().join("sub")).unwrap();
        let path = root.path().join("sub/new.txt");
        for create in [false, true] {
            let error = Entry::new(&root, &path, create).unwrap_err();
            assert!(matches!(error, FileError::Swapped { .. }), "{error}");
        }
        let secret = root.path().join("sub/secret");
        assert!(matches!(
            open_read(&root, &secret).unwrap_err(),
            FileError::Swapped { .. }
        ));
        assert!(!outside.path().join("new.txt").exists());
    }

    #[test]
    fn a_file_swapped_for_a_symlink_is_neither_read_nor_written_through() {
        let (_project, outside, root) = setup();
        let path = root.path().join("f");
        symlink(outside.path().join("secret"), &path).unwrap();
        let error = open_read(&root, &path).unwrap_err();
        assert_eq!(
            error.to_string(),
            "f is a symbolic link, not a regular file; file tools only read and write regular \
             files"
        );
        let entry = Entry::new(&root, &path, false).unwrap();
        assert!(matches!(
            entry.existing().unwrap_err(),
            FileError::NotRegular { .. }
        ));
        // The rename replaces the link itself.
        entry.replace(b"new", None).unwrap();
        assert!(std::fs::symlink_metadata(&path).unwrap().is_file());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(
            std::fs::read_to_string(outside.path().join("secret")).unwrap(),
            "secret"
        );
    }

    #[test]
    fn a_file_replaced_meanwhile_is_not_clobbered() {
        let (_project, _outside, root) = setup();
        let path = root.path().join("f");
        std::fs::write(&path, "one").unwrap();
        let entry = Entry::new(&root, &path, false).unwrap();
        let before = entry.existing().unwrap().unwrap();
        std::fs::remove_file(&path).unwrap();
        std::fs::write(&path, "someone else's").unwrap();
        let error = entry.replace(b"mine", Some(before)).unwrap_err();
        assert!(matches!(error, FileError::Changed { .. }), "{error}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "someone else's");
        let names: Vec<_> = std::fs::read_dir(root.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "the temporary file is cleaned up");
    }
}
