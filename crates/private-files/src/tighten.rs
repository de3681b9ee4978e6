//! Tightening the files agentctl created earlier: [`tighten`], [`Tightened`].

use std::path::{Path, PathBuf};

/// A file agentctl found readable or writable by group or others when it opened it, and made
/// private: a notice for the front end to print once.
///
/// ```
/// use agentctl_private_files::Tightened;
/// let notice = Tightened { path: ".agentctl/sessions.db".into(), from: 0o644, to: 0o600 };
/// assert_eq!(notice.to_string(), "tightened .agentctl/sessions.db from 0644 to 0600");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tightened {
    /// The file.
    pub path: PathBuf,
    /// Its permission bits before (`0o644`).
    pub from: u32,
    /// Its permission bits now (`0o600`).
    pub to: u32,
}

impl std::fmt::Display for Tightened {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "tightened {} from {:04o} to {:04o}",
            self.path.display(),
            self.from,
            self.to
        )
    }
}

/// Removes the group and other permission bits of the file at `path`, which agentctl created
/// (a database, a trace file): `Some` notice when it changed them, `None` when they were
/// already off — and when there is nothing agentctl should change: no file, a symbolic link
/// (neither it nor its target is touched), something other than a regular file, or a file
/// agentctl may not change (another user's).
///
/// The file is never opened for reading or writing: SQLite holds POSIX locks on its database,
/// WAL and shared-memory files, and closing *any* descriptor of such a file drops every lock
/// the process holds on it — a second connection of the same process would lose its locks.
/// On Linux the file is reached through an `O_PATH` descriptor (which holds no locks and
/// whose closing drops none) and changed through `/proc/self/fd`, so a file swapped for a
/// link in between is never followed; elsewhere, and without `/proc`, it is checked with
/// `lstat` and changed by path.
///
/// ```
/// # #[cfg(unix)] {
/// use std::os::unix::fs::PermissionsExt as _;
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("sessions.db");
/// std::fs::write(&path, "")?;
/// std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644))?;
/// let notice = agentctl_private_files::tighten(&path)?.unwrap();
/// assert_eq!((notice.from, notice.to), (0o644, 0o600));
/// assert_eq!(agentctl_private_files::tighten(&path)?, None);
/// # }
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn tighten(path: &Path) -> std::io::Result<Option<Tightened>> {
    #[cfg(target_os = "linux")]
    {
        use rustix::fs::{Mode, OFlags};
        use rustix::io::Errno;
        let flags = OFlags::PATH | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let fd = match rustix::fs::open(path, flags, Mode::empty()) {
            Ok(fd) => fd,
            Err(Errno::NOENT | Errno::ACCESS) => return Ok(None),
            Err(errno) => return Err(errno.into()),
        };
        let stat = rustix::fs::fstat(&fd)?;
        let through = std::path::PathBuf::from(format!(
            "/proc/self/fd/{}",
            std::os::fd::AsRawFd::as_raw_fd(&fd)
        ));
        let by = if through.exists() {
            through
        } else {
            path.to_path_buf()
        };
        let regular =
            rustix::fs::FileType::from_raw_mode(stat.st_mode) == rustix::fs::FileType::RegularFile;
        narrow(path, &by, regular, stat.st_mode)
    }
    #[cfg(all(unix, not(target_os = "linux")))]
    {
        use std::os::unix::fs::MetadataExt as _;
        let metadata = match std::fs::symlink_metadata(path) {
            Ok(metadata) => metadata,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(error) => return Err(error),
        };
        narrow(path, path, metadata.file_type().is_file(), metadata.mode())
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        Ok(None)
    }
}

/// Removes the group and other bits of `mode` (the mode of what is at `path`, changed only when
/// `regular`) by changing the file at `by` (the same file).
#[cfg(unix)]
fn narrow(path: &Path, by: &Path, regular: bool, mode: u32) -> std::io::Result<Option<Tightened>> {
    use std::os::unix::fs::PermissionsExt as _;
    if !regular {
        return Ok(None);
    }
    let from = mode & 0o7777;
    if from & 0o077 == 0 {
        return Ok(None);
    }
    let to = from & !0o077;
    match std::fs::set_permissions(by, std::fs::Permissions::from_mode(to)) {
        Ok(()) => Ok(Some(Tightened {
            path: path.to_path_buf(),
            from,
            to,
        })),
        // Not the owner: not agentctl's to change.
        Err(error) if error.kind() == std::io::ErrorKind::PermissionDenied => Ok(None),
        Err(error) => Err(error),
    }
}

/// [`tighten`] for a file already open.
#[cfg(unix)]
pub(crate) fn tighten_file(
    file: &std::fs::File,
    path: &Path,
) -> std::io::Result<Option<Tightened>> {
    use std::os::unix::fs::PermissionsExt as _;
    let metadata = file.metadata()?;
    if !metadata.file_type().is_file() {
        return Ok(None);
    }
    let from = metadata.permissions().mode() & 0o7777;
    if from & 0o077 == 0 {
        return Ok(None);
    }
    let to = from & !0o077;
    match file.set_permissions(std::fs::Permissions::from_mode(to)) {
        Ok(()) => Ok(Some(Tightened {
            path: path.to_path_buf(),
            from,
            to,
        })),
        // Not the owner: not agentctl's to change.
        Err(error) if error.kind() == std::io::ErrorKind::PermissionDenied => Ok(None),
        Err(error) => Err(error),
    }
}
