//! Bounded reading of agentctl's own input files: settings, agent files, cassettes.
//!
//! These files are found by walking folders or named in settings, so one of them can be a
//! symlink to `/dev/zero`, a FIFO nobody writes to, or a multi-gigabyte file. Reading such a
//! file naively hangs every command or exhausts memory. [`read_input_file`] refuses anything but
//! a regular file no larger than its [`InputLimit`], and never reads more than the limit allows:
//!
//! 1. the type and size are checked with `metadata` (following symlinks) before opening;
//! 2. the file is opened with `O_NONBLOCK`, so a FIFO swapped in after the check cannot block
//!    the open, and the open handle is checked again (`fstat`);
//! 3. the read is capped at the limit plus one byte, so even a file system that reports a wrong
//!    size cannot make agentctl allocate more.

use std::fmt;
use std::fs::{File, Metadata};
use std::io::Read;
use std::path::{Path, PathBuf};

const MIB: u64 = 1024 * 1024;

/// Largest `settings.json` read (4 MiB).
///
/// Settings are written by hand: even a file with hundreds of MCP servers and aliases is tens of
/// KiB. 4 MiB leaves two orders of magnitude of room while keeping a load well under a second.
pub const MAX_SETTINGS_BYTES: u64 = 4 * MIB;

/// Largest agent file read (1 MiB).
///
/// The front matter is capped at 64 KiB on its own; the rest is the system prompt, and 1 MiB of
/// prompt (about 250,000 tokens) is already more than any model's context window.
pub const MAX_AGENT_FILE_BYTES: u64 = MIB;

/// Largest `scripted:` cassette read (16 MiB).
///
/// A cassette holds the model's replies and tool-call arguments of a run (not the tool outputs),
/// a few KiB per turn; 16 MiB is hundreds of turns of the longest replies models give, and
/// parsing it as YAML stays within a second and about a hundred MiB of memory.
pub const MAX_CASSETTE_BYTES: u64 = 16 * MIB;

/// Largest trust store read (16 MiB): a few hundred bytes per project and per server script,
/// so tens of thousands of projects.
pub const MAX_TRUST_FILE_BYTES: u64 = 16 * MIB;

/// Largest file of a project MCP server hashed (256 MiB): a bundled server is a few MiB; a
/// script is streamed through the hash, so only the time to read it grows with its size.
pub const MAX_SCRIPT_BYTES: u64 = 256 * MIB;

/// What kind of input a file is and how large it may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InputLimit {
    /// Plural noun used in messages: `settings files`.
    pub what: &'static str,
    /// Largest accepted size in bytes.
    pub max_bytes: u64,
}

impl InputLimit {
    /// `settings.json` files: [`MAX_SETTINGS_BYTES`].
    pub const SETTINGS: Self = Self {
        what: "settings files",
        max_bytes: MAX_SETTINGS_BYTES,
    };
    /// Agent definition files: [`MAX_AGENT_FILE_BYTES`].
    pub const AGENT_FILE: Self = Self {
        what: "agent files",
        max_bytes: MAX_AGENT_FILE_BYTES,
    };
    /// `scripted:` cassettes: [`MAX_CASSETTE_BYTES`].
    pub const CASSETTE: Self = Self {
        what: "cassettes",
        max_bytes: MAX_CASSETTE_BYTES,
    };
    /// The trust store: [`MAX_TRUST_FILE_BYTES`].
    pub const TRUST_FILE: Self = Self {
        what: "trust files",
        max_bytes: MAX_TRUST_FILE_BYTES,
    };
    /// Files a project MCP server runs, hashed as they are streamed: [`MAX_SCRIPT_BYTES`].
    pub const SCRIPT: Self = Self {
        what: "MCP server scripts",
        max_bytes: MAX_SCRIPT_BYTES,
    };
}

/// What a path that is not a regular file turned out to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum FileKind {
    /// A directory.
    Directory,
    /// A named pipe.
    Fifo,
    /// A Unix socket.
    Socket,
    /// A character device such as `/dev/zero`.
    CharDevice,
    /// A block device.
    BlockDevice,
    /// Anything else that is not a regular file.
    Other,
}

impl FileKind {
    fn of(metadata: &Metadata) -> Option<Self> {
        let kind = metadata.file_type();
        if kind.is_file() {
            return None;
        }
        if kind.is_dir() {
            return Some(Self::Directory);
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::FileTypeExt as _;
            if kind.is_fifo() {
                return Some(Self::Fifo);
            }
            if kind.is_socket() {
                return Some(Self::Socket);
            }
            if kind.is_char_device() {
                return Some(Self::CharDevice);
            }
            if kind.is_block_device() {
                return Some(Self::BlockDevice);
            }
        }
        Some(Self::Other)
    }
}

impl fmt::Display for FileKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FileKind::Directory => "a directory",
            FileKind::Fifo => "a FIFO",
            FileKind::Socket => "a socket",
            FileKind::CharDevice => "a character device",
            FileKind::BlockDevice => "a block device",
            FileKind::Other => "not a regular file",
        })
    }
}

/// Why an input file was not read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum InputProblem {
    /// The file could not be opened or read (missing, permissions, I/O error).
    #[error("cannot read: {0}")]
    Io(std::io::Error),
    /// The path names a FIFO, device, socket or directory, which is never read.
    #[error("is {kind}{}, not a regular file", target.as_ref().map(|t| format!(" ({})", t.display())).unwrap_or_default())]
    NotRegular {
        /// What it is.
        kind: FileKind,
        /// Where the symlink the path is leads, when it is one.
        target: Option<PathBuf>,
    },
    /// The file is larger than its limit; it was not read (or read only up to the limit).
    #[error("{}", too_large(*size, *max_bytes, what))]
    TooLarge {
        /// The size the file system reports; `None` when it reported less than was read.
        size: Option<u64>,
        /// The limit.
        max_bytes: u64,
        /// Plural noun of the kind of file: `settings files`.
        what: &'static str,
    },
    /// The file is not valid UTF-8 ([`read_input_file`] only).
    #[error("the file is not valid UTF-8 (byte offset {offset}): save it as UTF-8")]
    NotUtf8 {
        /// Byte offset of the first invalid byte.
        offset: usize,
        /// 1-based line of that byte.
        line: usize,
        /// 1-based column (in characters) of that byte.
        column: usize,
    },
}

/// An input file that was refused or could not be read, with its path.
///
/// Displays as `path: problem`, or `path:line:col: problem` for invalid UTF-8.
#[derive(Debug, thiserror::Error)]
pub struct InputFileError {
    /// The file, as given.
    pub path: PathBuf,
    /// What is wrong.
    pub problem: InputProblem,
}

impl InputFileError {
    fn new(path: &Path, problem: InputProblem) -> Self {
        Self {
            path: path.to_path_buf(),
            problem,
        }
    }

    /// True when the file does not exist (a missing optional file is often not an error).
    pub fn is_not_found(&self) -> bool {
        matches!(&self.problem, InputProblem::Io(error) if error.kind() == std::io::ErrorKind::NotFound)
    }
}

impl fmt::Display for InputFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.path.display())?;
        if let InputProblem::NotUtf8 { line, column, .. } = &self.problem {
            write!(f, ":{line}:{column}")?;
        }
        write!(f, ": {}", self.problem)
    }
}

/// Reads a text input file: a regular file of at most `limit.max_bytes` bytes, in UTF-8.
///
/// FIFOs, sockets, devices and directories (also behind symlinks) are refused without being
/// opened for a blocking read; oversized files are refused without being read.
///
/// ```
/// use agentctl_config::{InputLimit, InputProblem, read_input_file};
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("settings.json");
/// std::fs::write(&path, "{}")?;
/// assert_eq!(read_input_file(&path, InputLimit::SETTINGS)?, "{}");
///
/// std::fs::File::create(&path)?.set_len(5_400_000)?; // sparse: nothing is written
/// let error = read_input_file(&path, InputLimit::SETTINGS).unwrap_err();
/// assert!(matches!(error.problem, InputProblem::TooLarge { .. }));
/// assert!(error.to_string().ends_with("settings.json: is 5.1 MiB; settings files are limited to 4 MiB"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn read_input_file(path: &Path, limit: InputLimit) -> Result<String, InputFileError> {
    let bytes = read_input_bytes(path, limit)?;
    String::from_utf8(bytes).map_err(|error| {
        let offset = error.utf8_error().valid_up_to();
        let (line, column) = line_col(error.as_bytes(), offset);
        InputFileError::new(
            path,
            InputProblem::NotUtf8 {
                offset,
                line,
                column,
            },
        )
    })
}

/// Like [`read_input_file`], without the UTF-8 check (for callers that locate encoding errors
/// themselves).
pub fn read_input_bytes(path: &Path, limit: InputLimit) -> Result<Vec<u8>, InputFileError> {
    let metadata = std::fs::metadata(path)
        .map_err(|error| InputFileError::new(path, InputProblem::Io(error)))?;
    check(path, &metadata, limit)?;
    read_opened(path, limit)
}

/// Like [`read_input_bytes`], for a path that a directory listing has just shown to be a
/// regular file, not a symlink (`d_type`): the check before opening is left out, since the
/// listing made it. What is opened is still checked, so a file swapped for a FIFO or a
/// device since is refused as [`read_input_bytes`] refuses it.
pub fn read_listed_input_bytes(path: &Path, limit: InputLimit) -> Result<Vec<u8>, InputFileError> {
    read_opened(path, limit)
}

/// Opens a regular file of at most `limit.max_bytes` for a streamed read, with the checks of
/// [`read_input_bytes`]: what is returned is a regular file, opened without blocking.
pub(crate) fn open_input(path: &Path, limit: InputLimit) -> Result<File, InputFileError> {
    let metadata = std::fs::metadata(path)
        .map_err(|error| InputFileError::new(path, InputProblem::Io(error)))?;
    check(path, &metadata, limit)?;
    open_checked(path, limit).map(|(file, _)| file)
}

/// Opens `path` without blocking and checks what was opened.
fn open_checked(path: &Path, limit: InputLimit) -> Result<(File, Metadata), InputFileError> {
    let fail = |problem| InputFileError::new(path, problem);
    let file = open_nonblocking(path).map_err(|error| fail(InputProblem::Io(error)))?;
    // The path may have been swapped between `metadata` and `open`: check what was opened.
    let metadata = file
        .metadata()
        .map_err(|error| fail(InputProblem::Io(error)))?;
    check(path, &metadata, limit)?;
    Ok((file, metadata))
}

/// Opens `path` without blocking, checks what was opened and reads it within `limit`.
fn read_opened(path: &Path, limit: InputLimit) -> Result<Vec<u8>, InputFileError> {
    let fail = |problem| InputFileError::new(path, problem);
    let (file, metadata) = open_checked(path, limit)?;
    let capacity = usize::try_from(metadata.len().min(limit.max_bytes)).unwrap_or(0);
    let mut bytes = Vec::with_capacity(capacity);
    file.take(limit.max_bytes.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|error| fail(InputProblem::Io(error)))?;
    if bytes.len() as u64 > limit.max_bytes {
        return Err(fail(InputProblem::TooLarge {
            size: None,
            max_bytes: limit.max_bytes,
            what: limit.what,
        }));
    }
    Ok(bytes)
}

fn check(path: &Path, metadata: &Metadata, limit: InputLimit) -> Result<(), InputFileError> {
    if let Some(kind) = FileKind::of(metadata) {
        let target = path
            .symlink_metadata()
            .is_ok_and(|m| m.file_type().is_symlink())
            .then(|| path.canonicalize().ok())
            .flatten();
        return Err(InputFileError::new(
            path,
            InputProblem::NotRegular { kind, target },
        ));
    }
    if metadata.len() > limit.max_bytes {
        return Err(InputFileError::new(
            path,
            InputProblem::TooLarge {
                size: Some(metadata.len()),
                max_bytes: limit.max_bytes,
                what: limit.what,
            },
        ));
    }
    Ok(())
}

/// Opens for reading without blocking on a FIFO (`O_NONBLOCK` has no effect on regular files).
#[cfg(unix)]
fn open_nonblocking(path: &Path) -> std::io::Result<File> {
    use rustix::fs::{Mode, OFlags};
    let fd = rustix::fs::open(
        path,
        OFlags::RDONLY | OFlags::NONBLOCK | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    Ok(File::from(fd))
}

#[cfg(not(unix))]
fn open_nonblocking(path: &Path) -> std::io::Result<File> {
    File::open(path)
}

/// `is 5.2 MiB; settings files are limited to 4 MiB`. Sizes just over the limit are given in
/// bytes, where rounding would make them look equal to it.
fn too_large(size: Option<u64>, max_bytes: u64, what: &str) -> String {
    match size {
        None => format!(
            "is larger than {}; {what} are limited to that",
            human_size(max_bytes)
        ),
        Some(size) if size.saturating_sub(max_bytes) < max_bytes / 20 => {
            let human = human_size(max_bytes);
            let note = if human.ends_with(" bytes") {
                String::new()
            } else {
                format!(" ({human})")
            };
            format!("is {size} bytes; {what} are limited to {max_bytes} bytes{note}")
        }
        Some(size) => format!(
            "is {}; {what} are limited to {}",
            human_size(size),
            human_size(max_bytes)
        ),
    }
}

/// `4 MiB`, `5.2 MiB`, `700 KiB`, `12 bytes`.
fn human_size(bytes: u64) -> String {
    const UNITS: [(&str, u64); 3] = [("GiB", MIB * 1024), ("MiB", MIB), ("KiB", 1024)];
    for (unit, size) in UNITS {
        if bytes >= size {
            return if bytes.is_multiple_of(size) {
                format!("{} {unit}", bytes / size)
            } else {
                format!("{:.1} {unit}", bytes as f64 / size as f64)
            };
        }
    }
    format!("{bytes} bytes")
}

/// 1-based line and column (in characters) of a byte offset.
fn line_col(bytes: &[u8], offset: usize) -> (usize, usize) {
    let before = &bytes[..offset.min(bytes.len())];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let column = String::from_utf8_lossy(&before[start..]).chars().count() + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_like_a_person_would_write_them() {
        assert_eq!(human_size(4 * MIB), "4 MiB");
        assert_eq!(human_size(MIB + MIB / 5), "1.2 MiB");
        assert_eq!(human_size(5 * MIB), "5 MiB");
        assert_eq!(human_size(700 * 1024 + 3), "700.0 KiB");
        assert_eq!(human_size(12), "12 bytes");
        assert_eq!(human_size(4 * 1024 * MIB), "4 GiB");
    }

    #[test]
    fn a_regular_file_within_the_limit_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.json");
        std::fs::write(&path, "x".repeat(100)).unwrap();
        let limit = InputLimit {
            what: "test files",
            max_bytes: 100,
        };
        assert_eq!(read_input_file(&path, limit).unwrap().len(), 100);
        std::fs::write(&path, "x".repeat(101)).unwrap();
        let error = read_input_file(&path, limit).unwrap_err();
        assert_eq!(
            error.to_string(),
            format!(
                "{}: is 101 bytes; test files are limited to 100 bytes",
                path.display()
            )
        );
    }

    #[test]
    fn invalid_utf8_is_located() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.json");
        std::fs::write(&path, b"{\n  \"\xff\"}").unwrap();
        let error = read_input_file(&path, InputLimit::SETTINGS).unwrap_err();
        assert_eq!(
            error.to_string(),
            format!(
                "{}:2:4: the file is not valid UTF-8 (byte offset 5): save it as UTF-8",
                path.display()
            )
        );
    }

    /// A FIFO swapped in between the `metadata` check and the open: the open must not wait for
    /// a writer, and the check of the open handle must refuse it.
    #[cfg(unix)]
    #[test]
    fn a_fifo_opens_without_blocking_and_is_refused_after_the_open() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = make_fifo(dir.path());
        let file = open_nonblocking(&fifo).unwrap();
        let error = check(&fifo, &file.metadata().unwrap(), InputLimit::CASSETTE).unwrap_err();
        assert!(
            matches!(
                error.problem,
                InputProblem::NotRegular {
                    kind: FileKind::Fifo,
                    target: None
                }
            ),
            "{error:?}"
        );
    }

    /// A FIFO named `pipe` in `dir`.
    #[cfg(unix)]
    fn make_fifo(dir: &Path) -> PathBuf {
        let fifo = dir.join("pipe");
        let status = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(status.success());
        fifo
    }

    #[test]
    fn a_directory_and_a_missing_file_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let error = read_input_file(dir.path(), InputLimit::SETTINGS).unwrap_err();
        assert!(
            error
                .to_string()
                .ends_with(": is a directory, not a regular file")
        );
        let missing = read_input_file(&dir.path().join("nope"), InputLimit::SETTINGS).unwrap_err();
        assert!(missing.is_not_found());
    }

    /// A file listed as regular and swapped before it is read: without the check before
    /// opening, the check of what was opened still refuses a FIFO (without blocking), a
    /// directory and a file over the limit.
    #[cfg(unix)]
    #[test]
    fn a_listed_file_swapped_for_something_else_is_still_refused() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = make_fifo(dir.path());
        let error = read_listed_input_bytes(&fifo, InputLimit::AGENT_FILE).unwrap_err();
        assert!(
            matches!(
                error.problem,
                InputProblem::NotRegular {
                    kind: FileKind::Fifo,
                    ..
                }
            ),
            "{error:?}"
        );
        let error = read_listed_input_bytes(dir.path(), InputLimit::AGENT_FILE).unwrap_err();
        assert!(
            matches!(
                error.problem,
                InputProblem::NotRegular {
                    kind: FileKind::Directory,
                    ..
                }
            ),
            "{error:?}"
        );
        let large = dir.path().join("large.md");
        std::fs::write(&large, vec![b'x'; 2 * MIB as usize]).unwrap();
        let error = read_listed_input_bytes(&large, InputLimit::AGENT_FILE).unwrap_err();
        assert!(
            matches!(error.problem, InputProblem::TooLarge { .. }),
            "{error:?}"
        );
        let small = dir.path().join("small.md");
        std::fs::write(&small, "---\nname: a\n---\n").unwrap();
        assert_eq!(
            read_listed_input_bytes(&small, InputLimit::AGENT_FILE).unwrap(),
            b"---\nname: a\n---\n"
        );
    }
}
