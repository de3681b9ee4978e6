//! The search tools: `grep` (regex over file contents) and `glob` (file names).
//!
//! Both walk the project as ripgrep does ([`walk_files`]): `.gitignore`, `.ignore` and
//! `.git/info/exclude` are honoured (also outside a git repository), hidden files are skipped and
//! symlinks are not followed, so a link cannot lead the walk out of the project. FIFOs, devices
//! and sockets are never listed or opened; `grep` opens files through the same safe open as
//! `read_file` and reads at most [`MAX_GREP_FILE_BYTES`] of each.

mod walk;

pub(crate) use walk::walk_files;

use crate::open::{FileError, open_read};
use crate::paths::ProjectRoot;
use crate::util::{blocking, root_of};
use agentctl_core::{RiskLevel, ToolContext, ToolError, ToolOutput, TypedTool};
use async_trait::async_trait;
use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use schemars::JsonSchema;
use serde::Deserialize;
use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Read as _};
use std::path::PathBuf;

/// Default and maximum number of `grep` matches.
pub const MAX_GREP_RESULTS: usize = 200;
/// Hard ceiling on `max_results`.
const GREP_RESULTS_CEILING: usize = 2_000;
/// Files larger than this are not searched.
const MAX_GREP_FILE_BYTES: u64 = 2 * 1024 * 1024;
/// Most refusal messages `grep` repeats at the end of its output.
const MAX_SKIP_NOTES: usize = 5;
/// Longest line text `grep` prints.
const MAX_LINE_CHARS: usize = 300;
/// Most paths `glob` lists.
pub const MAX_GLOB_RESULTS: usize = 1_000;

/// Compiled glob patterns over root-relative paths: `*` stays within a folder, `**` crosses.
pub(crate) struct GlobMatcher {
    set: GlobSet,
}

impl GlobMatcher {
    pub(crate) fn new(patterns: &[String]) -> Result<Self, ToolError> {
        let mut builder = GlobSetBuilder::new();
        for pattern in patterns {
            let trimmed = pattern.trim().trim_start_matches("./");
            let glob = GlobBuilder::new(trimmed)
                .literal_separator(true)
                .build()
                .map_err(|error| {
                    ToolError::failed(format!("invalid glob `{pattern}`: {}", error.kind()))
                })?;
            builder.add(glob);
        }
        let set = builder
            .build()
            .map_err(|error| ToolError::failed(format!("invalid glob: {error}")))?;
        Ok(Self { set })
    }

    pub(crate) fn is_match(&self, relative: &str) -> bool {
        self.set.is_match(relative)
    }
}

/// Arguments of `grep`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct GrepArgs {
    /// Regular expression (Rust regex syntax) searched line by line.
    pattern: String,
    /// File or folder to search, relative to the project root (default: the whole project).
    #[serde(default)]
    path: Option<String>,
    /// Only search files matching this glob (`*.rs`; with a `/` it matches the relative path).
    #[serde(default)]
    glob: Option<String>,
    /// Match without regard to case.
    #[serde(default)]
    case_insensitive: bool,
    /// Most matches to return (default 200).
    #[serde(default)]
    max_results: Option<usize>,
}

/// `grep`: regex search over the project's files.
pub(crate) struct Grep;

#[async_trait]
impl TypedTool for Grep {
    type Args = GrepArgs;

    fn name(&self) -> &str {
        "grep"
    }

    fn description(&self) -> &str {
        "Search the project's files for a regular expression, skipping files ignored by \
         .gitignore. Prints `path:line: text` for each matching line."
    }

    fn risk(&self) -> RiskLevel {
        RiskLevel::Safe
    }

    fn is_mutating(&self) -> bool {
        false
    }

    async fn call(&self, args: GrepArgs, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let root = root_of(ctx)?;
        blocking(move || grep(&root, &args)).await
    }
}

fn grep(root: &ProjectRoot, args: &GrepArgs) -> Result<ToolOutput, ToolError> {
    let regex = regex::RegexBuilder::new(&args.pattern)
        .case_insensitive(args.case_insensitive)
        .size_limit(1 << 22)
        .build()
        .map_err(|error| ToolError::failed(format!("invalid regex: {error}")))?;
    let base = root.resolve(args.path.as_deref().unwrap_or(""))?;
    let filter = match args.glob.as_deref().map(str::trim) {
        Some(glob) if !glob.is_empty() => {
            Some((GlobMatcher::new(&[glob.to_owned()])?, glob.contains('/')))
        }
        _ => None,
    };
    let max = args
        .max_results
        .unwrap_or(MAX_GREP_RESULTS)
        .clamp(1, GREP_RESULTS_CEILING);
    let mut search = Search {
        regex: &regex,
        max,
        out: String::new(),
        count: 0,
        large: 0,
        refused: Vec::new(),
    };
    if !base.is_dir() {
        // A file named explicitly: say why it cannot be searched rather than "no matches".
        let opened = open_read(root, &base)?;
        search.file(&root.display(&base), opened);
        return Ok(ToolOutput::text(search.finish()));
    }
    let mut files: Vec<PathBuf> = walk_files(root, &base)
        .into_iter()
        .filter(|path| match &filter {
            None => true,
            Some((matcher, true)) => matcher.is_match(&root.display(path)),
            Some((matcher, false)) => path
                .file_name()
                .is_some_and(|name| matcher.is_match(&name.to_string_lossy())),
        })
        .collect();
    files.sort();
    for path in &files {
        match open_read(root, path) {
            Ok(opened) => search.file(&root.display(path), opened),
            Err(error) => search.refused.push(error),
        }
        if search.count > max {
            break;
        }
    }
    Ok(ToolOutput::text(search.finish()))
}

/// The state of one `grep` call.
struct Search<'a> {
    regex: &'a regex::Regex,
    max: usize,
    out: String,
    /// Matches found; one more than `max` means the search stopped.
    count: usize,
    /// Files over the size limit.
    large: usize,
    /// Files the safe open refused (hard links, swapped-in FIFOs, permissions).
    refused: Vec<FileError>,
}

impl Search<'_> {
    /// Searches one opened file, line by line, reading at most [`MAX_GREP_FILE_BYTES`] of it.
    fn file(&mut self, shown: &str, opened: crate::open::Opened) {
        if opened.len > MAX_GREP_FILE_BYTES {
            self.large += 1;
            return;
        }
        // `take` also bounds a file that grew after the size check, and with it the longest
        // line held in memory.
        let mut reader = BufReader::new(opened.file.take(MAX_GREP_FILE_BYTES));
        if reader.fill_buf().map_or(true, |head| head.contains(&0)) {
            return;
        }
        let mut buf = Vec::new();
        let mut number = 0;
        while reader
            .read_until(b'\n', &mut buf)
            .is_ok_and(|read| read > 0)
        {
            number += 1;
            let line = String::from_utf8_lossy(&buf);
            let line = line.trim_end_matches(['\n', '\r']);
            if self.regex.is_match(line) {
                self.count += 1;
                if self.count > self.max {
                    return;
                }
                let _ = writeln!(self.out, "{shown}:{number}: {}", clip(line));
            }
            buf.clear();
        }
    }

    fn finish(mut self) -> String {
        if self.count > self.max {
            let _ = writeln!(
                self.out,
                "[stopped after {} matches; narrow the search]",
                self.max
            );
        } else if self.count == 0 {
            self.out.push_str("no matches\n");
        }
        if self.large > 0 {
            let _ = writeln!(
                self.out,
                "[skipped {} file(s) over {MAX_GREP_FILE_BYTES} bytes; use read_file on them]",
                self.large
            );
        }
        for error in self.refused.iter().take(MAX_SKIP_NOTES) {
            let _ = writeln!(self.out, "[skipped: {error}]");
        }
        if self.refused.len() > MAX_SKIP_NOTES {
            let _ = writeln!(
                self.out,
                "[skipped {} more files the same way]",
                self.refused.len() - MAX_SKIP_NOTES
            );
        }
        self.out.truncate(self.out.trim_end().len());
        if self.count > 0 && self.count <= self.max && self.large == 0 && self.refused.is_empty() {
            // Keep the trailing newline of a plain list of matches, as before.
            self.out.push('\n');
        }
        self.out
    }
}

fn clip(line: &str) -> String {
    if line.chars().count() <= MAX_LINE_CHARS {
        line.to_owned()
    } else {
        let mut clipped: String = line.chars().take(MAX_LINE_CHARS).collect();
        clipped.push_str(" […]");
        clipped
    }
}

/// Arguments of `glob`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct GlobArgs {
    /// Glob pattern relative to `path` (`**/*.rs`, `src/*.toml`).
    pattern: String,
    /// Folder to search from, relative to the project root (default: the root).
    #[serde(default)]
    path: Option<String>,
}

/// `glob`: lists the project's files matching a pattern.
pub(crate) struct Glob;

#[async_trait]
impl TypedTool for Glob {
    type Args = GlobArgs;

    fn name(&self) -> &str {
        "glob"
    }

    fn description(&self) -> &str {
        "List files matching a glob pattern (`**/*.rs`), relative to the project root or to \
         `path`. Files ignored by .gitignore are skipped; sorted, at most 1000."
    }

    fn risk(&self) -> RiskLevel {
        RiskLevel::Safe
    }

    fn is_mutating(&self) -> bool {
        false
    }

    async fn call(&self, args: GlobArgs, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let root = root_of(ctx)?;
        blocking(move || glob(&root, &args)).await
    }
}

fn glob(root: &ProjectRoot, args: &GlobArgs) -> Result<ToolOutput, ToolError> {
    let base = root.resolve(args.path.as_deref().unwrap_or(""))?;
    if !base.is_dir() {
        return Err(ToolError::failed(format!(
            "{} is not a directory",
            root.display(&base)
        )));
    }
    let matcher = GlobMatcher::new(std::slice::from_ref(&args.pattern))?;
    let mut found: Vec<String> = walk_files(root, &base)
        .into_iter()
        .filter(|path| {
            let relative = path.strip_prefix(&base).unwrap_or(path);
            matcher.is_match(&relative.to_string_lossy())
        })
        .map(|path| root.display(&path))
        .collect();
    found.sort();
    if found.is_empty() {
        return Ok(ToolOutput::text("no files match"));
    }
    let total = found.len();
    found.truncate(MAX_GLOB_RESULTS);
    let mut out = found.join("\n");
    if total > MAX_GLOB_RESULTS {
        let _ = write!(
            out,
            "\n[{} more files not shown; narrow the pattern]",
            total - MAX_GLOB_RESULTS
        );
    }
    Ok(ToolOutput::text(out))
}
