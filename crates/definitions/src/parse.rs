//! Loading one agent file: bytes → front matter + body → [`LoadedAgent`].

use crate::detect::detect;
use crate::error::{DefinitionError, Diagnostic, ErrorKind, Result, Severity, line_col};
use crate::frontmatter::{self};
use crate::source::Source;
use crate::yaml_index::PositionMap;
use crate::{claude, gemini, native};
use agentctl_config::{
    InputFileError, InputLimit, InputProblem, read_input_bytes, read_listed_input_bytes,
};
use agentctl_core::{AgentDefinition, AgentSource, Scope, SourceFormat};
use serde_json::Value;
use std::path::Path;

/// An agent definition as loaded from a file, with the warnings found while loading it
/// (unknown fields, lenient readings of foreign formats).
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedAgent {
    /// The definition, mapped onto the native format.
    pub definition: AgentDefinition,
    /// Problems that did not stop the file from loading.
    pub warnings: Vec<Diagnostic>,
    format_reason: String,
    /// Found in a Claude Code or Gemini CLI agents folder (whatever format it was read in).
    foreign_folder: bool,
    /// The installed plugin it belongs to (its name is then `plugin:name`).
    plugin: Option<String>,
    positions: Positions,
}

impl LoadedAgent {
    /// An agent defined in code rather than loaded from a file (no field positions: its
    /// diagnostics point at the start of its source).
    ///
    /// ```
    /// use agentctl_core::{AgentDefinition, AgentSource, AgentSpec, Scope, SourceFormat};
    /// use agentctl_definitions::LoadedAgent;
    ///
    /// let definition = AgentDefinition {
    ///     spec: AgentSpec { name: "triage".into(), ..Default::default() },
    ///     system_prompt: "Route requests.".into(),
    ///     source: AgentSource { format: SourceFormat::Native, path: "triage.rs".into(), scope: Scope::Project },
    ///     extra: Default::default(),
    /// };
    /// assert_eq!(LoadedAgent::from_definition(definition).name(), "triage");
    /// ```
    pub fn from_definition(definition: AgentDefinition) -> Self {
        Self {
            definition,
            warnings: Vec::new(),
            format_reason: "defined in code".to_owned(),
            foreign_folder: false,
            plugin: None,
            positions: Positions {
                fallback: (1, 1),
                first_line: 1,
                ..Positions::default()
            },
        }
    }

    /// A definition read from a file whose field positions are known already (graph files):
    /// `positions` maps native field paths to file line and column, `fallback` is where
    /// fields that are not written point.
    pub(crate) fn located(
        definition: AgentDefinition,
        warnings: Vec<Diagnostic>,
        positions: PositionMap,
        fallback: (usize, usize),
    ) -> Self {
        Self {
            definition,
            warnings,
            format_reason: "a graph file".to_owned(),
            foreign_folder: false,
            plugin: None,
            positions: Positions {
                map: positions,
                first_line: 1,
                format: None,
                fallback,
            },
        }
    }

    /// The agent's name.
    pub fn name(&self) -> &str {
        &self.definition.spec.name
    }

    /// Why the file was read in its format (`agent.definition.source.format`): the folder it
    /// is in, or the agentctl-only fields that made a file in a Claude Code or Gemini CLI
    /// folder read as native.
    pub fn format_reason(&self) -> &str {
        &self.format_reason
    }

    /// Whether the file was found in a Claude Code or Gemini CLI agents folder, where its
    /// format is decided by its fields ([`format_reason`](Self::format_reason) says how).
    pub fn in_foreign_folder(&self) -> bool {
        self.foreign_folder
    }

    /// The installed plugin the agent belongs to, if any.
    pub fn plugin(&self) -> Option<&str> {
        self.plugin.as_deref()
    }

    /// Marks the agent as `plugin`'s: its name becomes `plugin:name`.
    pub(crate) fn set_plugin(&mut self, plugin: &str) {
        let name = &mut self.definition.spec.name;
        *name = format!("{plugin}:{name}");
        self.plugin = Some(plugin.to_owned());
    }

    /// The name its file gives, without a plugin's namespace.
    pub(crate) fn own_name(&self) -> &str {
        match &self.plugin {
            Some(plugin) => self
                .name()
                .strip_prefix(plugin.as_str())
                .and_then(|rest| rest.strip_prefix(':'))
                .unwrap_or(self.name()),
            None => self.name(),
        }
    }

    /// The file the agent was loaded from.
    pub fn path(&self) -> &Path {
        &self.definition.source.path
    }

    /// File line and column of a front-matter field given by its native path (`model`,
    /// `tools.allow[2]`, `triggers[0].regex[0]`).
    ///
    /// Foreign files are searched under their own spelling (`disallowedTools`, `display_name`);
    /// a field that is not written in the file falls back to its parent, then to the start of
    /// the front matter.
    pub fn locate(&self, field: &str) -> (usize, usize) {
        self.positions.locate(field)
    }

    /// A diagnostic about `field`, located in this agent's file.
    pub fn diagnostic(
        &self,
        severity: Severity,
        field: &str,
        message: impl Into<String>,
    ) -> Diagnostic {
        let (line, col) = self.locate(field);
        Diagnostic {
            severity,
            path: self.path().to_path_buf(),
            line,
            col,
            field: Some(field.to_owned()),
            message: message.into(),
            hint: None,
        }
    }

    /// The first of `fields` written in the file (for fields with several spellings), else the
    /// first one.
    pub(crate) fn exact_field<'a>(&self, fields: &[&'a str]) -> &'a str {
        fields
            .iter()
            .copied()
            .find(|f| self.positions.map.contains_key(*f))
            .or(fields.first().copied())
            .unwrap_or("")
    }

    /// Drops what only running or locating needs — the system prompt and, unless the agent is
    /// a graph (its nodes are checked, and located, after discovery), the field positions —
    /// keeping what a listing shows. Later diagnostics point at the front matter's start.
    pub(crate) fn keep_summary_only(&mut self) {
        self.definition.system_prompt = String::new();
        if self.definition.spec.graph.is_none() {
            self.positions.map = PositionMap::default();
        }
    }

    /// True for agents agentctl cannot run (Gemini CLI `kind: remote` agents).
    pub fn is_remote(&self) -> bool {
        self.definition.source.format == SourceFormat::Gemini
            && self.definition.extra.get("kind").and_then(Value::as_str) == Some("remote")
    }
}

/// Field positions of one file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Positions {
    /// Positions by field path, in the coordinates of the text they were found in.
    map: PositionMap,
    /// The file line of that text's first line (the front matter's, or 1).
    first_line: usize,
    format: Option<SourceFormat>,
    /// Where fields that are not written point, in file coordinates.
    fallback: (usize, usize),
}

impl Positions {
    /// File line and column of `field`.
    fn locate(&self, field: &str) -> (usize, usize) {
        match self.find(field) {
            Some((line, col)) => (self.first_line + line - 1, col),
            None => self.fallback,
        }
    }

    fn find(&self, field: &str) -> Option<(usize, usize)> {
        let mut candidates = Vec::with_capacity(2);
        if let Some(translated) = self.format.and_then(|format| translate(format, field)) {
            candidates.push(translated);
        }
        candidates.push(field.to_owned());
        if let Some(pos) = candidates.iter().find_map(|c| self.map.get(c.as_str())) {
            return Some(*pos);
        }
        for candidate in candidates.iter().rev() {
            let mut current = candidate.as_str();
            loop {
                if let Some(pos) = self.map.get(current) {
                    return Some(*pos);
                }
                let cut = if current.ends_with(']') {
                    current.rfind('[')
                } else {
                    current.rfind('.')
                };
                match cut {
                    Some(i) if i > 0 => current = &current[..i],
                    _ => break,
                }
            }
        }
        None
    }
}

/// Native field paths spelt the way a foreign format writes them.
fn translate(format: SourceFormat, field: &str) -> Option<String> {
    let table: &[(&str, &str)] = match format {
        SourceFormat::Native => &[("tools.allow", "tools")],
        SourceFormat::Claude => &[
            ("tools.allow", "tools"),
            ("tools.deny", "disallowedTools"),
            ("mcp.servers", "mcpServers"),
            ("mcp.inline", "mcpServers"),
        ],
        SourceFormat::Gemini => &[
            ("tools.allow", "tools"),
            ("mcp.inline", "mcp_servers"),
            ("mcp.servers", "mcp_servers"),
            ("title", "display_name"),
            ("maxTurns", "max_turns"),
        ],
    };
    table.iter().find_map(|(native, foreign)| {
        let rest = field.strip_prefix(native)?;
        (rest.is_empty() || rest.starts_with(['.', '['])).then(|| format!("{foreign}{rest}"))
    })
}

/// Parses an agent file held in memory.
///
/// `path` is used for messages and recorded as the agent's source; nothing is read from it.
/// `format` is the format of the folder the file is in: a file in a Claude Code or Gemini CLI
/// folder that writes agentctl-only fields (`kind: agent`, `tools: {allow, deny}`,
/// `contextMode`, …) is read as native ([`LoadedAgent::format_reason`] says why).
///
/// ```
/// use agentctl_core::{Scope, SourceFormat};
/// use std::path::Path;
///
/// let text = "---\nname: reviewer\ndescription: Reviews diffs\ntools: [read_file, grep]\n---\nYou review code.\n";
/// let agent = agentctl_definitions::parse_str(text, Path::new("reviewer.md"), SourceFormat::Native, Scope::Project)?;
/// assert_eq!(agent.name(), "reviewer");
/// assert_eq!(agent.definition.system_prompt, "You review code.");
///
/// let broken = "---\nname: reviewer\nmaxTurns: ten\n---\nYou review code.\n";
/// let error = agentctl_definitions::parse_str(broken, Path::new("reviewer.md"), SourceFormat::Native, Scope::Project).unwrap_err();
/// assert_eq!(error.to_string(), "reviewer.md:3:11: field `maxTurns`: invalid type: string \"ten\", expected u32");
/// # Ok::<(), agentctl_definitions::DefinitionError>(())
/// ```
pub fn parse_str(
    text: &str,
    path: &Path,
    format: SourceFormat,
    scope: Scope,
) -> Result<LoadedAgent> {
    parse_text(text, path, format, scope, true)
}

/// [`parse_str`]; `tree` off has serde_norway read every front matter (see [`Source::tree`]).
pub(crate) fn parse_text(
    text: &str,
    path: &Path,
    format: SourceFormat,
    scope: Scope,
    tree: bool,
) -> Result<LoadedAgent> {
    let split = frontmatter::split(text, path)?;
    let mut source = Source::parse(path, split, tree)?;
    if source.index.nulls.contains("name") {
        let (line, col) = source
            .index
            .positions
            .get("name")
            .copied()
            .unwrap_or((1, 1));
        return Err(DefinitionError::new(
            path,
            ErrorKind::Yaml,
            split.yaml_line + line - 1,
            col,
            "`name` is null: give the agent a kebab-case name, e.g. `name: code-reviewer`"
                .to_owned(),
        )
        .with_field("name"));
    }
    if source.index.keys.is_empty() && !source.index.root_is_mapping && is_blank_yaml(split.yaml) {
        return Err(DefinitionError::new(
            path,
            ErrorKind::Yaml,
            split.yaml_line.saturating_sub(1).max(1),
            1,
            "the front matter is empty: add at least `name: …` and `description: …`".to_owned(),
        )
        .with_field("name"));
    }
    let folder = format;
    let detected = detect(folder, &source);
    let format = detected.format;
    let mapped = match format {
        SourceFormat::Native => native::read(&source)?,
        SourceFormat::Claude => claude::read(&mut source)?,
        SourceFormat::Gemini => gemini::read(&mut source)?,
    };
    let prompt = split.body.trim();
    if prompt.is_empty() && !mapped.allow_empty_body {
        return Err(DefinitionError::new(
            path,
            ErrorKind::EmptyPrompt,
            split.body_line.saturating_sub(1),
            1,
            "the system prompt is empty: write the agent's instructions below the closing `---`"
                .to_owned(),
        ));
    }
    Ok(LoadedAgent {
        definition: AgentDefinition {
            spec: mapped.spec,
            system_prompt: prompt.to_owned(),
            source: AgentSource {
                format,
                path: path.to_path_buf(),
                scope,
            },
            extra: mapped.extra,
        },
        warnings: mapped.warnings,
        format_reason: detected.reason,
        foreign_folder: folder != SourceFormat::Native,
        plugin: None,
        positions: Positions {
            map: source.index.positions,
            first_line: split.yaml_line,
            format: Some(format),
            fallback: (split.yaml_line, 1),
        },
    })
}

fn is_blank_yaml(yaml: &str) -> bool {
    yaml.lines().all(|line| {
        let line = line.trim();
        line.is_empty() || line.starts_with('#')
    })
}

/// Parses an agent file from raw bytes: like [`parse_str`], after checking the bytes are UTF-8
/// (a located error says where they are not).
pub fn parse_bytes(
    bytes: &[u8],
    path: &Path,
    format: SourceFormat,
    scope: Scope,
) -> Result<LoadedAgent> {
    match std::str::from_utf8(bytes) {
        Ok(text) => parse_str(text, path, format, scope),
        Err(error) => {
            let offset = error.valid_up_to();
            let (line, col) = line_col(bytes, offset);
            Err(DefinitionError::new(
                path,
                ErrorKind::NotUtf8,
                line,
                col,
                format!("the file is not valid UTF-8 (byte offset {offset}): save it as UTF-8"),
            ))
        }
    }
}

/// Reads and parses an agent file.
///
/// Only regular files of at most [`MAX_AGENT_FILE_BYTES`](agentctl_config::MAX_AGENT_FILE_BYTES)
/// are read: FIFOs, devices and larger files are refused unread (see
/// [`agentctl_config::read_input_file`]).
pub fn load_file(path: &Path, format: SourceFormat, scope: Scope) -> Result<LoadedAgent> {
    let bytes = read_capped(path)?;
    parse_bytes(&bytes, path, format, scope)
}

/// Reads an agent file through the bounded input reader, with errors as [`DefinitionError`]s.
pub(crate) fn read_capped(path: &Path) -> Result<Vec<u8>> {
    read_input_bytes(path, InputLimit::AGENT_FILE).map_err(|error| input_error(path, &error))
}

/// [`read_capped`] for a path a folder walk has just seen as a regular file, not a symlink
/// (no `stat` before opening; what is opened is still checked).
pub(crate) fn read_listed(path: &Path) -> Result<Vec<u8>> {
    read_listed_input_bytes(path, InputLimit::AGENT_FILE).map_err(|error| input_error(path, &error))
}

fn input_error(path: &Path, error: &InputFileError) -> DefinitionError {
    let kind = match &error.problem {
        InputProblem::NotRegular { .. } => ErrorKind::NotRegularFile,
        InputProblem::TooLarge { .. } => ErrorKind::FileTooLarge,
        _ => ErrorKind::Io,
    };
    DefinitionError::new(path, kind, 0, 0, error.problem.to_string())
}

#[cfg(test)]
mod differential;
