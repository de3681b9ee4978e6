//! Creating private folders and files: `0700` and `0600` whatever the umask.

use crate::{DIR_MODE, FILE_MODE, Tightened, tighten};
use std::fs::{File, OpenOptions};
use std::io::Write as _;
use std::path::Path;

/// Creates `dir` and its missing parents as `0700` folders, whatever the umask; folders that
/// exist are left as they are (`.agentctl/` may be the user's own).
pub fn create_private_dir_all(dir: &Path) -> std::io::Result<()> {
    if dir.as_os_str().is_empty() || dir.is_dir() {
        return Ok(());
    }
    if let Some(parent) = dir.parent() {
        create_private_dir_all(parent)?;
    }
    let mut builder = std::fs::DirBuilder::new();
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, DIR_MODE);
    match builder.create(dir) {
        Ok(()) => exact_dir_mode(dir),
        // Created meanwhile by another process.
        Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists && dir.is_dir() => Ok(()),
        Err(error) => Err(error),
    }
}

/// Makes sure the file at `path` exists and is private, for a library that opens it by name
/// (SQLite): created empty and `0600` when missing (its folder must exist), else
/// [tightened](tighten) — `Some` notice when it was readable by others.
pub fn prepare_private_file(path: &Path) -> std::io::Result<Option<Tightened>> {
    match create_new(path, OpenOptions::new().write(true)) {
        Ok(_) => Ok(None),
        Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => tighten(path),
        Err(error) => Err(error),
    }
}

/// The files SQLite keeps beside a database, as suffixes of its name.
pub const DATABASE_SIDE_FILES: [&str; 3] = ["-wal", "-shm", "-journal"];

/// Makes sure the SQLite database at `path` is private before SQLite opens it: the database
/// [prepared](prepare_private_file) (created empty `0600` when missing; SQLite then creates its
/// journal, WAL and shared-memory files with the database's own mode), and those of its
/// [side files](DATABASE_SIDE_FILES) that exist [tightened](tighten). Returns the notices.
pub fn prepare_private_database(path: &Path) -> std::io::Result<Vec<Tightened>> {
    let mut notices: Vec<Tightened> = prepare_private_file(path)?.into_iter().collect();
    for suffix in DATABASE_SIDE_FILES {
        let mut side = path.as_os_str().to_owned();
        side.push(suffix);
        notices.extend(tighten(Path::new(&side))?);
    }
    Ok(notices)
}

/// Opens the file at `path` for appending (a trace file): created `0600` when missing, else
/// [tightened](tighten), with the notice. A symbolic link at `path` is refused.
pub fn open_private_append(path: &Path) -> std::io::Result<(File, Option<Tightened>)> {
    match create_new(path, OpenOptions::new().append(true)) {
        Ok(file) => Ok((file, None)),
        Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {
            let file = open_existing_append(path)?;
            #[cfg(unix)]
            let tightened = crate::tighten::tighten_file(&file, path)?;
            #[cfg(not(unix))]
            let tightened = None;
            Ok((file, tightened))
        }
        Err(error) => Err(error),
    }
}

/// Writes `bytes` to `path` atomically and privately: into a new `0600` file beside it, then
/// renamed over it, so a reader sees the old file or the new one, never a part, and an
/// existing file's wider permissions do not carry over.
pub fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let name = path.file_name().ok_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("{} names no file", path.display()),
        )
    })?;
    let (temp, mut file) = temp_beside(dir, &name.to_string_lossy())?;
    let written = file
        .write_all(bytes)
        .and_then(|()| file.sync_all())
        .and_then(|()| std::fs::rename(&temp, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    written
}

/// A new private file in `dir` named after `name`, and its path.
fn temp_beside(dir: &Path, name: &str) -> std::io::Result<(std::path::PathBuf, File)> {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.subsec_nanos());
    let mut attempt = 0u32;
    loop {
        let temp = dir.join(format!(
            ".{name}.{}-{nanos}-{attempt}.tmp",
            std::process::id()
        ));
        match create_new(&temp, OpenOptions::new().write(true)) {
            Ok(file) => return Ok((temp, file)),
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists && attempt < 100 => {
                attempt += 1;
            }
            Err(error) => return Err(error),
        }
    }
}

/// Creates the file at `path` (never an existing one, never through a link) with `options`
/// and mode `0600`, exactly: if the umask took owner bits away, the new, empty file gets them
/// back.
fn create_new(path: &Path, options: &mut OpenOptions) -> std::io::Result<File> {
    options.create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(options, FILE_MODE);
    let file = options.open(path)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        if file.metadata()?.permissions().mode() & 0o7777 != FILE_MODE {
            file.set_permissions(std::fs::Permissions::from_mode(FILE_MODE))?;
        }
    }
    Ok(file)
}

/// An existing file opened for appending, refusing a symbolic link.
fn open_existing_append(path: &Path) -> std::io::Result<File> {
    #[cfg(unix)]
    {
        use rustix::fs::{Mode, OFlags};
        let flags = OFlags::WRONLY
            | OFlags::APPEND
            | OFlags::NOFOLLOW
            | OFlags::NONBLOCK
            | OFlags::NOCTTY
            | OFlags::CLOEXEC;
        let file = File::from(rustix::fs::open(path, flags, Mode::empty())?);
        if !file.metadata()?.file_type().is_file() {
            return Err(std::io::Error::other(format!(
                "{} is not a regular file",
                path.display()
            )));
        }
        Ok(file)
    }
    #[cfg(not(unix))]
    {
        OpenOptions::new().append(true).open(path)
    }
}

/// Sets the folder agentctl just created (still empty) to exactly `0700`, if the umask took
/// owner bits away.
pub(crate) fn exact_dir_mode(dir: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use rustix::fs::{Mode, OFlags};
        use std::os::unix::fs::PermissionsExt as _;
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let folder = File::from(rustix::fs::open(dir, flags, Mode::empty())?);
        if folder.metadata()?.permissions().mode() & 0o7777 != DIR_MODE {
            folder.set_permissions(std::fs::Permissions::from_mode(DIR_MODE))?;
        }
    }
    #[cfg(not(unix))]
    let _ = (dir, DIR_MODE);
    Ok(())
}
