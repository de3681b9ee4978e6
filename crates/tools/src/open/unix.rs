//! The Unix side of the safe open: descriptors, `*at` calls and `O_NOFOLLOW`.

use super::{Existing, FileError, Intent, Opened, SpecialKind, special_kind, temp_name};
use crate::paths::ProjectRoot;
use rustix::fs::{AtFlags, FileType, Mode, OFlags, RawMode, Stat};
use rustix::io::Errno;
use std::ffi::OsString;
use std::fs::File;
use std::io::{self, Write as _};
use std::os::fd::OwnedFd;
use std::path::{Component, Path};

/// Flags for opening a folder on the way to a file.
const DIR_FLAGS: OFlags = OFlags::RDONLY
    .union(OFlags::DIRECTORY)
    .union(OFlags::NOFOLLOW)
    .union(OFlags::CLOEXEC);

/// One directory entry of the project, reached through its folder's descriptor.
#[derive(Debug)]
pub(crate) struct Entry {
    dir: OwnedFd,
    name: OsString,
    shown: String,
}

impl Entry {
    /// Opens the folder of `path` (resolved by [`ProjectRoot::resolve`] or
    /// [`ProjectRoot::resolve_entry`]) from the root without following symlinks, creating
    /// missing folders when `create` is set.
    pub(crate) fn new(root: &ProjectRoot, path: &Path, create: bool) -> Result<Self, FileError> {
        let shown = root.display(path);
        let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
            return Err(FileError::Directory { shown });
        };
        let Ok(relative) = parent.strip_prefix(root.path()) else {
            return Err(FileError::Swapped { shown });
        };
        let io = |action, source: Errno| FileError::Io {
            action,
            shown: shown.clone(),
            source: io::Error::from(source),
        };
        let mut dir = rustix::fs::open(
            root.path(),
            DIR_FLAGS.difference(OFlags::NOFOLLOW),
            Mode::empty(),
        )
        .map_err(|error| io("open the project root for", error))?;
        for part in relative.components() {
            let Component::Normal(part) = part else {
                return Err(FileError::Swapped { shown });
            };
            let mut next = rustix::fs::openat(&dir, part, DIR_FLAGS, Mode::empty());
            if create && next.as_ref().err() == Some(&Errno::NOENT) {
                match rustix::fs::mkdirat(&dir, part, Mode::RWXU | Mode::RWXG | Mode::RWXO) {
                    Ok(()) => {}
                    Err(error) if error == Errno::EXIST => {}
                    Err(error) => return Err(io("create the folders of", error)),
                }
                next = rustix::fs::openat(&dir, part, DIR_FLAGS, Mode::empty());
            }
            dir = match next {
                Ok(next) => next,
                Err(error) => {
                    // The path was canonical when checked: a symlink on the way now is a swap.
                    // (Linux says ENOTDIR for a symlink opened with O_DIRECTORY | O_NOFOLLOW.)
                    let link = rustix::fs::statat(&dir, part, AtFlags::SYMLINK_NOFOLLOW).is_ok_and(
                        |stat| FileType::from_raw_mode(stat.st_mode) == FileType::Symlink,
                    );
                    return Err(if link || error == Errno::LOOP {
                        FileError::Swapped { shown }
                    } else {
                        io("reach", error)
                    });
                }
            };
        }
        Ok(Self {
            dir,
            name: name.to_owned(),
            shown,
        })
    }

    /// The path relative to the root, for messages.
    pub(crate) fn shown(&self) -> &str {
        &self.shown
    }

    /// Opens the entry for reading: refused unless it is a regular file with one link, and
    /// opened so that a FIFO swapped in after the check cannot block.
    pub(crate) fn open(&self, intent: Intent) -> Result<Opened, FileError> {
        let action = "read";
        let before = self.stat(action)?;
        self.check(&before, intent)?;
        let flags =
            OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOFOLLOW | OFlags::NOCTTY | OFlags::CLOEXEC;
        let fd =
            rustix::fs::openat(&self.dir, &self.name, flags, Mode::empty()).map_err(|error| {
                if error == Errno::LOOP {
                    self.not_regular(SpecialKind::Symlink)
                } else {
                    self.io(action, error)
                }
            })?;
        let after = rustix::fs::fstat(&fd).map_err(|error| self.io(action, error))?;
        self.check(&after, intent)?;
        // Reads of a regular file do not block anyway, but the descriptor should behave like
        // any other once it is known to be one.
        let status = rustix::fs::fcntl_getfl(&fd).map_err(|error| self.io(action, error))?;
        rustix::fs::fcntl_setfl(&fd, status.difference(OFlags::NONBLOCK))
            .map_err(|error| self.io(action, error))?;
        Ok(Opened {
            file: File::from(fd),
            len: size(&after),
            existing: existing(&after),
        })
    }

    /// The regular file at the entry, `None` when there is nothing; anything else (folder,
    /// FIFO, symlink, hard-linked file) is refused.
    pub(crate) fn existing(&self) -> Result<Option<Existing>, FileError> {
        let stat = match rustix::fs::statat(&self.dir, &self.name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(stat) => stat,
            Err(error) if error == Errno::NOENT => return Ok(None),
            Err(error) => return Err(self.io("write", error)),
        };
        self.check(&stat, Intent::Change)?;
        Ok(Some(existing(&stat)))
    }

    /// Replaces the entry with a new file holding `content`: written to a temporary file in the
    /// same folder, then renamed over the entry. `keep` is what [`existing`](Self::existing)
    /// found: its permissions are kept, and if another file has taken its place meanwhile the
    /// write is refused rather than clobbering it.
    pub(crate) fn replace(&self, content: &[u8], keep: Option<Existing>) -> Result<(), FileError> {
        let (temp, fd) = self.create_temp()?;
        let result = self.fill_and_rename(&temp, fd, content, keep);
        if result.is_err() {
            // Best effort: the temporary file is hidden and harmless if this fails too.
            let _ = rustix::fs::unlinkat(&self.dir, &temp, AtFlags::empty());
        }
        result
    }

    fn fill_and_rename(
        &self,
        temp: &str,
        fd: OwnedFd,
        content: &[u8],
        keep: Option<Existing>,
    ) -> Result<(), FileError> {
        if let Some(keep) = keep {
            // Only the rwx bits: a rewritten file should not stay setuid, and fchmod ignores
            // the umask, so the replacement gets exactly the old permissions.
            let mode = Mode::from_raw_mode(keep.permissions as RawMode);
            rustix::fs::fchmod(&fd, mode).map_err(|error| self.io("write", error))?;
        }
        let mut file = File::from(fd);
        file.write_all(content)
            .and_then(|()| file.sync_data())
            .map_err(|source| FileError::Io {
                action: "write",
                shown: self.shown.clone(),
                source,
            })?;
        if let Some(keep) = keep {
            let now = self.existing()?;
            if now.map(|now| now.identity) != Some(keep.identity) {
                return Err(FileError::Changed {
                    shown: self.shown.clone(),
                });
            }
        }
        rustix::fs::renameat(&self.dir, temp, &self.dir, &self.name)
            .map_err(|error| self.io("write", error))
    }

    fn create_temp(&self) -> Result<(String, OwnedFd), FileError> {
        let flags =
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let mut attempts = 0;
        loop {
            let name = temp_name();
            // 0o666 before the umask, as `std::fs::write` creates files.
            let mode = Mode::RUSR | Mode::WUSR | Mode::RGRP | Mode::WGRP | Mode::ROTH | Mode::WOTH;
            match rustix::fs::openat(&self.dir, name.as_str(), flags, mode) {
                Ok(fd) => return Ok((name, fd)),
                Err(error) if error == Errno::EXIST && attempts < 8 => attempts += 1,
                Err(error) => return Err(self.io("write", error)),
            }
        }
    }

    /// Deletes the entry: a regular file with one link or a symlink (the link itself, never
    /// what it points to); folders, FIFOs, devices and hard-linked files are refused.
    pub(crate) fn remove(&self) -> Result<(), FileError> {
        let stat = rustix::fs::statat(&self.dir, &self.name, AtFlags::SYMLINK_NOFOLLOW)
            .map_err(|error| self.io("delete", error))?;
        if FileType::from_raw_mode(stat.st_mode) != FileType::Symlink {
            self.check(&stat, Intent::Change)?;
        }
        rustix::fs::unlinkat(&self.dir, &self.name, AtFlags::empty())
            .map_err(|error| self.io("delete", error))
    }

    fn stat(&self, action: &'static str) -> Result<Stat, FileError> {
        rustix::fs::statat(&self.dir, &self.name, AtFlags::SYMLINK_NOFOLLOW)
            .map_err(|error| self.io(action, error))
    }

    /// Refuses anything but a regular file with a single link.
    #[allow(
        clippy::useless_conversion,
        reason = "st_nlink, st_ino and st_mode are narrower on other Unixes (macOS: u16 nlink and mode)"
    )]
    fn check(&self, stat: &Stat, intent: Intent) -> Result<(), FileError> {
        let kind = match FileType::from_raw_mode(stat.st_mode) {
            FileType::RegularFile => None,
            FileType::Directory => {
                return Err(FileError::Directory {
                    shown: self.shown.clone(),
                });
            }
            FileType::Fifo => Some(SpecialKind::Fifo),
            FileType::CharacterDevice => Some(SpecialKind::CharDevice),
            FileType::BlockDevice => Some(SpecialKind::BlockDevice),
            FileType::Socket => Some(SpecialKind::Socket),
            FileType::Symlink => Some(SpecialKind::Symlink),
            _ => Some(SpecialKind::Other),
        };
        if let Some(kind) = kind {
            return Err(self.not_regular(kind));
        }
        let links = u64::from(stat.st_nlink);
        if links > 1 {
            return Err(FileError::HardLinked {
                shown: self.shown.clone(),
                links,
                verb: intent.verb(),
            });
        }
        Ok(())
    }

    fn not_regular(&self, kind: SpecialKind) -> FileError {
        FileError::NotRegular {
            shown: self.shown.clone(),
            kind: special_kind(kind),
        }
    }

    fn io(&self, action: &'static str, error: Errno) -> FileError {
        FileError::Io {
            action,
            shown: self.shown.clone(),
            source: io::Error::from(error),
        }
    }
}

#[allow(
    clippy::useless_conversion,
    reason = "st_nlink, st_ino and st_mode are narrower on other Unixes (macOS: u16 nlink and mode)"
)]
fn existing(stat: &Stat) -> Existing {
    let permissions = Mode::from_raw_mode(stat.st_mode) & (Mode::RWXU | Mode::RWXG | Mode::RWXO);
    Existing {
        permissions: u32::from(permissions.bits()),
        identity: (
            u64::from(stat.st_ino),
            i64::try_from(stat.st_ctime).unwrap_or(0),
            i64::try_from(stat.st_ctime_nsec).unwrap_or(0),
        ),
    }
}

fn size(stat: &Stat) -> u64 {
    u64::try_from(stat.st_size).unwrap_or(0)
}
