//! The search tools: `grep` (regex over file contents) and `glob` (file names).
//!
//! Both walk the project with the `ignore` crate, as ripgrep does: `.gitignore`, `.ignore` and
//! `.git/info/exclude` are honoured (also outside a git repository), hidden files are skipped and
//! symlinks are not followed, so a link cannot lead the walk out of the project.

use crate::paths::ProjectRoot;
use crate::util::{blocking, root_of};
use agentctl_core::{RiskLevel, ToolContext, ToolError, ToolOutput, TypedTool};
use async_trait::async_trait;
use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use schemars::JsonSchema;
use serde::Deserialize;
use std::fmt::Write as _;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

/// Default and maximum number of `grep` matches.
pub const MAX_GREP_RESULTS: usize = 200;
/// Hard ceiling on `max_results`.
const GREP_RESULTS_CEILING: usize = 2_000;
/// Files larger than this are not searched.
const MAX_GREP_FILE_BYTES: u64 = 2 * 1024 * 1024;
/// Longest line text `grep` prints.
const MAX_LINE_CHARS: usize = 300;
/// Most paths `glob` lists.
pub const MAX_GLOB_RESULTS: usize = 1_000;

/// Files under `base`, gitignore-aware, hidden files skipped, symlinks not followed.
pub(crate) fn walk_files(base: &Path) -> impl Iterator<Item = PathBuf> {
    ignore::WalkBuilder::new(base)
        .require_git(false)
        .follow_links(false)
        .build()
        .filter_map(Result::ok)
        .filter(|entry| entry.file_type().is_some_and(|kind| kind.is_file()))
        .map(ignore::DirEntry::into_path)
}

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
    let mut files: Vec<PathBuf> = walk_files(&base)
        .filter(|path| match &filter {
            None => true,
            Some((matcher, true)) => matcher.is_match(&root.display(path)),
            Some((matcher, false)) => path
                .file_name()
                .is_some_and(|name| matcher.is_match(&name.to_string_lossy())),
        })
        .collect();
    files.sort();
    let mut out = String::new();
    let mut count = 0;
    'files: for path in &files {
        if std::fs::metadata(path).map_or(true, |meta| meta.len() > MAX_GREP_FILE_BYTES) {
            continue;
        }
        let Ok(file) = std::fs::File::open(path) else {
            continue;
        };
        let mut reader = BufReader::new(file);
        if reader.fill_buf().map_or(true, |head| head.contains(&0)) {
            continue;
        }
        let shown = root.display(path);
        let mut buf = Vec::new();
        let mut number = 0;
        while reader
            .read_until(b'\n', &mut buf)
            .is_ok_and(|read| read > 0)
        {
            number += 1;
            let line = String::from_utf8_lossy(&buf);
            let line = line.trim_end_matches(['\n', '\r']);
            if regex.is_match(line) {
                if count == max {
                    let _ = write!(out, "[stopped after {max} matches; narrow the search]");
                    break 'files;
                }
                count += 1;
                let _ = writeln!(out, "{shown}:{number}: {}", clip(line));
            }
            buf.clear();
        }
    }
    if count == 0 {
        return Ok(ToolOutput::text("no matches"));
    }
    Ok(ToolOutput::text(out))
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
    let mut found: Vec<String> = walk_files(&base)
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
