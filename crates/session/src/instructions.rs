//! Project instructions: the `AGENTS.md`, `CLAUDE.md` and `GEMINI.md` files (the names
//! `context.instructionFiles` gives) of every folder from the project root down to the
//! working folder, with Claude Code's `@path` imports, read into the system prompts.
//!
//! **Order.** Files are read from the project root down to the working folder — the root's
//! first, the working folder's last — and, within a folder, in the order of
//! `context.instructionFiles`. The most specific file thus comes last and has the last word,
//! as in codex. A file's imports follow it, in the order they are written.
//!
//! **Imports.** A word `@path` outside code (Claude Code's syntax: `@docs/style.md`,
//! `@./notes.md`) brings in that file, relative to the importing file's folder. Imports stay
//! inside the project root (a path or a symbolic link leading out is refused), nest at most
//! [`MAX_IMPORT_DEPTH`] deep and never in a cycle; each refusal is a warning naming the file
//! and line of the import. A word `@name` without `/` or `.` (a mention) is left alone.
//!
//! **Size.** At most [`MAX_INSTRUCTION_BYTES`] of text in all: the file that crosses the
//! limit is cut, later ones are left out, with a warning.

use agentctl_config::{InputLimit, read_input_file};
use serde::Serialize;
use std::fmt;
use std::path::{Path, PathBuf};

/// Most bytes of instruction text read into a system prompt, all files together.
pub const MAX_INSTRUCTION_BYTES: usize = 64 * 1024;
/// Deepest chain of `@path` imports followed (a file imported by a file imported by … the
/// instruction file, five hops).
pub const MAX_IMPORT_DEPTH: usize = 5;

/// Where an import was written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ImportSite {
    /// The importing file.
    pub path: PathBuf,
    /// The 1-based line of the `@path`.
    pub line: usize,
}

/// One file read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InstructionFile {
    /// The file (absolute).
    pub path: PathBuf,
    /// The import that brought it in; `None` for an instruction file found in a folder.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub imported_by: Option<ImportSite>,
    /// Bytes of its text in the prompt.
    pub bytes: usize,
    /// Whether its text was cut at the size limit.
    pub truncated: bool,
    /// Its text.
    #[serde(skip)]
    pub text: String,
}

/// Something read or refused that deserves a look, at a file and line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InstructionWarning {
    /// The file.
    pub path: PathBuf,
    /// The 1-based line, for an import.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// What happened.
    pub message: String,
}

impl fmt::Display for InstructionWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}: {}", self.path.display(), self.message),
            None => write!(f, "{}: {}", self.path.display(), self.message),
        }
    }
}

/// The project instructions found, in prompt order.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Instructions {
    /// The project root the files were searched from.
    pub root: PathBuf,
    /// The files, in the order their text enters the prompt.
    pub files: Vec<InstructionFile>,
    /// Imports refused, files that could not be read, text cut.
    pub warnings: Vec<InstructionWarning>,
}

impl Instructions {
    /// Reads the files named `names` in every folder from `root` down to `cwd` (only `root`
    /// when `cwd` is not inside it), with their imports.
    pub fn load(root: &Path, cwd: &Path, names: &[String]) -> Self {
        let mut loader = Loader {
            root: root.canonicalize().unwrap_or_else(|_| root.to_path_buf()),
            out: Instructions {
                root: root.to_path_buf(),
                ..Self::default()
            },
            budget: MAX_INSTRUCTION_BYTES,
        };
        for folder in folders(root, cwd) {
            for name in names {
                let path = folder.join(name);
                if path.is_file() {
                    loader.file(&path, None, &mut Vec::new());
                }
            }
        }
        loader.out
    }

    /// True when no file was read.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// A path as the prompt and listings show it: relative to the root when inside it.
    pub fn shown(&self, path: &Path) -> String {
        let root = self
            .root
            .canonicalize()
            .unwrap_or_else(|_| self.root.clone());
        path.strip_prefix(&root)
            .or_else(|_| path.strip_prefix(&self.root))
            .map_or_else(
                |_| path.display().to_string(),
                |relative| relative.display().to_string(),
            )
    }

    /// The section appended to a system prompt; `None` when there is nothing.
    pub fn prompt_section(&self) -> Option<String> {
        if self.is_empty() {
            return None;
        }
        let mut out = String::from(
            "# Project instructions\n\nThe project's instruction files, from the project root \
             down to the working folder: a later file is more specific and wins over an \
             earlier one.\n",
        );
        for file in &self.files {
            out.push_str(&format!("\n## {}\n\n", self.shown(&file.path)));
            out.push_str(file.text.trim_end());
            out.push('\n');
        }
        Some(out)
    }
}

/// The folders from `root` down to `cwd`, root first.
fn folders(root: &Path, cwd: &Path) -> Vec<PathBuf> {
    let real_root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let real_cwd = cwd.canonicalize().unwrap_or_else(|_| cwd.to_path_buf());
    let mut out = vec![real_root.clone()];
    if let Ok(relative) = real_cwd.strip_prefix(&real_root) {
        let mut folder = real_root;
        for part in relative.components() {
            folder.push(part);
            out.push(folder.clone());
        }
    }
    out
}

struct Loader {
    root: PathBuf,
    out: Instructions,
    budget: usize,
}

impl Loader {
    /// Reads `path` and, after it, its imports; `chain` holds the files importing it.
    fn file(&mut self, path: &Path, site: Option<ImportSite>, chain: &mut Vec<PathBuf>) {
        let real = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
        if self.out.files.iter().any(|file| file.path == real) {
            return;
        }
        if self.budget == 0 {
            self.warn(
                &real,
                None,
                format!("left out: the instructions reached {MAX_INSTRUCTION_BYTES} bytes"),
            );
            return;
        }
        let limit = InputLimit {
            what: "instruction files",
            max_bytes: 4 * MAX_INSTRUCTION_BYTES as u64,
        };
        let mut text = match read_input_file(&real, limit) {
            Ok(text) => text,
            Err(error) => {
                self.warn(&real, None, format!("not read: {error}"));
                return;
            }
        };
        let truncated = text.len() > self.budget;
        if truncated {
            let mut end = self.budget;
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            text.truncate(end);
            self.warn(
                &real,
                None,
                format!("cut at the {MAX_INSTRUCTION_BYTES}-byte limit of the instructions"),
            );
        }
        self.budget -= text.len();
        let imports = imports(&text);
        self.out.files.push(InstructionFile {
            path: real.clone(),
            imported_by: site,
            bytes: text.len(),
            truncated,
            text,
        });
        chain.push(real.clone());
        for (line, target) in imports {
            self.import(&real, line, &target, chain);
        }
        chain.pop();
    }

    /// Follows `@target`, written at `line` of `from`, or says why not.
    fn import(&mut self, from: &Path, line: usize, target: &str, chain: &mut Vec<PathBuf>) {
        let folder = from.parent().unwrap_or(&self.root);
        let joined = match target.strip_prefix("~/") {
            Some(rest) => std::env::var_os("HOME").map_or_else(
                || PathBuf::from(target),
                |home| PathBuf::from(home).join(rest),
            ),
            None => folder.join(target),
        };
        let refuse = |this: &mut Self, why: String| {
            this.warn(
                from,
                Some(line),
                format!("import `@{target}` refused: {why}"),
            );
        };
        if !clean(&joined).starts_with(&self.root) {
            return refuse(self, "it is outside the project root".to_owned());
        }
        let Ok(real) = joined.canonicalize() else {
            return refuse(self, "no such file".to_owned());
        };
        if !real.starts_with(&self.root) {
            return refuse(self, "it is outside the project root".to_owned());
        }
        if chain.contains(&real) {
            let cycle: Vec<String> = chain
                .iter()
                .chain(std::iter::once(&real))
                .map(|path| self.out.shown(path))
                .collect();
            return refuse(self, format!("an import cycle ({})", cycle.join(" → ")));
        }
        if chain.len() > MAX_IMPORT_DEPTH {
            return refuse(self, format!("imports nest deeper than {MAX_IMPORT_DEPTH}"));
        }
        if !real.is_file() {
            return refuse(self, "not a file".to_owned());
        }
        let site = ImportSite {
            path: from.to_path_buf(),
            line,
        };
        self.file(&real, Some(site), chain);
    }

    fn warn(&mut self, path: &Path, line: Option<usize>, message: String) {
        self.out.warnings.push(InstructionWarning {
            path: path.to_path_buf(),
            line,
            message,
        });
    }
}

/// `path` without `.` and with each `..` taking off the component before it.
fn clean(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// The `@path` imports of `text` with their 1-based lines, outside fenced code blocks and
/// inline code spans; a word without `/` or `.` after the `@` is a mention, not an import.
fn imports(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut fenced = false;
    for (index, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        for (span, part) in line.split('`').enumerate() {
            if span % 2 == 1 {
                continue;
            }
            for word in part.split_whitespace() {
                let Some(target) = word.strip_prefix('@') else {
                    continue;
                };
                let target =
                    target.trim_end_matches(['.', ',', ';', ':', ')', '!', '?', '"', '\'']);
                if target.is_empty() || target.starts_with('@') || !target.contains(['/', '.']) {
                    continue;
                }
                out.push((index + 1, target.to_owned()));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests;
