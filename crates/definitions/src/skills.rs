//! Agent Skills: folders holding a `SKILL.md` (the open Agent Skills format Claude Code, Gemini
//! CLI and codex read), found in the project and the user's home.
//!
//! A skill's front matter has `name` (lowercase letters, digits and hyphens, the folder's own
//! name), `description`, and optionally `allowed-tools`, `license`, `compatibility` and
//! `metadata`; its Markdown body is the instructions, and every other file of the folder is a
//! bundled resource the model reads on demand. Only names and descriptions are meant for a
//! system prompt: [`read_skill`] loads a body and lists the bundled files when a skill is used.
//!
//! Folders, highest precedence first ([`skill_dirs`]): the project's `.agentctl/skills`,
//! `.claude/skills`, `.gemini/skills`, `.agents/skills`, then `$AGENTCTL_HOME/skills`,
//! `~/.claude/skills`, `~/.gemini/skills`, `~/.agents/skills`. The first skill of a name wins;
//! a later one is a [`SkillWarning::Collision`] naming both files. A malformed `SKILL.md` is a
//! located [`SkillWarning::Invalid`] and never hides the others. A skill of a plugin carries
//! the plugin's name ([`Skill::plugin`]) and is addressed as `plugin:skill`; the skill
//! folders of installed plugins come after every other.

use crate::error::{DefinitionError, ErrorKind, Result};
use crate::frontmatter;
use crate::parse::read_capped;
use crate::source::Source;
use crate::validate::is_kebab_case;
use agentctl_config::Locations;
use agentctl_core::Scope;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::{Path, PathBuf};

/// Most skills one folder contributes; the rest are reported, not read.
pub const MAX_SKILLS_PER_DIR: usize = 500;
/// Most bundled files [`read_skill`] lists.
pub const MAX_BUNDLED_FILES: usize = 200;
/// Deepest sub-folder of a skill whose files are listed.
const MAX_BUNDLED_DEPTH: usize = 6;
/// Longest description a skill may have (the Agent Skills specification's limit).
pub const MAX_SKILL_DESCRIPTION: usize = 1024;
/// The file that makes a folder a skill.
pub const SKILL_FILE: &str = "SKILL.md";

/// A folder skills are read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillDir {
    /// The folder (its sub-folders are the skills).
    pub path: PathBuf,
    /// Whether it is the project's or the user's.
    pub scope: Scope,
    /// The installed plugin the folder belongs to: its skills are named `plugin:skill`.
    pub plugin: Option<String>,
}

/// A skill found on disk: what a system prompt lists and where its files are.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Skill {
    /// Its name, as its front matter gives it.
    pub name: String,
    /// The plugin it comes from; `None` for a skill of the project or the user.
    pub plugin: Option<String>,
    /// What it is for and when to use it.
    pub description: String,
    /// Its `allowed-tools`, as written (informational: a skill never widens what an agent may
    /// call).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub allowed_tools: Vec<String>,
    /// Its `license`, if given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub license: Option<String>,
    /// Its `metadata` mapping.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub metadata: BTreeMap<String, Value>,
    /// Its folder, symbolic links resolved: the only place its bundled files are read from.
    pub dir: PathBuf,
    /// Its `SKILL.md`.
    pub file: PathBuf,
    /// Whether it is the project's or the user's.
    pub scope: Scope,
}

impl Skill {
    /// The name it is addressed by: `plugin:name` for a plugin's skill, else its name.
    pub fn qualified_name(&self) -> String {
        match &self.plugin {
            Some(plugin) => format!("{plugin}:{}", self.name),
            None => self.name.clone(),
        }
    }
}

/// A skill loaded for use: its instructions and bundled files.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkillContent {
    /// The Markdown body of `SKILL.md`.
    pub body: String,
    /// The folder's other files, relative to it, sorted (at most [`MAX_BUNDLED_FILES`]).
    pub files: Vec<String>,
    /// True when more files exist than are listed.
    pub truncated: bool,
}

/// What discovering skills met besides skills.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SkillWarning {
    /// A `SKILL.md` that could not be read (located at file:line:col where possible).
    Invalid(DefinitionError),
    /// Two skills of one name: the first folder wins.
    Collision {
        /// The name.
        name: String,
        /// The `SKILL.md` that is used.
        kept: PathBuf,
        /// The `SKILL.md` that is not.
        ignored: PathBuf,
    },
    /// A project skill folder is a symbolic link leading out of the project: a cloned project
    /// must not make files elsewhere readable as "bundled".
    OutsideProject {
        /// The folder.
        dir: PathBuf,
    },
    /// A folder holds more skills than are read.
    TooMany {
        /// The folder.
        dir: PathBuf,
    },
}

impl fmt::Display for SkillWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Invalid(error) => write!(f, "{error}"),
            Self::Collision {
                name,
                kept,
                ignored,
            } => write!(
                f,
                "skill `{name}` is defined twice: {} is used, {} is ignored",
                kept.display(),
                ignored.display()
            ),
            Self::OutsideProject { dir } => write!(
                f,
                "{}: a project skill folder that is a symbolic link out of the project; \
                 ignoring it",
                dir.display()
            ),
            Self::TooMany { dir } => write!(
                f,
                "{}: more than {MAX_SKILLS_PER_DIR} skills; the rest are not read",
                dir.display()
            ),
        }
    }
}

/// The skills found and what was met on the way.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SkillSet {
    /// The skills, by precedence (the first of a name only), sorted by name.
    pub skills: Vec<Skill>,
    /// Malformed files, collisions and refused folders.
    pub warnings: Vec<SkillWarning>,
}

impl SkillSet {
    /// The skill addressed as `name` (`skill` or `plugin:skill`).
    pub fn get(&self, name: &str) -> Option<&Skill> {
        self.skills
            .iter()
            .find(|skill| skill.qualified_name() == name)
    }

    /// Known names close to `name`, for "did you mean".
    pub fn similar(&self, name: &str) -> Vec<String> {
        let names: Vec<String> = self.skills.iter().map(Skill::qualified_name).collect();
        crate::suggest::similar(name, names.iter().map(String::as_str))
            .into_iter()
            .map(str::to_owned)
            .collect()
    }

    /// Adds `skill` unless a skill of its name is already there (then a collision).
    pub fn add(&mut self, skill: Skill) {
        let name = skill.qualified_name();
        match self.get(&name) {
            Some(kept) => self.warnings.push(SkillWarning::Collision {
                name,
                kept: kept.file.clone(),
                ignored: skill.file,
            }),
            None => self.skills.push(skill),
        }
    }
}

/// The folders [`discover_skills`] reads, highest precedence first.
pub fn skill_dirs(locations: &Locations) -> Vec<SkillDir> {
    const FOLDERS: [&str; 4] = [".agentctl", ".claude", ".gemini", ".agents"];
    let mut dirs: Vec<SkillDir> = Vec::with_capacity(8);
    let mut push = |path: PathBuf, scope| {
        if !dirs.iter().any(|dir| dir.path == path) {
            dirs.push(SkillDir {
                path,
                scope,
                plugin: None,
            });
        }
    };
    if let Some(root) = &locations.project_root {
        for folder in FOLDERS {
            push(root.join(folder).join("skills"), Scope::Project);
        }
    }
    push(locations.agentctl_home.join("skills"), Scope::Global);
    if let Some(home) = &locations.user_home {
        for folder in &FOLDERS[1..] {
            push(home.join(folder).join("skills"), Scope::Global);
        }
    }
    for plugin in crate::plugins::installed_plugins(locations).plugins {
        for path in plugin.skill_dirs().0 {
            dirs.push(SkillDir {
                path,
                scope: plugin.scope,
                plugin: Some(plugin.name().to_owned()),
            });
        }
    }
    dirs
}

/// Finds every skill visible from `locations` ([`skill_dirs`]).
///
/// ```
/// use agentctl_config::Locations;
/// let project = tempfile::tempdir()?;
/// let dir = project.path().join(".claude/skills/pdf");
/// std::fs::create_dir_all(&dir)?;
/// std::fs::write(dir.join("SKILL.md"), "---\nname: pdf\ndescription: Fill PDF forms\n---\nSteps.\n")?;
/// let locations = Locations {
///     agentctl_home: project.path().join("home"),
///     user_home: None,
///     project_root: Some(project.path().to_path_buf()),
/// };
/// let found = agentctl_definitions::discover_skills(&locations);
/// assert_eq!(found.skills[0].name, "pdf");
/// assert!(found.warnings.is_empty());
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn discover_skills(locations: &Locations) -> SkillSet {
    let mut set = SkillSet::default();
    let project = locations
        .project_root
        .as_ref()
        .and_then(|root| root.canonicalize().ok());
    for dir in skill_dirs(locations) {
        read_dir_into(&dir, project.as_deref(), &mut set);
    }
    set.skills.sort_by_key(Skill::qualified_name);
    set
}

/// Reads the skills of one folder into `set`.
fn read_dir_into(dir: &SkillDir, project: Option<&Path>, set: &mut SkillSet) {
    let Ok(entries) = std::fs::read_dir(&dir.path) else {
        return;
    };
    let mut folders: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok())
        .filter(|entry| !entry.file_name().to_string_lossy().starts_with('.'))
        .map(|entry| entry.path())
        .filter(|path| path.join(SKILL_FILE).is_file())
        .collect();
    folders.sort();
    if folders.len() > MAX_SKILLS_PER_DIR {
        folders.truncate(MAX_SKILLS_PER_DIR);
        set.warnings.push(SkillWarning::TooMany {
            dir: dir.path.clone(),
        });
    }
    for folder in folders {
        let Ok(real) = folder.canonicalize() else {
            continue;
        };
        if dir.scope == Scope::Project && project.is_some_and(|root| !real.starts_with(root)) {
            set.warnings.push(SkillWarning::OutsideProject {
                dir: folder.clone(),
            });
            continue;
        }
        match load_skill(&folder, dir.scope) {
            Ok(mut skill) => {
                skill.plugin.clone_from(&dir.plugin);
                set.add(skill);
            }
            Err(error) => set.warnings.push(SkillWarning::Invalid(error)),
        }
    }
}

/// The front matter of a `SKILL.md`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "kebab-case")]
struct SkillFrontMatter {
    name: String,
    description: String,
    #[serde(default, deserialize_with = "crate::foreign::tool_list")]
    allowed_tools: Option<Vec<String>>,
    #[serde(default)]
    license: Option<String>,
    #[serde(default)]
    #[expect(
        dead_code,
        reason = "accepted as the specification defines it; nothing uses it"
    )]
    compatibility: Option<String>,
    #[serde(default)]
    metadata: BTreeMap<String, Value>,
}

/// Loads the skill in `folder` (its `SKILL.md` front matter; the body is read on use).
pub fn load_skill(folder: &Path, scope: Scope) -> Result<Skill> {
    let file = folder.join(SKILL_FILE);
    let (dir, text) = read_skill_file(folder)?;
    let split = frontmatter::split(&text, &file)?;
    let source = Source::parse(&file, split, true)?;
    let front: SkillFrontMatter = source.deserialize()?;
    let invalid = |field: &str, message: String| {
        let (line, col) = source.position(field);
        DefinitionError::new(&file, ErrorKind::Yaml, line, col, message).with_field(field)
    };
    if front.name.len() > 64 || !is_kebab_case(&front.name) {
        return Err(invalid(
            "name",
            format!(
                "skill name `{}` must be lowercase letters, digits and hyphens (at most 64)",
                front.name
            ),
        ));
    }
    let folder_name = folder.file_name().map(|name| name.to_string_lossy());
    if folder_name.as_deref() != Some(front.name.as_str()) {
        return Err(invalid(
            "name",
            format!(
                "skill name `{}` differs from its folder's name `{}`; rename one",
                front.name,
                folder_name.unwrap_or_default()
            ),
        ));
    }
    let description = front.description.trim();
    if description.is_empty() || description.chars().count() > MAX_SKILL_DESCRIPTION {
        return Err(invalid(
            "description",
            format!("a skill's description is 1 to {MAX_SKILL_DESCRIPTION} characters"),
        ));
    }
    Ok(Skill {
        name: front.name,
        plugin: None,
        description: description.to_owned(),
        allowed_tools: front.allowed_tools.unwrap_or_default(),
        license: front.license,
        metadata: front.metadata,
        dir,
        file,
        scope,
    })
}

/// The canonical folder and the text of its `SKILL.md`, which must be a file of that folder
/// (not a link out of it).
fn read_skill_file(folder: &Path) -> Result<(PathBuf, String)> {
    let file = folder.join(SKILL_FILE);
    let io = |message: String| DefinitionError::new(&file, ErrorKind::Io, 0, 0, message);
    let dir = folder
        .canonicalize()
        .map_err(|error| io(error.to_string()))?;
    let real = file.canonicalize().map_err(|error| io(error.to_string()))?;
    if real.parent() != Some(dir.as_path()) {
        return Err(io(format!(
            "{SKILL_FILE} is a symbolic link out of its folder; refusing it"
        )));
    }
    let bytes = read_capped(&file)?;
    let text = String::from_utf8(bytes).map_err(|_| {
        DefinitionError::new(&file, ErrorKind::NotUtf8, 0, 0, "not UTF-8".to_owned())
    })?;
    Ok((dir, text))
}

/// Loads `skill` for use: its body, read now, and its bundled files.
pub fn read_skill(skill: &Skill) -> Result<SkillContent> {
    let (_, text) = read_skill_file(&skill.dir)?;
    let split = frontmatter::split(&text, &skill.file)?;
    let (files, truncated) = bundled_files(&skill.dir);
    Ok(SkillContent {
        body: split.body.trim().to_owned(),
        files,
        truncated,
    })
}

/// The regular files of `dir` other than its `SKILL.md`, relative to it, sorted; symbolic
/// links are neither followed nor listed.
fn bundled_files(dir: &Path) -> (Vec<String>, bool) {
    let mut files = Vec::new();
    let mut truncated = false;
    let walk = walkdir::WalkDir::new(dir)
        .follow_links(false)
        .max_depth(MAX_BUNDLED_DEPTH)
        .sort_by_file_name();
    for entry in walk.into_iter().filter_map(|entry| entry.ok()) {
        if !entry.file_type().is_file() {
            continue;
        }
        let Ok(relative) = entry.path().strip_prefix(dir) else {
            continue;
        };
        if relative == Path::new(SKILL_FILE) {
            continue;
        }
        if files.len() == MAX_BUNDLED_FILES {
            truncated = true;
            break;
        }
        files.push(relative.to_string_lossy().replace('\\', "/"));
    }
    (files, truncated)
}

/// The names in `wanted` that `set` does not have, each with close known names.
pub fn unknown_skills<'a>(set: &SkillSet, wanted: &'a [String]) -> Vec<(&'a str, Vec<String>)> {
    let known: HashMap<String, ()> = set
        .skills
        .iter()
        .map(|skill| (skill.qualified_name(), ()))
        .collect();
    wanted
        .iter()
        .filter(|name| !known.contains_key(name.as_str()))
        .map(|name| (name.as_str(), set.similar(name)))
        .collect()
}

#[cfg(test)]
mod tests;
