//! The reading tools: `read_file` and `read_many_files`.
//!
//! Both open files through [`open_read`](crate::open::open_read) (regular files with a single
//! link only, never blocking on a FIFO) and read them as streams with a byte cap, so a huge or
//! endless file costs at most the cap in memory. `read_file` pages by line and, for a line
//! longer than the cap, by byte inside the line (`byte_offset`).

mod page;

use crate::grants::ReadGrants;
use crate::open::{FileError, open_read};
use crate::paths::{PathError, ProjectRoot};
use crate::search::{GlobMatcher, walk_files};
use crate::util::{blocking, root_of};
use agentctl_core::{RiskLevel, ToolContext, ToolError, ToolOutput, TypedTool};
use async_trait::async_trait;
use page::{Page, Request, Stop, read_page};
use schemars::JsonSchema;
use serde::Deserialize;
use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

/// Most bytes `read_file` returns in one call.
pub const MAX_READ_BYTES: usize = 256 * 1024;
/// Most lines `read_file` returns in one call.
pub const MAX_READ_LINES: usize = 2_000;
/// Most files `read_many_files` returns.
pub const MAX_MANY_FILES: usize = 50;
/// Most bytes `read_many_files` returns in total.
pub const MAX_MANY_BYTES: usize = 512 * 1024;
/// Buffer of the streaming reads: the only memory a read holds besides what it returns.
const READ_BUFFER: usize = 64 * 1024;
/// How much of a file's start is checked for NUL bytes to call it binary.
const BINARY_PROBE: usize = 8 * 1024;

/// At most `max_bytes` of the file `given` (relative to `root`, or absolute inside it), read
/// as `read_file` reads: confined to `root` (symlinks must stay inside), a regular file with a
/// single link, never blocking on a FIFO. Returns the bytes read and the file's full length,
/// for a caller that puts a file's start in a prompt (an agent's `MEMORY.md`).
///
/// # Errors
///
/// [`ToolError`] saying why the file cannot be read (outside the root, a special file, a
/// link count above one, an I/O error).
///
/// ```
/// use agentctl_tools::{ProjectRoot, read_confined};
///
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("MEMORY.md"), "one\ntwo\n").unwrap();
/// let root = ProjectRoot::new(dir.path()).unwrap();
/// let (start, len) = read_confined(&root, "MEMORY.md", 4).unwrap();
/// assert_eq!((start.as_slice(), len), (&b"one\n"[..], 8));
/// assert!(read_confined(&root, "../elsewhere", 4).is_err());
/// ```
pub fn read_confined(
    root: &ProjectRoot,
    given: &str,
    max_bytes: u64,
) -> Result<(Vec<u8>, u64), ToolError> {
    let path = root.resolve(given)?;
    let opened = open_read(root, &path)?;
    let len = opened.len;
    let mut bytes = Vec::new();
    opened
        .file
        .take(max_bytes)
        .read_to_end(&mut bytes)
        .map_err(|error| {
            ToolError::failed(format!("cannot read {}: {error}", root.display(&path)))
        })?;
    Ok((bytes, len))
}

/// Arguments of `read_file`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ReadFileArgs {
    /// File path, relative to the project root.
    path: String,
    /// First line to return, 1-based (default 1).
    #[serde(default)]
    offset: Option<usize>,
    /// Number of lines to return (default and maximum 2000).
    #[serde(default)]
    limit: Option<usize>,
    /// Byte inside line `offset` to start from (default 0); only for lines too long for one
    /// call, when the output says to pass it.
    #[serde(default)]
    byte_offset: Option<u64>,
}

/// `read_file`: reads a text file of the project, or of a folder granted to the calling
/// agent ([`ReadGrants`]: a skill it loaded).
#[derive(Default)]
pub(crate) struct ReadFile {
    grants: ReadGrants,
}

impl ReadFile {
    /// `read_file` that also reads the folders `grants` gives each agent.
    pub(crate) fn new(grants: ReadGrants) -> Self {
        Self { grants }
    }
}

#[async_trait]
impl TypedTool for ReadFile {
    type Args = ReadFileArgs;

    fn name(&self) -> &str {
        "read_file"
    }

    fn description(&self) -> &str {
        "Read a text file of the project (path relative to the project root). Returns at most \
         2000 lines or 256 KiB; use offset (1-based line) and limit to read further. A longer \
         line comes in pieces: the output says which byte_offset continues it."
    }

    fn risk(&self) -> RiskLevel {
        RiskLevel::Safe
    }

    fn is_mutating(&self) -> bool {
        false
    }

    async fn call(&self, args: ReadFileArgs, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let root = root_of(ctx)?;
        let grants = self.grants.clone();
        let agent = ctx.agent().to_owned();
        blocking(move || {
            if args.path.is_empty() {
                return Err(crate::paths::PathError::Empty.into());
            }
            let (root, path) = match root.resolve(&args.path) {
                Ok(path) => (root, path),
                // A path outside the project may lie in a folder granted to this agent.
                Err(refused @ PathError::Escapes(_)) => {
                    grants.resolve(&agent, &args.path).ok_or(refused)?
                }
                Err(refused) => return Err(refused.into()),
            };
            read_file(&root, &path, &args)
        })
        .await
    }
}

/// Reads `path`, resolved inside `root`, as `args` say.
fn read_file(
    root: &ProjectRoot,
    path: &Path,
    args: &ReadFileArgs,
) -> Result<ToolOutput, ToolError> {
    let shown = root.display(path);
    if path.is_dir() {
        return Err(ToolError::failed(format!(
            "{shown} is a directory; use glob to list it"
        )));
    }
    // Refusing hard-linked files for reading too, not only for writing: the path check sees
    // only the name inside the project, while the content may be that of a file outside it
    // (`ln ~/.ssh/id_ed25519 key`), so reading would leak what confinement is meant to hide.
    let opened = open_read(root, path)?;
    let size = opened.len;
    let mut reader = BufReader::with_capacity(READ_BUFFER, opened.file);
    if looks_binary(&mut reader) {
        return Err(ToolError::failed(format!("{shown} is a binary file")));
    }
    let request = Request {
        first: args.offset.unwrap_or(1).max(1),
        byte_offset: args.byte_offset.unwrap_or(0),
        max_lines: args
            .limit
            .unwrap_or(MAX_READ_LINES)
            .clamp(1, MAX_READ_LINES),
        max_bytes: MAX_READ_BYTES,
    };
    let page = read_page(&mut reader, &request)
        .map_err(|error| ToolError::failed(format!("cannot read {shown}: {error}")))?;
    render(&shown, size, &request, page).map(ToolOutput::text)
}

/// The page as the model reads it: the text, then what to pass to read on.
fn render(shown: &str, size: u64, request: &Request, page: Page) -> Result<String, ToolError> {
    let first = request.first;
    let (bytes, last, start_byte, stop) = match page {
        Page::NoSuchLine { lines: 0 } => return Ok(format!("({shown} is empty)")),
        Page::NoSuchLine { lines } => {
            return Ok(format!(
                "(no lines in that range: {shown} has {lines} lines)"
            ));
        }
        Page::LineTooShort { len } => {
            return Err(ToolError::failed(format!(
                "line {first} of {shown} has only {len} bytes; byte_offset {} is past its end",
                request.byte_offset
            )));
        }
        Page::Text {
            bytes,
            last,
            start_byte,
            stop,
        } => (bytes, last, start_byte, stop),
    };
    let (mut out, lossy) = match String::from_utf8(bytes) {
        Ok(text) => (text, false),
        Err(error) => (String::from_utf8_lossy(error.as_bytes()).into_owned(), true),
    };
    let range = if start_byte > 0 {
        format!("lines {first}-{last} (line {first} from byte {start_byte})")
    } else {
        format!("lines {first}-{last}")
    };
    let mut notes = Vec::new();
    match stop {
        Stop::End if out.is_empty() => notes.push(format!(
            "(line {first} of {shown} has nothing after byte {start_byte})"
        )),
        Stop::End => {}
        Stop::Lines { next } => notes.push(format!(
            "[truncated: showing {range} of a {size}-byte file; pass offset={next} to read more]"
        )),
        Stop::Bytes { next } => notes.push(format!(
            "[truncated at {MAX_READ_BYTES} bytes: showing {range}; pass offset={next} to read \
             more]"
        )),
        Stop::MidLine { line, next_byte } => notes.push(format!(
            "[line {line} continues: showing its bytes {start_byte}-{next_byte} of a {size}-byte \
             file; pass offset={line} byte_offset={next_byte} to read more]"
        )),
        Stop::Binary { line } => notes.push(format!(
            "[line {line} holds binary data (NUL bytes) and is not shown; pass offset={} to read \
             past it]",
            line + 1
        )),
    }
    if lossy {
        notes.push(format!(
            "[{shown} is not valid UTF-8 here: invalid bytes are shown as U+FFFD]"
        ));
    }
    for note in notes {
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&note);
    }
    Ok(out)
}

/// True when the start of the file holds a NUL byte (the buffer is filled, not consumed).
fn looks_binary<R: Read>(reader: &mut BufReader<R>) -> bool {
    reader
        .fill_buf()
        .is_ok_and(|head| head[..head.len().min(BINARY_PROBE)].contains(&0))
}

/// Arguments of `read_many_files`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ReadManyArgs {
    /// Glob patterns relative to the project root (`src/**/*.rs`, `README.md`).
    patterns: Vec<String>,
    /// Most files to return (default and maximum 50).
    #[serde(default)]
    max_files: Option<usize>,
}

/// `read_many_files`: reads every file matching some globs, skipping ignored files.
pub(crate) struct ReadManyFiles;

#[async_trait]
impl TypedTool for ReadManyFiles {
    type Args = ReadManyArgs;

    fn name(&self) -> &str {
        "read_many_files"
    }

    fn description(&self) -> &str {
        "Read several text files at once, selected by glob patterns relative to the project root \
         (`src/**/*.rs`). Files ignored by .gitignore are skipped. Each file comes under a \
         `==> path <==` header; at most 50 files and 512 KiB in total."
    }

    fn risk(&self) -> RiskLevel {
        RiskLevel::Safe
    }

    fn is_mutating(&self) -> bool {
        false
    }

    async fn call(&self, args: ReadManyArgs, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let root = root_of(ctx)?;
        blocking(move || read_many(&root, &args)).await
    }
}

fn read_many(root: &ProjectRoot, args: &ReadManyArgs) -> Result<ToolOutput, ToolError> {
    if args.patterns.is_empty() {
        return Err(ToolError::failed("give at least one glob pattern"));
    }
    let matcher = GlobMatcher::new(&args.patterns)?;
    let max_files = args
        .max_files
        .unwrap_or(MAX_MANY_FILES)
        .clamp(1, MAX_MANY_FILES);
    let mut files: Vec<_> = walk_files(root, root.path())
        .into_iter()
        .filter(|path| matcher.is_match(&root.display(path)))
        .collect();
    files.sort();
    if files.is_empty() {
        return Ok(ToolOutput::text("no files match those patterns"));
    }
    let mut out = String::new();
    let mut notes = Vec::new();
    let total = files.len();
    for (index, path) in files.iter().enumerate() {
        let shown = root.display(path);
        if index >= max_files {
            notes.push(format!(
                "[skipped: {} more files not shown (limit {max_files})]",
                total - index
            ));
            break;
        }
        match read_text(root, path, MAX_MANY_BYTES.saturating_sub(out.len())) {
            Ok((text, lossy)) => {
                let _ = writeln!(out, "==> {shown} <==");
                out.push_str(&text);
                if !text.ends_with('\n') {
                    out.push('\n');
                }
                out.push('\n');
                if lossy {
                    notes.push(format!(
                        "[note: {shown} is not valid UTF-8: invalid bytes are shown as U+FFFD]"
                    ));
                }
            }
            Err(why) => notes.push(format!("[skipped: {why}]")),
        }
    }
    for note in notes {
        let _ = writeln!(out, "{note}");
    }
    Ok(ToolOutput::text(out))
}

/// Reads a text file of at most `budget` bytes: the text and whether it had to be decoded
/// lossily, or why it was skipped.
fn read_text(root: &ProjectRoot, path: &Path, budget: usize) -> Result<(String, bool), String> {
    let shown = root.display(path);
    let opened = open_read(root, path).map_err(|error: FileError| error.to_string())?;
    if opened.len > budget as u64 {
        return Err(format!(
            "{shown}: {} bytes, over the remaining {budget}-byte budget",
            opened.len
        ));
    }
    // One byte more than the budget tells a file that grew since the `fstat` from one that fits.
    let mut bytes = Vec::new();
    opened
        .file
        .take(budget as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|error| format!("{shown}: {error}"))?;
    if bytes.len() > budget {
        return Err(format!(
            "{shown}: grew past the remaining {budget}-byte budget while being read"
        ));
    }
    if bytes.iter().take(BINARY_PROBE).any(|&byte| byte == 0) {
        return Err(format!("{shown}: binary file"));
    }
    Ok(match String::from_utf8(bytes) {
        Ok(text) => (text, false),
        Err(error) => (String::from_utf8_lossy(error.as_bytes()).into_owned(), true),
    })
}
