//! `@file:keyword` references: files of the project appended to a user message.
//!
//! Each reference resolves to the exact path under the project root if there is one, else to
//! the files whose relative path matches `**/keyword`, else `**/*keyword*` (the glob search
//! honours `.gitignore`, `.ignore` and skips hidden files; an exact path names the file
//! explicitly and is taken even when ignored). Matches are sorted and de-duplicated across
//! references; only files under the project root are read (`..`, absolute paths and symlinks
//! pointing outside are refused); each file is cut at 1,000 lines / 200 KB with a note. A
//! reference without a match yields a warning block. The result is appended to the message:
//!
//! ```text
//! <Context><File path="src/lib.rs"><![CDATA[…]]></File><Warning>…</Warning></Context>
//! ```

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use std::io::Read;
use std::path::{Component, Path, PathBuf};

/// The prefix of a reference.
const PREFIX: &str = "@file:";

/// Limits of [`expand_file_references_with`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileRefLimits {
    /// Lines kept per file.
    pub max_lines: usize,
    /// Bytes kept per file.
    pub max_bytes: usize,
    /// Files one glob reference may bring in.
    pub max_files_per_reference: usize,
}

impl Default for FileRefLimits {
    fn default() -> Self {
        Self {
            max_lines: 1_000,
            max_bytes: 200 * 1024,
            max_files_per_reference: 20,
        }
    }
}

/// A message with its references expanded.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Expansion {
    /// The message followed by the `<Context>` block (unchanged when it has no reference).
    pub text: String,
    /// Files included, relative to the project root, in order.
    pub files: Vec<PathBuf>,
    /// Warnings (no match, refused path, unreadable file), also in the `<Context>` block.
    pub warnings: Vec<String>,
}

/// The keywords of the `@file:` references in a message, in order.
///
/// ```
/// let refs = agentctl_context::file_references("see @file:main.rs, and @file:src/lib.rs.");
/// assert_eq!(refs, ["main.rs", "src/lib.rs"]);
/// ```
pub fn file_references(message: &str) -> Vec<&str> {
    let mut found = Vec::new();
    let mut rest = message;
    let mut at_start = true;
    while let Some(position) = rest.find(PREFIX) {
        let before = rest[..position].chars().next_back();
        let boundary = match before {
            None => at_start,
            Some(c) => c.is_whitespace() || matches!(c, '(' | '[' | '"' | '\'' | '`'),
        };
        let after = &rest[position + PREFIX.len()..];
        let end = after.find(char::is_whitespace).unwrap_or(after.len());
        let keyword = after[..end].trim_end_matches(|c: char| {
            matches!(
                c,
                ',' | '.' | ';' | ':' | '!' | '?' | ')' | ']' | '"' | '\'' | '`'
            )
        });
        if boundary && !keyword.is_empty() {
            found.push(keyword);
        }
        rest = &after[end..];
        at_start = false;
    }
    found
}

/// Expands the `@file:` references of `message` against `project_root` with the default
/// limits.
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("notes.md"), "remember the milk").unwrap();
/// let out = agentctl_context::expand_file_references(dir.path(), "read @file:notes.md");
/// assert!(out.text.starts_with("read @file:notes.md\n\n<Context>"));
/// assert!(out.text.contains("<File path=\"notes.md\"><![CDATA[remember the milk]]></File>"));
/// ```
pub fn expand_file_references(project_root: &Path, message: &str) -> Expansion {
    expand_file_references_with(project_root, message, &FileRefLimits::default())
}

/// [`expand_file_references`] with explicit limits.
pub fn expand_file_references_with(
    project_root: &Path,
    message: &str,
    limits: &FileRefLimits,
) -> Expansion {
    let keywords = file_references(message);
    if keywords.is_empty() {
        return Expansion {
            text: message.to_owned(),
            ..Expansion::default()
        };
    }
    let root = project_root
        .canonicalize()
        .unwrap_or_else(|_| project_root.to_path_buf());
    let mut index: Option<Vec<PathBuf>> = None;
    let mut files: Vec<PathBuf> = Vec::new();
    let mut warnings = Vec::new();
    for keyword in keywords {
        files.extend(resolve(&root, keyword, &mut index, limits, &mut warnings));
    }
    // Sorted and de-duplicated across references.
    files.sort();
    files.dedup();
    let mut block = String::from("<Context>");
    for relative in &files {
        match read_limited(&root.join(relative), limits) {
            Ok(body) => {
                block.push_str(&format!(
                    "<File path=\"{}\"><![CDATA[{}]]></File>",
                    escape_attribute(&relative.to_string_lossy()),
                    escape_cdata(&body)
                ));
            }
            Err(warning) => {
                warnings.push(format!("@file {}: {warning}", relative.display()));
            }
        }
    }
    for warning in &warnings {
        block.push_str(&format!("<Warning>{}</Warning>", escape_text(warning)));
    }
    block.push_str("</Context>");
    Expansion {
        text: format!("{message}\n\n{block}"),
        files,
        warnings,
    }
}

/// The files a keyword names, relative to the root; problems go to `warnings`.
fn resolve(
    root: &Path,
    keyword: &str,
    index: &mut Option<Vec<PathBuf>>,
    limits: &FileRefLimits,
    warnings: &mut Vec<String>,
) -> Vec<PathBuf> {
    let path = Path::new(keyword);
    if path.is_absolute()
        || path
            .components()
            .any(|c| matches!(c, Component::ParentDir | Component::Prefix(_)))
    {
        warnings.push(format!(
            "@file:{keyword} refused: only files under the project root can be referenced"
        ));
        return Vec::new();
    }
    let exact = root.join(path);
    if let Ok(metadata) = exact.metadata()
        && !metadata.is_file()
        && !metadata.is_dir()
    {
        // A FIFO would block the read forever, a device (`/dev/zero`) never end it.
        warnings.push(format!(
            "@file:{keyword} refused: it is not a regular file (a FIFO, socket or device)"
        ));
        return Vec::new();
    }
    if exact.is_file() {
        if inside_root(root, &exact) {
            return vec![path.to_path_buf()];
        }
        warnings.push(format!(
            "@file:{keyword} refused: it leads outside the project root"
        ));
        return Vec::new();
    }
    let index = index.get_or_insert_with(|| walk(root));
    for pattern in [format!("**/{keyword}"), format!("**/*{keyword}*")] {
        let Some(set) = glob_set(&pattern) else {
            continue;
        };
        let mut matches: Vec<PathBuf> = index
            .iter()
            .filter(|relative| set.is_match(relative))
            .filter(|relative| inside_root(root, &root.join(relative)))
            .cloned()
            .collect();
        if matches.is_empty() {
            continue;
        }
        if matches.len() > limits.max_files_per_reference {
            warnings.push(format!(
                "@file:{keyword} matched {} files; only the first {} are included",
                matches.len(),
                limits.max_files_per_reference
            ));
            matches.truncate(limits.max_files_per_reference);
        }
        return matches;
    }
    warnings.push(format!(
        "@file:{keyword} matched no file under the project root"
    ));
    Vec::new()
}

fn glob_set(pattern: &str) -> Option<GlobSet> {
    let glob = GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
        .ok()?;
    GlobSetBuilder::new().add(glob).build().ok()
}

/// Relative paths of the project's files, honouring ignore files (even outside a git repo).
fn walk(root: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = ignore::WalkBuilder::new(root)
        .require_git(false)
        .follow_links(false)
        .build()
        .filter_map(Result::ok)
        .filter(|entry| entry.file_type().is_some_and(|kind| kind.is_file()))
        .filter_map(|entry| entry.path().strip_prefix(root).ok().map(Path::to_path_buf))
        .collect();
    files.sort();
    files
}

/// True if `path`, symlinks resolved, is a file under `root` (itself resolved).
fn inside_root(root: &Path, path: &Path) -> bool {
    path.canonicalize()
        .is_ok_and(|real| real.is_file() && real.starts_with(root))
}

/// Reads at most the limits of a file, with a note when it was cut.
///
/// Only regular files are read: the type is checked before the open (a FIFO would block it)
/// and again on the open file, in case the path was swapped in between.
fn read_limited(path: &Path, limits: &FileRefLimits) -> Result<String, String> {
    const NOT_REGULAR: &str = "not a regular file (a FIFO, socket or device): skipped";
    let metadata = std::fs::metadata(path).map_err(|error| error.to_string())?;
    if !metadata.is_file() {
        return Err(NOT_REGULAR.into());
    }
    let file = std::fs::File::open(path).map_err(|error| error.to_string())?;
    let metadata = file.metadata().map_err(|error| error.to_string())?;
    if !metadata.is_file() {
        return Err(NOT_REGULAR.into());
    }
    let total_bytes = metadata.len();
    let mut bytes = Vec::new();
    file.take(limits.max_bytes as u64)
        .read_to_end(&mut bytes)
        .map_err(|error| error.to_string())?;
    if bytes.contains(&0) {
        return Err("binary file skipped".into());
    }
    let text = String::from_utf8_lossy(&bytes);
    let mut cut_at = text.len();
    let mut cut_by_lines = false;
    if let Some((index, _)) = text
        .match_indices('\n')
        .nth(limits.max_lines.saturating_sub(1))
        && index + 1 < text.len()
    {
        cut_at = index + 1;
        cut_by_lines = true;
    }
    let cut_by_bytes = total_bytes > limits.max_bytes as u64;
    let mut body = text[..cut_at].to_owned();
    if cut_by_lines {
        body.push_str(&format!(
            "\n[truncated by agentctl: only the first {} lines are shown]",
            limits.max_lines
        ));
    } else if cut_by_bytes {
        body.push_str(&format!(
            "\n[truncated by agentctl: only the first {} KB of {} KB are shown]",
            limits.max_bytes / 1024,
            total_bytes.div_ceil(1024)
        ));
    }
    Ok(body)
}

/// CDATA cannot contain `]]>`: split it across two sections.
fn escape_cdata(text: &str) -> String {
    text.replace("]]>", "]]]]><![CDATA[>")
}

fn escape_text(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn escape_attribute(text: &str) -> String {
    escape_text(text).replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A FIFO or a link to a device is refused with a warning, never opened: either would hang
    /// the expansion (the test thread would block forever).
    #[cfg(unix)]
    #[test]
    fn fifos_and_devices_are_refused_unread() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let status = std::process::Command::new("mkfifo")
            .arg(root.join("pipe.txt"))
            .status()
            .unwrap();
        assert!(status.success());
        std::os::unix::fs::symlink("/dev/zero", root.join("zero.txt")).unwrap();
        for name in ["pipe.txt", "zero.txt"] {
            let out = expand_file_references(&root, &format!("read @file:{name}"));
            assert!(out.files.is_empty(), "{name}");
            assert_eq!(
                out.warnings,
                [format!(
                    "@file:{name} refused: it is not a regular file (a FIFO, socket or device)"
                )]
            );
        }
        let error = read_limited(&root.join("pipe.txt"), &FileRefLimits::default()).unwrap_err();
        assert_eq!(
            error,
            "not a regular file (a FIFO, socket or device): skipped"
        );
    }
}
