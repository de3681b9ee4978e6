//! Custom slash commands: reusable prompts typed as `/name args`, in Claude Code's and Gemini
//! CLI's file formats.
//!
//! - `.agentctl/commands/**/*.md` and `.claude/commands/**/*.md`: optional YAML front matter
//!   (`description`, `allowed-tools`, `model`, `argument-hint`), then the prompt, in which
//!   `$ARGUMENTS` stands for everything typed after the name and `$1`, `$2`… for its words.
//! - `.gemini/commands/**/*.toml`: `prompt` (required) and `description`; `{{args}}` stands
//!   for the arguments.
//!
//! A file in a sub-folder is addressed with the folder first: `git/commit.md` is
//! `/git:commit`. Folders, highest precedence first ([`command_dirs`]): the project's
//! `.agentctl/commands`, `.claude/commands`, `.gemini/commands`, then
//! `$AGENTCTL_HOME/commands`, `~/.claude/commands`, `~/.gemini/commands`; a later command of
//! a name is a collision naming both files. A malformed file is a located warning. The
//! `commands/` folders of installed plugins come last, their commands named `/plugin:name`.

use crate::error::{DefinitionError, ErrorKind, Result};
use crate::foreign::{map_tools, tool_list};
use crate::frontmatter;
use crate::parse::read_capped;
use crate::source::Source;
use agentctl_config::Locations;
use agentctl_core::{Scope, claude_tool_name};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::{Path, PathBuf};

/// Most commands one folder contributes.
pub const MAX_COMMANDS_PER_DIR: usize = 1000;
/// Deepest sub-folder commands are read from.
const MAX_COMMAND_DEPTH: usize = 4;
/// Longest expanded prompt (the arguments are the user's, but a template times many `$1`s
/// must not grow without bound).
pub const MAX_EXPANDED_BYTES: usize = 1024 * 1024;

/// Which tool's syntax a command file uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CommandSyntax {
    /// Markdown with `$ARGUMENTS`, `$1`… (agentctl and Claude Code).
    Markdown,
    /// TOML with `{{args}}` (Gemini CLI).
    Toml,
}

/// A custom slash command.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CommandDef {
    /// Its name without the slash (`review`, `git:commit`).
    pub name: String,
    /// What it does, for `/help`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The tools its turn may use (agentctl names, and Claude Code's rules with an argument
    /// pattern as written: `Bash(git diff:*)`), narrowing the agent's; `None` leaves them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allowed_tools: Option<Vec<String>>,
    /// The model of its turn; `None` keeps the agent's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// How to call it (`[file] [focus]`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub argument_hint: Option<String>,
    /// The prompt, placeholders unexpanded.
    pub template: String,
    /// Which placeholders the template uses.
    pub syntax: CommandSyntax,
    /// The file.
    pub file: PathBuf,
    /// Whether it is the project's or the user's.
    pub scope: Scope,
}

impl CommandDef {
    /// The prompt with `args` in place of the placeholders. Without any placeholder, the
    /// arguments follow the template as Claude Code (`ARGUMENTS: …`) and Gemini CLI (the
    /// typed command) add them. The result is at most [`MAX_EXPANDED_BYTES`].
    ///
    /// ```
    /// # use agentctl_definitions::{CommandDef, CommandSyntax};
    /// # use agentctl_core::Scope;
    /// let command = CommandDef {
    ///     name: "fix".into(), description: None, allowed_tools: None, model: None,
    ///     argument_hint: None, template: "Fix issue $1 ($ARGUMENTS)".into(),
    ///     syntax: CommandSyntax::Markdown, file: "fix.md".into(), scope: Scope::Project,
    /// };
    /// assert_eq!(command.expand("42 high"), "Fix issue 42 (42 high)");
    /// ```
    pub fn expand(&self, args: &str) -> String {
        let args = args.trim();
        let mut out = match self.syntax {
            CommandSyntax::Markdown => expand_markdown(&self.template, args),
            CommandSyntax::Toml if self.template.contains("{{args}}") => {
                self.template.replace("{{args}}", args)
            }
            CommandSyntax::Toml if args.is_empty() => self.template.clone(),
            CommandSyntax::Toml => format!("{}\n\n/{} {args}", self.template, self.name),
        };
        if out.len() > MAX_EXPANDED_BYTES {
            let mut cut = MAX_EXPANDED_BYTES;
            while !out.is_char_boundary(cut) {
                cut -= 1;
            }
            out.truncate(cut);
        }
        out
    }
}

/// `$ARGUMENTS` and `$1`…`$9` of a Markdown command.
fn expand_markdown(template: &str, args: &str) -> String {
    let words: Vec<&str> = args.split_whitespace().collect();
    let mut out = String::with_capacity(template.len() + args.len());
    let mut used = false;
    let mut rest = template;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        if let Some(tail) = after.strip_prefix("ARGUMENTS") {
            out.push_str(args);
            used = true;
            rest = tail;
        } else if let Some(digit) = after.chars().next().filter(|c| ('1'..='9').contains(c)) {
            let index = digit as usize - '1' as usize;
            out.push_str(words.get(index).copied().unwrap_or(""));
            used = true;
            rest = &after[1..];
        } else {
            out.push('$');
            rest = after;
        }
        if out.len() > MAX_EXPANDED_BYTES {
            return out;
        }
    }
    out.push_str(rest);
    if !used && !args.is_empty() {
        out = format!("{}\n\nARGUMENTS: {args}", out.trim_end());
    }
    out
}

/// What discovering commands met besides commands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommandWarning {
    /// A file that could not be read (located where possible).
    Invalid(DefinitionError),
    /// Two commands of one name: the first folder wins.
    Collision {
        /// The name.
        name: String,
        /// The file used.
        kept: PathBuf,
        /// The file not used.
        ignored: PathBuf,
    },
}

impl fmt::Display for CommandWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Invalid(error) => write!(f, "{error}"),
            Self::Collision {
                name,
                kept,
                ignored,
            } => write!(
                f,
                "command `/{name}` is defined twice: {} is used, {} is ignored",
                kept.display(),
                ignored.display()
            ),
        }
    }
}

/// The commands found and what was met on the way.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CommandSet {
    /// The commands, the first of each name, sorted by name.
    pub commands: Vec<CommandDef>,
    /// Malformed files and collisions.
    pub warnings: Vec<CommandWarning>,
}

impl CommandSet {
    /// The command named `name` (without the slash).
    pub fn get(&self, name: &str) -> Option<&CommandDef> {
        self.commands.iter().find(|command| command.name == name)
    }

    /// Known names close to `name`.
    pub fn similar(&self, name: &str) -> Vec<String> {
        crate::suggest::similar(name, self.commands.iter().map(|c| c.name.as_str()))
            .into_iter()
            .map(str::to_owned)
            .collect()
    }
}

/// A folder commands are read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandDir {
    /// The folder.
    pub path: PathBuf,
    /// The syntax of its files.
    pub syntax: CommandSyntax,
    /// Whether it is the project's or the user's.
    pub scope: Scope,
    /// The installed plugin the folder belongs to: its commands are named `plugin:name`.
    pub plugin: Option<String>,
}

/// The folders [`discover_commands`] reads, highest precedence first.
pub fn command_dirs(locations: &Locations) -> Vec<CommandDir> {
    use CommandSyntax::{Markdown, Toml};
    let mut dirs = Vec::with_capacity(6);
    let mut push = |path: PathBuf, syntax, scope| {
        if !dirs.iter().any(|dir: &CommandDir| dir.path == path) {
            dirs.push(CommandDir {
                path,
                syntax,
                scope,
                plugin: None,
            });
        }
    };
    if let Some(root) = &locations.project_root {
        push(root.join(".agentctl/commands"), Markdown, Scope::Project);
        push(root.join(".claude/commands"), Markdown, Scope::Project);
        push(root.join(".gemini/commands"), Toml, Scope::Project);
    }
    push(
        locations.agentctl_home.join("commands"),
        Markdown,
        Scope::Global,
    );
    if let Some(home) = &locations.user_home {
        push(home.join(".claude/commands"), Markdown, Scope::Global);
        push(home.join(".gemini/commands"), Toml, Scope::Global);
    }
    for plugin in crate::plugins::installed_plugins(locations).plugins {
        for path in plugin.command_dirs().0 {
            dirs.push(CommandDir {
                path,
                syntax: Markdown,
                scope: plugin.scope,
                plugin: Some(plugin.name().to_owned()),
            });
        }
    }
    dirs
}

/// Finds every command visible from `locations` ([`command_dirs`]).
pub fn discover_commands(locations: &Locations) -> CommandSet {
    let mut set = CommandSet::default();
    for dir in command_dirs(locations) {
        for file in command_files(&dir) {
            match load_command(&dir, &file) {
                Ok(command) => match set.get(&command.name) {
                    Some(kept) => set.warnings.push(CommandWarning::Collision {
                        name: command.name,
                        kept: kept.file.clone(),
                        ignored: command.file,
                    }),
                    None => set.commands.push(command),
                },
                Err(error) => set.warnings.push(CommandWarning::Invalid(error)),
            }
        }
    }
    set.commands.sort_by(|a, b| a.name.cmp(&b.name));
    set
}

/// The command files of `dir`, sorted; hidden names and symbolic links are skipped.
fn command_files(dir: &CommandDir) -> Vec<PathBuf> {
    let extension = match dir.syntax {
        CommandSyntax::Markdown => "md",
        CommandSyntax::Toml => "toml",
    };
    walkdir::WalkDir::new(&dir.path)
        .follow_links(false)
        .max_depth(MAX_COMMAND_DEPTH)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|entry| {
            entry.depth() == 0 || !entry.file_name().to_string_lossy().starts_with('.')
        })
        .filter_map(|entry| entry.ok())
        .filter(|entry| entry.file_type().is_file())
        .map(walkdir::DirEntry::into_path)
        .filter(|path| path.extension().is_some_and(|ext| ext == extension))
        .take(MAX_COMMANDS_PER_DIR)
        .collect()
}

/// The name of `file` in `dir`: its folders and stem joined by `:`.
fn command_name(dir: &Path, file: &Path) -> Result<String> {
    let relative = match file.strip_prefix(dir) {
        // A plugin's manifest may name a single command file: it is named by its stem.
        Ok(relative) if relative.as_os_str().is_empty() => {
            PathBuf::from(file.file_stem().unwrap_or_default())
        }
        Ok(relative) => relative.with_extension(""),
        Err(_) => file.with_extension(""),
    };
    let parts: Vec<String> = relative
        .components()
        .map(|part| part.as_os_str().to_string_lossy().into_owned())
        .collect();
    let valid = |part: &String| {
        !part.is_empty()
            && part
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.')
    };
    if parts.iter().all(valid) {
        Ok(parts.join(":"))
    } else {
        Err(DefinitionError::new(
            file,
            ErrorKind::Io,
            0,
            0,
            "a command's file and folder names are letters, digits, `-`, `_` and `.`".to_owned(),
        ))
    }
}

/// Loads one command file.
fn load_command(dir: &CommandDir, file: &Path) -> Result<CommandDef> {
    let name = match &dir.plugin {
        Some(plugin) => format!("{plugin}:{}", command_name(&dir.path, file)?),
        None => command_name(&dir.path, file)?,
    };
    let bytes = read_capped(file)?;
    let text = String::from_utf8(bytes).map_err(|_| {
        DefinitionError::new(file, ErrorKind::NotUtf8, 0, 0, "not UTF-8".to_owned())
    })?;
    let mut command = match dir.syntax {
        CommandSyntax::Markdown => markdown_command(file, &text)?,
        CommandSyntax::Toml => toml_command(file, &text)?,
    };
    command.name = name;
    command.scope = dir.scope;
    Ok(command)
}

/// The front matter of a Markdown command.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "kebab-case")]
struct CommandFrontMatter {
    #[serde(default)]
    description: Option<String>,
    #[serde(default, deserialize_with = "tool_list")]
    allowed_tools: Option<Vec<String>>,
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    argument_hint: Option<String>,
}

fn markdown_command(file: &Path, text: &str) -> Result<CommandDef> {
    let starts_with_front_matter = text
        .trim_start_matches('\u{feff}')
        .trim_start()
        .lines()
        .next()
        .is_some_and(|line| line.trim_end() == "---");
    let (front, body) = if starts_with_front_matter {
        let split = frontmatter::split(text, file)?;
        let source = Source::parse(file, split, true)?;
        let front: CommandFrontMatter = source.deserialize()?;
        (front, split.body)
    } else {
        (CommandFrontMatter::default(), text)
    };
    Ok(CommandDef {
        name: String::new(),
        description: front.description,
        allowed_tools: front
            .allowed_tools
            .map(|tools| map_tools(&tools, allowed_tool)),
        model: front.model.filter(|model| model != "inherit"),
        argument_hint: front.argument_hint,
        template: body.trim().to_owned(),
        syntax: CommandSyntax::Markdown,
        file: file.to_path_buf(),
        scope: Scope::Project,
    })
}

/// An `allowed-tools` entry: a tool name mapped to agentctl's, a rule with an argument
/// pattern (`Bash(git diff:*)`) kept as written for the session to match calls against.
fn allowed_tool(entry: &str) -> String {
    if entry.contains('(') {
        entry.trim().to_owned()
    } else {
        claude_tool_name(entry)
    }
}

fn toml_command(file: &Path, text: &str) -> Result<CommandDef> {
    let located = |span: Option<std::ops::Range<usize>>, message: String| {
        let (line, col) = span.map_or((0, 0), |span| line_col(text, span.start));
        DefinitionError::new(file, ErrorKind::Yaml, line, col, message)
    };
    let document = text
        .parse::<toml_edit::Document<String>>()
        .map_err(|error| located(error.span(), error.message().to_owned()))?;
    let table = document.as_table();
    let string = |key: &str| -> Result<Option<String>> {
        match table.get(key) {
            None => Ok(None),
            Some(item) => item
                .as_str()
                .map(|s| Some(s.to_owned()))
                .ok_or_else(|| located(item.span(), format!("`{key}` must be a string"))),
        }
    };
    let prompt = string("prompt")?.ok_or_else(|| {
        located(
            Some(0..0),
            "a Gemini CLI command needs `prompt = \"…\"`".to_owned(),
        )
    })?;
    Ok(CommandDef {
        name: String::new(),
        description: string("description")?,
        allowed_tools: None,
        model: None,
        argument_hint: None,
        template: prompt.trim().to_owned(),
        syntax: CommandSyntax::Toml,
        file: file.to_path_buf(),
        scope: Scope::Project,
    })
}

/// 1-based line and column of byte `offset` in `text`.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

#[cfg(test)]
mod tests;
