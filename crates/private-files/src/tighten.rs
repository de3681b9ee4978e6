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
/// agentctl may not change (another user's, or one it cannot open).
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
    #[cfg(unix)]
    {
        use rustix::fs::{Mode, OFlags};
        use rustix::io::Errno;
        // No link followed, no FIFO waited on, no terminal adopted.
        let flags =
            OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
        match rustix::fs::open(path, flags, Mode::empty()) {
            Ok(fd) => tighten_file(&std::fs::File::from(fd), path),
            Err(Errno::NOENT | Errno::LOOP | Errno::ACCESS | Errno::PERM) => Ok(None),
            Err(errno) => Err(errno.into()),
        }
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        Ok(None)
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
