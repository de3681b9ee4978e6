//! **Provisional** read-only `read_file` and `grep` tools.
//!
//! The real built-in file tools arrive with the tools issue (their own crate); until then the
//! CLI registers these two so that agents such as `code-reviewer` can run offline against a
//! cassette. They only read, are confined to one root folder (paths are canonicalised and must
//! stay under it, so `..` and symlinks cannot escape) and cap what they read. Remove this module
//! once the tools crate lands.

use crate::registry::ToolRegistry;
use crate::tool::{RiskLevel, ToolContext, ToolError, ToolOutput, TypedTool};
use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use std::fmt::Write as _;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Largest file `read_file` returns and `grep` searches, in bytes.
pub const MAX_FILE_BYTES: u64 = 256 * 1024;
/// Most matches `grep` reports.
pub const MAX_GREP_MATCHES: usize = 200;
/// Most files `grep` looks at.
const MAX_GREP_FILES: usize = 5_000;
/// Folders `grep` never descends into (besides hidden ones).
const SKIPPED_DIRS: &[&str] = &["target", "node_modules", "__pycache__"];

/// Registers the provisional `read_file` and `grep` tools, confined to `root`.
pub fn register(registry: &mut ToolRegistry, root: &Path) -> io::Result<()> {
    let root = Arc::new(Root::new(root)?);
    registry.register_typed(ReadFile {
        root: Arc::clone(&root),
    });
    registry.register_typed(Grep { root });
    Ok(())
}

/// The folder the tools may read.
#[derive(Debug)]
struct Root {
    path: PathBuf,
}

impl Root {
    fn new(path: &Path) -> io::Result<Self> {
        Ok(Self {
            path: path.canonicalize()?,
        })
    }

    /// Resolves a path the model gave, refusing anything outside the root.
    fn resolve(&self, path: &str) -> Result<PathBuf, ToolError> {
        let path = path.trim();
        let joined = if path.is_empty() {
            self.path.clone()
        } else {
            self.path.join(path)
        };
        let resolved = joined
            .canonicalize()
            .map_err(|error| ToolError::failed(format!("cannot open `{path}`: {error}")))?;
        if !resolved.starts_with(&self.path) {
            return Err(ToolError::failed(format!(
                "`{path}` is outside the project root; use a path relative to it"
            )));
        }
        Ok(resolved)
    }

    fn display<'a>(&self, path: &'a Path) -> std::borrow::Cow<'a, str> {
        path.strip_prefix(&self.path)
            .unwrap_or(path)
            .to_string_lossy()
    }
}

/// Arguments of `read_file`.
#[derive(Debug, Deserialize, JsonSchema)]
struct ReadFileArgs {
    /// File path, relative to the project root.
    path: String,
    /// First line to return, 1-based (default 1).
    #[serde(default)]
    offset: Option<usize>,
    /// Number of lines to return (default: all).
    #[serde(default)]
    limit: Option<usize>,
}

/// Reads a text file of the project, with line numbers.
struct ReadFile {
    root: Arc<Root>,
}

#[async_trait]
impl TypedTool for ReadFile {
    type Args = ReadFileArgs;

    fn name(&self) -> &str {
        "read_file"
    }

    fn description(&self) -> &str {
        "Read a text file of the project. Returns the lines prefixed with their 1-based numbers."
    }

    fn risk(&self) -> RiskLevel {
        RiskLevel::Low
    }

    async fn call(&self, args: ReadFileArgs, _ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let root = Arc::clone(&self.root);
        blocking(move || read_file(&root, &args)).await
    }
}

fn read_file(root: &Root, args: &ReadFileArgs) -> Result<ToolOutput, ToolError> {
    let path = root.resolve(&args.path)?;
    if path.is_dir() {
        return Err(ToolError::failed(format!("`{}` is a directory", args.path)));
    }
    let text = read_capped(&path)
        .map_err(|error| ToolError::failed(format!("cannot read `{}`: {error}", args.path)))?;
    let first = args.offset.unwrap_or(1).max(1);
    let limit = args.limit.unwrap_or(usize::MAX);
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for (number, line) in text.lines().enumerate().skip(first - 1).take(limit) {
        let _ = writeln!(out, "{:>5}\t{line}", number + 1);
    }
    if out.is_empty() {
        out.push_str("(no lines in that range)");
    }
    Ok(ToolOutput::text(out))
}

/// Reads a UTF-8 text file, refusing files over [`MAX_FILE_BYTES`].
fn read_capped(path: &Path) -> io::Result<String> {
    let size = std::fs::metadata(path)?.len();
    if size > MAX_FILE_BYTES {
        return Err(io::Error::other(format!(
            "file is {size} bytes, more than the {MAX_FILE_BYTES}-byte limit"
        )));
    }
    let bytes = std::fs::read(path)?;
    if bytes.contains(&0) {
        return Err(io::Error::other("binary file"));
    }
    String::from_utf8(bytes).map_err(|_| io::Error::other("not UTF-8 text"))
}

/// Arguments of `grep`.
#[derive(Debug, Deserialize, JsonSchema)]
struct GrepArgs {
    /// Regular expression (Rust regex syntax).
    pattern: String,
    /// File or folder to search, relative to the project root (default: the whole project).
    #[serde(default)]
    path: Option<String>,
    /// Only search files whose name matches this glob, e.g. `*.py`.
    #[serde(default)]
    glob: Option<String>,
    /// Match case-insensitively.
    #[serde(default)]
    ignore_case: bool,
}

/// Searches the project's text files with a regular expression.
struct Grep {
    root: Arc<Root>,
}

#[async_trait]
impl TypedTool for Grep {
    type Args = GrepArgs;

    fn name(&self) -> &str {
        "grep"
    }

    fn description(&self) -> &str {
        "Search the project's text files for a regular expression. Returns `path:line:text` for \
         each matching line."
    }

    fn risk(&self) -> RiskLevel {
        RiskLevel::Low
    }

    async fn call(&self, args: GrepArgs, _ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let root = Arc::clone(&self.root);
        blocking(move || grep(&root, &args)).await
    }
}

fn grep(root: &Root, args: &GrepArgs) -> Result<ToolOutput, ToolError> {
    let regex = regex::RegexBuilder::new(&args.pattern)
        .case_insensitive(args.ignore_case)
        .build()
        .map_err(|error| ToolError::failed(format!("invalid pattern: {error}")))?;
    let glob = args
        .glob
        .as_deref()
        .map(|glob| globset::Glob::new(glob).map(|glob| glob.compile_matcher()))
        .transpose()
        .map_err(|error| ToolError::failed(format!("invalid glob: {error}")))?;
    let start = root.resolve(args.path.as_deref().unwrap_or(""))?;
    let mut files = Vec::new();
    collect_files(&start, &mut files);
    files.sort();
    let mut out = String::new();
    let mut matches = 0;
    'files: for file in &files {
        if let Some(glob) = &glob
            && !file.file_name().is_some_and(|name| glob.is_match(name))
        {
            continue;
        }
        let Ok(text) = read_capped(file) else {
            continue;
        };
        for (number, line) in text.lines().enumerate() {
            if regex.is_match(line) {
                if matches == MAX_GREP_MATCHES {
                    let _ = writeln!(out, "(stopped after {MAX_GREP_MATCHES} matches)");
                    break 'files;
                }
                matches += 1;
                let _ = writeln!(out, "{}:{}:{line}", root.display(file), number + 1);
            }
        }
    }
    if matches == 0 {
        out.push_str("No matches.");
    }
    Ok(ToolOutput::text(out))
}

fn collect_files(path: &Path, files: &mut Vec<PathBuf>) {
    if files.len() >= MAX_GREP_FILES {
        return;
    }
    if path.is_file() {
        files.push(path.to_path_buf());
        return;
    }
    let Ok(entries) = std::fs::read_dir(path) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.') || SKIPPED_DIRS.contains(&name.as_ref()) {
            continue;
        }
        // Symlinks are not followed, so the walk cannot leave the root.
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            collect_files(&entry.path(), files);
        } else if kind.is_file() && files.len() < MAX_GREP_FILES {
            files.push(entry.path());
        }
    }
}

async fn blocking(
    job: impl FnOnce() -> Result<ToolOutput, ToolError> + Send + 'static,
) -> Result<ToolOutput, ToolError> {
    tokio::task::spawn_blocking(job)
        .await
        .unwrap_or_else(|error| Err(ToolError::failed(format!("tool task failed: {error}"))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use tokio_util::sync::CancellationToken;

    fn setup() -> (tempfile::TempDir, ToolRegistry) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        std::fs::write(
            dir.path().join("src/a.py"),
            "def mean(xs):\n    return sum(xs) / len(xs)\n",
        )
        .unwrap();
        std::fs::write(dir.path().join("notes.md"), "mean of nothing\n").unwrap();
        std::fs::create_dir_all(dir.path().join(".git")).unwrap();
        std::fs::write(dir.path().join(".git/x"), "mean\n").unwrap();
        let mut registry = ToolRegistry::new();
        register(&mut registry, &dir.path().join("src/..")).unwrap();
        (dir, registry)
    }

    async fn call(
        registry: &ToolRegistry,
        name: &str,
        args: serde_json::Value,
    ) -> Result<String, String> {
        let ctx = ToolContext::new("r", "a", "c", Path::new("."), CancellationToken::new());
        let tool = registry.get(name).unwrap();
        tool.call(args, &ctx)
            .await
            .map(|out| out.content)
            .map_err(|error| error.to_string())
    }

    #[tokio::test]
    async fn read_file_numbers_lines_and_stays_inside_root() {
        let (_dir, registry) = setup();
        let out = call(&registry, "read_file", json!({"path": "src/a.py"}))
            .await
            .unwrap();
        assert_eq!(
            out,
            "    1\tdef mean(xs):\n    2\t    return sum(xs) / len(xs)\n"
        );
        let out = call(
            &registry,
            "read_file",
            json!({"path": "src/a.py", "offset": 2}),
        )
        .await;
        assert!(out.unwrap().starts_with("    2\t"));
        let error = call(&registry, "read_file", json!({"path": "../"}))
            .await
            .unwrap_err();
        assert!(error.contains("outside the project root"), "{error}");
        let error = call(&registry, "read_file", json!({"path": "missing.py"}))
            .await
            .unwrap_err();
        assert!(error.starts_with("cannot open `missing.py`"), "{error}");
    }

    #[tokio::test]
    async fn grep_skips_hidden_folders_and_filters_by_glob() {
        let (_dir, registry) = setup();
        let out = call(&registry, "grep", json!({"pattern": "mean"}))
            .await
            .unwrap();
        assert_eq!(
            out,
            "notes.md:1:mean of nothing\nsrc/a.py:1:def mean(xs):\n"
        );
        let out = call(
            &registry,
            "grep",
            json!({"pattern": "MEAN", "glob": "*.py", "ignore_case": true}),
        )
        .await
        .unwrap();
        assert_eq!(out, "src/a.py:1:def mean(xs):\n");
        let out = call(&registry, "grep", json!({"pattern": "zzz", "path": "src"}))
            .await
            .unwrap();
        assert_eq!(out, "No matches.");
    }
}
