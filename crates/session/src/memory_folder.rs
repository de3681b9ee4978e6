//! Memory folders: Claude Code's subagent `memory` field (`user`, `project`, `local`), and the
//! same scope in the native `memory:` block.
//!
//! An agent with a memory folder gets, the first time it runs in a session:
//!
//! - its folder, created if missing: `~/.claude/agent-memory/<agent>/` (`user`),
//!   `<project>/.claude/agent-memory/<agent>/` (`project`, shared through git) or
//!   `<project>/.claude/agent-memory-local/<agent>/` (`local`, kept out of git by a
//!   `.gitignore` agentctl writes in `agent-memory-local/`);
//! - the start of its `MEMORY.md` — at most [`MEMORY_PROMPT_LINES`] lines and
//!   [`MEMORY_PROMPT_BYTES`] bytes — at the end of its system prompt, with how to keep it;
//! - a write grant on the folder ([`ReadGrants::grant_writes`]), the one mechanism skills use for
//!   their read grants: `read_file`, `write_file` and `edit_file` reach it (resolved inside it,
//!   a symlink leading out refused), and the gate lets those writes run unasked. Nothing else
//!   is granted, and no other agent (a parent, a child) gets the grant.
//!
//! The agent's name becomes one folder name ([`memory_folder_name`]): every character but
//! ASCII letters, digits, `.`, `_` and `-` becomes `-` (a plugin's `plugin:agent` is
//! `plugin-agent`), and a name of dots only has no folder, so no name climbs out or nests.
//! In the project, none of the folders on the way may be a symbolic link (a cloned project
//! could point `.claude/agent-memory` anywhere). A project's agent asking for the user's
//! memory (`memory: user`) gets it only once the user trusts the project.

use crate::gitignore::ignore_everything_in;
use agentctl_core::{AgentDefinition, MemoryScope, Scope};
use agentctl_tools::{ProjectRoot, ReadGrants, read_confined};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The file of a memory folder that opens the agent's memory section.
pub const MEMORY_FILE: &str = "MEMORY.md";
/// Most lines of `MEMORY.md` in the system prompt (Claude Code's 200).
pub const MEMORY_PROMPT_LINES: usize = 200;
/// Most bytes of `MEMORY.md` in the system prompt (Claude Code's 25 KB).
pub const MEMORY_PROMPT_BYTES: usize = 25 * 1024;

/// Where a session's memory folders are, and whether its project is trusted.
#[derive(Debug, Clone, Default)]
pub(crate) struct MemoryPlaces {
    /// The project root (`project` and `local` folders).
    pub project_root: Option<PathBuf>,
    /// The user's home (`user` folders).
    pub user_home: Option<PathBuf>,
    /// Whether the user trusts the project: a project agent's `memory: user` waits for it.
    pub project_trusted: bool,
}

/// Why an agent has no memory folder in this session.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum MemoryFolderProblem {
    /// A project's agent asks for the user's memory and the project is not trusted.
    Untrusted,
    /// `project` or `local` without a project.
    NoProject,
    /// `user` without a known home folder.
    NoHome,
    /// The agent's name makes no folder name (dots only, or empty).
    Name,
    /// A folder on the way in the project is a symbolic link (or not a folder).
    NotAFolder(PathBuf),
    /// The folder could not be created or granted.
    Io {
        /// The folder.
        path: PathBuf,
        /// The error, as the system words it.
        message: String,
    },
}

/// An agent whose memory folder could not be set up: the agent runs without it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct MemoryFolderWarning {
    /// The agent.
    pub agent: String,
    /// The scope it asked for.
    pub scope: MemoryScope,
    /// What stopped it.
    pub problem: MemoryFolderProblem,
}

/// The folder name of `agent`'s memory: characters other than ASCII letters, digits, `.`, `_`
/// and `-` become `-`; `None` for a name of dots only (or empty).
///
/// ```
/// use agentctl_session::memory::memory_folder_name;
/// assert_eq!(memory_folder_name("code-reviewer").as_deref(), Some("code-reviewer"));
/// assert_eq!(memory_folder_name("tools:reviewer").as_deref(), Some("tools-reviewer"));
/// assert_eq!(memory_folder_name("../../etc").as_deref(), Some("..-..-etc"));
/// assert_eq!(memory_folder_name(".."), None);
/// ```
pub fn memory_folder_name(agent: &str) -> Option<String> {
    let name: String = agent
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '-'
            }
        })
        .collect();
    (!name.chars().all(|c| c == '.')).then_some(name)
}

/// The parts of `scope`'s folder for `agent` below its base (the home or the project root).
fn parts(scope: MemoryScope, agent: &str) -> Result<[String; 3], MemoryFolderProblem> {
    let name = memory_folder_name(agent).ok_or(MemoryFolderProblem::Name)?;
    let folder = match scope {
        MemoryScope::User | MemoryScope::Project => "agent-memory",
        MemoryScope::Local => "agent-memory-local",
    };
    Ok([".claude".to_owned(), folder.to_owned(), name])
}

/// The base folder of `scope` in `places`.
fn base(scope: MemoryScope, places: &MemoryPlaces) -> Result<&Path, MemoryFolderProblem> {
    match scope {
        MemoryScope::User => places
            .user_home
            .as_deref()
            .ok_or(MemoryFolderProblem::NoHome),
        MemoryScope::Project | MemoryScope::Local => places
            .project_root
            .as_deref()
            .ok_or(MemoryFolderProblem::NoProject),
    }
}

/// Where `agent`'s memory folder of `scope` is (nothing is created or read).
pub(crate) fn memory_folder_path(
    scope: MemoryScope,
    agent: &str,
    places: &MemoryPlaces,
) -> Result<PathBuf, MemoryFolderProblem> {
    let mut path = base(scope, places)?.to_path_buf();
    path.extend(parts(scope, agent)?);
    Ok(path)
}

/// Creates the folders `parts` below `base` one by one. In the project (`confined`), an
/// existing one must be a real folder, never a symbolic link; the user's own home may link
/// `~/.claude` wherever they keep it.
fn ensure_folder(
    base: &Path,
    parts: &[String],
    confined: bool,
) -> Result<PathBuf, MemoryFolderProblem> {
    let mut path = base.to_path_buf();
    for part in parts {
        path.push(part);
        let io = |error: std::io::Error| MemoryFolderProblem::Io {
            path: path.clone(),
            message: error.to_string(),
        };
        match std::fs::symlink_metadata(&path) {
            Ok(meta) if meta.is_dir() => {}
            Ok(meta) if meta.file_type().is_symlink() && !confined && path.is_dir() => {}
            Ok(_) => return Err(MemoryFolderProblem::NotAFolder(path)),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                std::fs::create_dir(&path).map_err(io)?;
            }
            Err(error) => return Err(io(error)),
        }
        if part == "agent-memory-local" {
            ignore_everything_in(&path);
        }
    }
    Ok(path)
}

/// Sets up `agent`'s memory folder, if it has one: created, granted to it in `grants`, and the
/// prompt section that presents it. `Ok(None)` for an agent without a memory folder.
pub(crate) fn open_memory_folder(
    agent: &AgentDefinition,
    places: &MemoryPlaces,
    grants: &ReadGrants,
) -> Result<Option<String>, MemoryFolderWarning> {
    let Some(scope) = agent.spec.memory.as_ref().and_then(|memory| memory.scope) else {
        return Ok(None);
    };
    let warning = |problem| MemoryFolderWarning {
        agent: agent.name().to_owned(),
        scope,
        problem,
    };
    if scope == MemoryScope::User && agent.source.scope == Scope::Project && !places.project_trusted
    {
        return Err(warning(MemoryFolderProblem::Untrusted));
    }
    let base = base(scope, places).map_err(warning)?;
    let parts = parts(scope, agent.name()).map_err(warning)?;
    let folder = ensure_folder(base, &parts, scope != MemoryScope::User).map_err(warning)?;
    let io = |error: std::io::Error| {
        warning(MemoryFolderProblem::Io {
            path: folder.clone(),
            message: error.to_string(),
        })
    };
    grants.grant_writes(agent.name(), &folder).map_err(io)?;
    let root = ProjectRoot::new(&folder).map_err(io)?;
    Ok(Some(memory_section(&root, scope)))
}

/// The start of `MEMORY.md` in `root`: at most [`MEMORY_PROMPT_BYTES`] bytes, cut at a line's
/// end, and [`MEMORY_PROMPT_LINES`] lines; with whether it was cut and the file's size. `None`
/// when there is none; `Err` with why when it cannot be read (a symlink out, a FIFO).
fn memory_start(root: &ProjectRoot) -> Option<Result<(String, bool, u64), String>> {
    if std::fs::symlink_metadata(root.path().join(MEMORY_FILE)).is_err() {
        return None;
    }
    let (bytes, len) = match read_confined(root, MEMORY_FILE, MEMORY_PROMPT_BYTES as u64) {
        Ok(read) => read,
        Err(error) => return Some(Err(error.to_string())),
    };
    let mut text = String::from_utf8_lossy(&bytes).into_owned();
    let mut cut = len > bytes.len() as u64;
    if cut && let Some(end) = text.rfind('\n') {
        text.truncate(end + 1);
    }
    if let Some((index, _)) = text.match_indices('\n').nth(MEMORY_PROMPT_LINES - 1)
        && index + 1 < text.len()
    {
        text.truncate(index + 1);
        cut = true;
    }
    Some(Ok((text, cut, len)))
}

/// The prompt section of the memory folder `root`.
fn memory_section(root: &ProjectRoot, scope: MemoryScope) -> String {
    let folder = root.path().display();
    let kept = match scope {
        MemoryScope::User => "your own, across projects",
        MemoryScope::Project => "this project's, shared with its team through version control",
        MemoryScope::Local => "your own in this project, kept out of version control",
    };
    let mut section = format!(
        "# Agent memory\n\nYou have a memory folder at `{folder}` ({kept}). What you keep \
         there stays from one conversation to the next.\n\n\
         - `{MEMORY_FILE}` in that folder is shown below at the start of every conversation, \
         cut after {MEMORY_PROMPT_LINES} lines: keep it a short index, and put details in topic \
         files beside it (`patterns.md`, `debugging.md`) that you read with read_file when \
         needed.\n\
         - Create and update notes with write_file and edit_file, by absolute paths inside the \
         folder; writing there needs no approval. Nothing outside the folder is granted by \
         this memory.\n\
         - Keep what will help later — decisions, conventions, recurring problems and their \
         fixes — and correct or remove notes that turn out wrong. Never store secrets.\n\n\
         ## {MEMORY_FILE}\n\n"
    );
    match memory_start(root) {
        None => {
            let _ = writeln!(
                section,
                "`{MEMORY_FILE}` does not exist yet: create it when you learn something worth \
                 keeping."
            );
        }
        Some(Err(why)) => {
            let _ = writeln!(section, "`{MEMORY_FILE}` could not be read: {why}");
        }
        Some(Ok((text, cut, len))) => {
            section.push_str(&text);
            if !text.ends_with('\n') {
                section.push('\n');
            }
            if cut {
                let _ = writeln!(
                    section,
                    "\n[{MEMORY_FILE} is cut here ({len} bytes in all): read the rest with \
                     read_file at `{folder}/{MEMORY_FILE}`, and move details into topic files \
                     so that the index fits.]"
                );
            }
        }
    }
    section
}

/// An agent's memory folder, as `agentctl memory folders` (or any front end) lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct AgentMemoryFolder {
    /// The agent.
    pub agent: String,
    /// Its scope.
    pub scope: MemoryScope,
    /// Where its folder is, or why it has none.
    pub folder: Result<PathBuf, MemoryFolderProblem>,
    /// The size of its `MEMORY.md`, when there is one.
    pub memory_bytes: Option<u64>,
}

impl crate::project::Project {
    /// The memory folders of the project's agents (those with `memory: user|project|local`),
    /// by agent name. Nothing is created, nor read but `MEMORY.md`'s size.
    pub fn memory_folders(&self) -> Vec<AgentMemoryFolder> {
        let places = MemoryPlaces {
            project_root: self.locations.project_root.clone(),
            user_home: self.locations.user_home.clone(),
            project_trusted: self.trusts_own_commands(),
        };
        let mut folders: Vec<AgentMemoryFolder> = self
            .discover()
            .agents
            .iter()
            .filter_map(|loaded| {
                let agent = &loaded.definition;
                let scope = agent.spec.memory.as_ref()?.scope?;
                let folder = if scope == MemoryScope::User
                    && agent.source.scope == Scope::Project
                    && !places.project_trusted
                {
                    Err(MemoryFolderProblem::Untrusted)
                } else {
                    memory_folder_path(scope, agent.name(), &places)
                };
                let memory_bytes = folder.as_ref().ok().and_then(|folder| {
                    let meta = std::fs::symlink_metadata(folder.join(MEMORY_FILE)).ok()?;
                    meta.is_file().then_some(meta.len())
                });
                Some(AgentMemoryFolder {
                    agent: agent.name().to_owned(),
                    scope,
                    folder,
                    memory_bytes,
                })
            })
            .collect();
        folders.sort_by(|a, b| a.agent.cmp(&b.agent));
        folders
    }
}

/// `agent` with its memory folder's prompt `section` at the end of its system prompt.
pub(crate) fn with_memory_section(
    mut agent: AgentDefinition,
    section: Option<&str>,
) -> AgentDefinition {
    if let Some(section) = section {
        agent.system_prompt = format!("{}\n\n{}", agent.system_prompt.trim_end(), section);
    }
    agent
}

#[cfg(test)]
mod tests;
