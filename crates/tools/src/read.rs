//! The reading tools: `read_file` and `read_many_files`.

use crate::paths::ProjectRoot;
use crate::search::{GlobMatcher, walk_files};
use crate::util::{blocking, root_of};
use agentctl_core::{RiskLevel, ToolContext, ToolError, ToolOutput, TypedTool};
use async_trait::async_trait;
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
}

/// `read_file`: reads a text file of the project.
pub(crate) struct ReadFile;

#[async_trait]
impl TypedTool for ReadFile {
    type Args = ReadFileArgs;

    fn name(&self) -> &str {
        "read_file"
    }

    fn description(&self) -> &str {
        "Read a text file of the project (path relative to the project root). Returns at most \
         2000 lines or 256 KiB; use offset (1-based line) and limit to read further."
    }

    fn risk(&self) -> RiskLevel {
        RiskLevel::Safe
    }

    fn is_mutating(&self) -> bool {
        false
    }

    async fn call(&self, args: ReadFileArgs, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let root = root_of(ctx)?;
        blocking(move || read_file(&root, &args)).await
    }
}

fn read_file(root: &ProjectRoot, args: &ReadFileArgs) -> Result<ToolOutput, ToolError> {
    if args.path.trim().is_empty() {
        return Err(crate::paths::PathError::Empty.into());
    }
    let path = root.resolve(&args.path)?;
    let shown = root.display(&path);
    if path.is_dir() {
        return Err(ToolError::failed(format!(
            "{shown} is a directory; use glob to list it"
        )));
    }
    let file = std::fs::File::open(&path)
        .map_err(|error| ToolError::failed(format!("cannot read {shown}: {error}")))?;
    let mut reader = BufReader::new(file);
    if looks_binary(&mut reader) {
        return Err(ToolError::failed(format!("{shown} is a binary file")));
    }
    let first = args.offset.unwrap_or(1).max(1);
    let limit = args
        .limit
        .unwrap_or(MAX_READ_LINES)
        .clamp(1, MAX_READ_LINES);
    let mut out = String::new();
    let (mut number, mut last, mut cut_by_size) = (0usize, 0usize, false);
    let mut buf = Vec::new();
    loop {
        buf.clear();
        let read = reader
            .read_until(b'\n', &mut buf)
            .map_err(|error| ToolError::failed(format!("cannot read {shown}: {error}")))?;
        if read == 0 {
            break;
        }
        number += 1;
        if number < first || number >= first + limit || cut_by_size {
            continue;
        }
        let line = String::from_utf8_lossy(&buf);
        if out.len() + line.len() > MAX_READ_BYTES {
            cut_by_size = true;
            continue;
        }
        out.push_str(&line);
        last = number;
    }
    if last == 0 {
        return Ok(ToolOutput::text(if number == 0 {
            format!("({shown} is empty)")
        } else {
            format!("(no lines in that range: {shown} has {number} lines)")
        }));
    }
    if last < number {
        if !out.ends_with('\n') {
            out.push('\n');
        }
        let _ = write!(
            out,
            "[truncated: showing lines {first}-{last} of {number}; pass offset={} to read more]",
            last + 1
        );
    }
    Ok(ToolOutput::text(out))
}

/// True when the first 8 KiB contain a NUL byte (the buffer is filled, not consumed).
fn looks_binary<R: Read>(reader: &mut BufReader<R>) -> bool {
    reader.fill_buf().is_ok_and(|head| head.contains(&0))
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
    let mut files: Vec<_> = walk_files(root.path())
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
                "{} more files not shown (limit {max_files})",
                total - index
            ));
            break;
        }
        match read_text(path, MAX_MANY_BYTES.saturating_sub(out.len())) {
            Ok(text) => {
                let _ = writeln!(out, "==> {shown} <==");
                out.push_str(&text);
                if !text.ends_with('\n') {
                    out.push('\n');
                }
                out.push('\n');
            }
            Err(why) => notes.push(format!("{shown}: {why}")),
        }
    }
    for note in notes {
        let _ = writeln!(out, "[skipped: {note}]");
    }
    Ok(ToolOutput::text(out))
}

/// Reads a text file of at most `budget` bytes.
fn read_text(path: &Path, budget: usize) -> Result<String, String> {
    let size = std::fs::metadata(path).map_err(|e| e.to_string())?.len();
    if size > budget as u64 {
        return Err(format!(
            "{size} bytes, over the remaining {budget}-byte budget"
        ));
    }
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    if bytes.iter().take(8192).any(|&b| b == 0) {
        return Err("binary file".to_owned());
    }
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}
