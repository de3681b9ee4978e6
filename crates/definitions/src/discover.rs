//! Finding agent files in the project and global folders, and resolving which one wins.
//!
//! Precedence, highest first: project `.agentctl/agents` (native), project `.agentctl/graphs`
//! (graph files), project `.claude/agents/**`, project `.gemini/agents`, then global
//! `$AGENTCTL_HOME/agents`, `$AGENTCTL_HOME/graphs`, `~/.claude/agents/**`, `~/.gemini/agents`.
//! The first agent of a name wins; later ones are reported as shadowed. The agent folders of
//! installed plugins come last; their agents are named `plugin:agent`.

mod load;
mod target;

use crate::discovery::{Discovery, InvalidAgent};
use crate::error::{DefinitionError, ErrorKind};
use crate::frontmatter;
use crate::graph_file::is_graph_file;
use crate::parse::LoadedAgent;
use crate::semantic::Checks;
use crate::validate::{definition_errors, discovered_errors};
use agentctl_config::Locations;
use agentctl_core::{AgentDefinition, Scope, SourceFormat};
use load::{Outcome, load_all};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
pub use target::{CreateTarget, TargetReason, create_target};

/// A folder agents are read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentDir {
    /// The folder.
    pub path: PathBuf,
    /// The format of the files in it.
    pub format: SourceFormat,
    /// The scope it belongs to.
    pub scope: Scope,
    /// Whether sub-folders are searched too (Claude Code collections group agents in folders).
    pub recursive: bool,
    /// Whether the folder holds graph files (`.md`, `.yaml`, `.yml`; see
    /// [`parse_graph_str`](crate::parse_graph_str)) rather than agent files.
    pub graphs: bool,
    /// The installed plugin the folder belongs to: its agents are named `plugin:name`.
    pub plugin: Option<String>,
}

/// The folders [`discover`] reads, highest precedence first. Folders that do not exist are
/// listed too.
pub fn agent_dirs(locations: &Locations) -> Vec<AgentDir> {
    use SourceFormat::{Claude, Gemini, Native};
    const AGENTS: bool = false;
    const GRAPHS: bool = true;
    let mut dirs = Vec::with_capacity(8);
    let mut push = |path: PathBuf, format, scope, graphs| {
        if !dirs.iter().any(|d: &AgentDir| d.path == path) {
            dirs.push(AgentDir {
                path,
                format,
                scope,
                recursive: format == Claude,
                graphs,
                plugin: None,
            });
        }
    };
    if let Some(root) = &locations.project_root {
        let agentctl = root.join(".agentctl");
        push(agentctl.join("agents"), Native, Scope::Project, AGENTS);
        push(agentctl.join("graphs"), Native, Scope::Project, GRAPHS);
        push(root.join(".claude/agents"), Claude, Scope::Project, AGENTS);
        push(root.join(".gemini/agents"), Gemini, Scope::Project, AGENTS);
    }
    push(locations.global_agents_dir(), Native, Scope::Global, AGENTS);
    let graphs = locations.agentctl_home.join("graphs");
    push(graphs, Native, Scope::Global, GRAPHS);
    if let Some(home) = &locations.user_home {
        push(home.join(".claude/agents"), Claude, Scope::Global, AGENTS);
        push(home.join(".gemini/agents"), Gemini, Scope::Global, AGENTS);
    }
    dirs.extend(plugin_agent_dirs(locations));
    dirs
}

/// The agent folders of the installed plugins (Claude Code's format, searched recursively),
/// after every other folder: their agents' names carry the plugin's, so they never shadow
/// another agent nor are shadowed by one.
fn plugin_agent_dirs(locations: &Locations) -> Vec<AgentDir> {
    let plugins = crate::plugins::installed_plugins(locations);
    let mut dirs = Vec::new();
    for plugin in &plugins.plugins {
        for path in plugin.agent_dirs().0 {
            dirs.push(AgentDir {
                path,
                format: SourceFormat::Claude,
                scope: plugin.scope,
                recursive: true,
                graphs: false,
                plugin: Some(plugin.name().to_owned()),
            });
        }
    }
    dirs
}

/// Finds and loads every agent visible from `locations`, each checked for syntax and field
/// values and by `checks` (an agent with errors is found but kept in [`Discovery::invalid`]).
///
/// A broken file never hides the others: its error is collected in [`Discovery::errors`].
///
/// ```
/// use agentctl_config::Locations;
/// let project = tempfile::tempdir()?;
/// let dir = project.path().join(".agentctl/agents");
/// std::fs::create_dir_all(&dir)?;
/// std::fs::write(dir.join("reviewer.md"), "---\nname: reviewer\ndescription: Reviews\n---\nReview.\n")?;
/// std::fs::write(dir.join("broken.md"), "---\nname: [\n---\nx\n")?;
/// let home = tempfile::tempdir()?;
/// let locations = Locations {
///     agentctl_home: home.path().join(".agentctl"),
///     user_home: Some(home.path().to_path_buf()),
///     project_root: Some(project.path().to_path_buf()),
/// };
/// let found = agentctl_definitions::discover(&locations, &agentctl_definitions::Checks::new());
/// assert_eq!(found.agents.len(), 1);
/// assert_eq!(found.errors.len(), 1);
/// assert!(found.errors[0].to_string().contains("broken.md:2:"));
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn discover(locations: &Locations, checks: &Checks) -> Discovery {
    discover_in(&agent_dirs(locations), checks)
}

/// Like [`discover`], but each agent's system prompt and field positions are dropped once the
/// file is checked (its `system_prompt` is empty): for listings, which show every agent and
/// run none, so a thousand prompts are never held at once. Everything else — errors and
/// warnings (located when found), shadowing — is what [`discover`] finds.
///
/// ```
/// use agentctl_config::Locations;
/// let project = tempfile::tempdir()?;
/// let dir = project.path().join(".agentctl/agents");
/// std::fs::create_dir_all(&dir)?;
/// std::fs::write(dir.join("reviewer.md"), "---\nname: reviewer\ndescription: Reviews\n---\nReview.\n")?;
/// let locations = Locations {
///     agentctl_home: project.path().join("home"),
///     user_home: None,
///     project_root: Some(project.path().to_path_buf()),
/// };
/// let found = agentctl_definitions::discover_summaries(&locations, &agentctl_definitions::Checks::new());
/// assert_eq!(found.agents[0].name(), "reviewer");
/// assert!(found.agents[0].definition.system_prompt.is_empty());
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn discover_summaries(locations: &Locations, checks: &Checks) -> Discovery {
    discover_dirs(&agent_dirs(locations), Prompts::Drop, checks)
}

/// Whether loaded agents keep their system prompts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Prompts {
    Keep,
    Drop,
}

/// Like [`discover`], over an explicit list of folders in precedence order.
pub fn discover_in(dirs: &[AgentDir], checks: &Checks) -> Discovery {
    discover_dirs(dirs, Prompts::Keep, checks)
}

fn discover_dirs(dirs: &[AgentDir], prompts: Prompts, checks: &Checks) -> Discovery {
    let mut found = Discovery::default();
    // Walk every folder first, then load the files, on every core.
    let mut files: Vec<WalkedFile> = Vec::new();
    let mut walk_errors = Vec::with_capacity(dirs.len());
    for (i, dir) in dirs.iter().enumerate() {
        let mut errors = Vec::new();
        markdown_files(i, dir, &mut files, &mut errors);
        walk_errors.push(errors);
    }
    let mut outcomes = load_all(dirs, &files, prompts, checks)
        .into_iter()
        .zip(&files)
        .peekable();
    // Room for every file up front: an agent is large, and growing the list would copy them
    // all (twice the memory while it does).
    found.agents.reserve_exact(files.len());
    let mut winners: HashMap<String, PathBuf> = HashMap::with_capacity(files.len());
    for (i, errors) in walk_errors.into_iter().enumerate() {
        found.errors.extend(errors);
        while let Some((outcome, _)) = outcomes.next_if(|(_, file)| file.dir == i) {
            match outcome {
                Outcome::Loaded(agent, errors) => found.place(*agent, errors, &mut winners),
                Outcome::Skipped(path) => found.skipped.push(path),
                Outcome::Failed(error, declared) => {
                    found.declared_names.extend(declared);
                    found.errors.push(error);
                }
            }
        }
    }
    // Names are unique among them: an unstable sort gives the same order, in place.
    found.agents.sort_unstable_by(|a, b| a.name().cmp(b.name()));
    check_among_others(&mut found, checks);
    // Stable sort: agents of the same name stay in precedence order.
    found
        .shadowed
        .sort_by(|a, b| a.agent.name().cmp(b.agent.name()));
    found
}

impl Discovery {
    /// The agents of `definitions` (defined in code rather than found in folders), checked
    /// like loaded ones: a definition with errors is kept in [`Discovery::invalid`] and never
    /// runs; of two with the same name the first wins.
    pub fn from_definitions(definitions: Vec<AgentDefinition>, checks: &Checks) -> Self {
        let mut found = Discovery::default();
        let mut seen: HashMap<String, PathBuf> = HashMap::new();
        for definition in definitions {
            let agent = LoadedAgent::from_definition(definition);
            let errors = definition_errors(&agent, checks);
            found.place(agent, errors, &mut seen);
        }
        found.agents.sort_unstable_by(|a, b| a.name().cmp(b.name()));
        check_among_others(&mut found, checks);
        found
    }
}

/// After discovery: agents whose checks fail among the others (a graph agent whose nodes name
/// no runnable plain agent) cannot run either; they move to [`Discovery::invalid`] with
/// located errors, so looking them up says why.
fn check_among_others(found: &mut Discovery, checks: &Checks) {
    let failed: Vec<(usize, Vec<_>)> = found
        .agents
        .iter()
        .enumerate()
        .map(|(i, agent)| (i, discovered_errors(agent, checks, found)))
        .filter(|(_, errors)| !errors.is_empty())
        .collect();
    if failed.is_empty() {
        return;
    }
    for (i, errors) in failed.into_iter().rev() {
        let agent = found.agents.remove(i);
        found.invalid.push(InvalidAgent { agent, errors });
    }
    found
        .invalid
        .sort_by(|a, b| a.agent.name().cmp(b.agent.name()));
}

/// The `name:` of a file that failed to load, read line by line (its YAML may be broken), so
/// that looking the agent up by that name reports the file's error.
fn declared_name(bytes: &[u8], path: &Path) -> Option<String> {
    let text = String::from_utf8_lossy(bytes);
    let yaml = match frontmatter::split(&text, path) {
        Ok(split) => split.yaml,
        // A `.yaml` graph file is YAML throughout.
        Err(_) if is_graph_file(path) && !is_markdown(path) => &text,
        Err(_) => return None,
    };
    yaml.lines().find_map(|line| {
        let value = line.strip_prefix("name:")?.trim();
        let value = value.trim_matches(|c| c == '"' || c == '\'');
        (!value.is_empty()).then(|| value.to_owned())
    })
}

/// A file a folder walk found.
struct WalkedFile {
    /// Index of its folder.
    dir: usize,
    path: PathBuf,
    /// The walk saw a regular file, not a symlink: nothing to check before opening it.
    regular: bool,
}

/// Adds the agent files under `dir` (the `index`th folder) to `files`, in name order.
fn markdown_files(
    index: usize,
    dir: &AgentDir,
    files: &mut Vec<WalkedFile>,
    errors: &mut Vec<DefinitionError>,
) {
    // A plugin's manifest may name a single agent file.
    if dir.plugin.is_some() && dir.path.is_file() && is_markdown(&dir.path) {
        files.push(WalkedFile {
            dir: index,
            path: dir.path.clone(),
            regular: false,
        });
        return;
    }
    if !dir.path.is_dir() {
        return;
    }
    let walker = walkdir::WalkDir::new(&dir.path)
        .min_depth(1)
        .max_depth(if dir.recursive { 8 } else { 1 })
        .follow_links(true)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|entry| !is_hidden(entry.file_name()));
    for entry in walker {
        match entry {
            // Anything but a folder is handed to the reader, which refuses FIFOs and devices
            // with an error naming the file rather than skipping them without a word.
            Ok(entry)
                if !entry.file_type().is_dir()
                    && (is_markdown(entry.path()) || dir.graphs && is_graph_file(entry.path())) =>
            {
                files.push(WalkedFile {
                    dir: index,
                    regular: entry.file_type().is_file() && !entry.path_is_symlink(),
                    path: entry.into_path(),
                });
            }
            Ok(_) => {}
            Err(error) => {
                let path = error.path().unwrap_or(&dir.path).to_path_buf();
                errors.push(DefinitionError::new(
                    &path,
                    ErrorKind::Io,
                    0,
                    0,
                    format!("cannot read: {error}"),
                ));
            }
        }
    }
}

fn is_hidden(name: &std::ffi::OsStr) -> bool {
    name.to_str().is_some_and(|name| name.starts_with('.'))
}

fn is_markdown(path: &Path) -> bool {
    path.extension().is_some_and(|ext| ext == "md")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn agent(name: &str) -> String {
        format!("---\nname: {name}\ndescription: d\n---\nPrompt\n")
    }

    #[test]
    fn precedence_shadowing_and_errors() {
        let tmp = tempfile::tempdir().unwrap();
        let project = tmp.path().join("p");
        let home = tmp.path().join("h");
        write(&project.join(".agentctl/agents/a.md"), &agent("a"));
        write(&project.join(".claude/agents/sub/a.md"), &agent("a"));
        write(&project.join(".claude/agents/README.md"), "# Agents\n");
        write(&project.join(".claude/agents/b.md"), &agent("b"));
        write(&project.join(".gemini/agents/c.md"), &agent("c"));
        write(&project.join(".gemini/agents/notes.txt"), "x");
        write(&home.join(".agentctl/agents/b.md"), &agent("b"));
        write(&home.join(".agentctl/agents/bad.md"), "no front matter\n");
        write(&home.join(".claude/agents/d.md"), &agent("d"));
        write(&home.join(".gemini/agents/.hidden.md"), &agent("e"));
        let locations = Locations {
            agentctl_home: home.join(".agentctl"),
            user_home: Some(home.clone()),
            project_root: Some(project.clone()),
        };
        let found = discover(&locations, &Checks::new());
        let names: Vec<(&str, SourceFormat, Scope)> = found
            .agents
            .iter()
            .map(|a| {
                (
                    a.name(),
                    a.definition.source.format,
                    a.definition.source.scope,
                )
            })
            .collect();
        assert_eq!(
            names,
            [
                ("a", SourceFormat::Native, Scope::Project),
                ("b", SourceFormat::Claude, Scope::Project),
                ("c", SourceFormat::Gemini, Scope::Project),
                ("d", SourceFormat::Claude, Scope::Global),
            ]
        );
        let shadowed: Vec<(&Path, &Path)> = found
            .shadowed
            .iter()
            .map(|s| (s.agent.path(), s.shadowed_by.as_path()))
            .collect();
        assert_eq!(
            shadowed,
            [
                (
                    project.join(".claude/agents/sub/a.md").as_path(),
                    project.join(".agentctl/agents/a.md").as_path()
                ),
                (
                    home.join(".agentctl/agents/b.md").as_path(),
                    project.join(".claude/agents/b.md").as_path()
                ),
            ]
        );
        assert_eq!(found.errors.len(), 1);
        assert_eq!(found.errors[0].kind, ErrorKind::MissingFrontMatter);
        assert_eq!(found.skipped, [project.join(".claude/agents/README.md")]);
        assert_eq!(found.similar_names("bb"), ["b"]);
        assert_eq!(found.all_named("a").count(), 2);
    }

    #[test]
    fn many_files_load_in_discovery_order() {
        // Enough files for every core to take a share.
        let tmp = tempfile::tempdir().unwrap();
        let project = tmp.path().join("p");
        for i in 0..150 {
            let path = project.join(format!(".agentctl/agents/a{i:03}.md"));
            match i % 10 {
                3 => write(&path, "---\nname: [\n---\nx\n"),
                7 => write(&path, &agent(&format!("a{:03}", i - 1))),
                _ => write(&path, &agent(&format!("a{i:03}"))),
            }
        }
        for i in 0..40 {
            write(
                &project.join(format!(".claude/agents/g/c{i:02}.md")),
                &agent(&format!("a{i:03}")),
            );
        }
        let locations = Locations {
            agentctl_home: tmp.path().join("h/.agentctl"),
            user_home: Some(tmp.path().join("h")),
            project_root: Some(project.clone()),
        };
        let found = discover(&locations, &Checks::new());
        let broken: Vec<String> = (0..150)
            .filter(|i| i % 10 == 3)
            .map(|i| format!("a{i:03}.md"))
            .collect();
        let errors: Vec<String> = found
            .errors
            .iter()
            .map(|e| e.path.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(errors, broken);
        // 120 native names, and the Claude Code agents of the 8 names no native file has.
        assert_eq!(found.agents.len(), 128);
        assert_eq!(found.shadowed.len(), 15 + 32);
        let a006: Vec<&Path> = found.all_named("a006").map(LoadedAgent::path).collect();
        assert_eq!(
            a006,
            [
                project.join(".agentctl/agents/a006.md"),
                project.join(".agentctl/agents/a007.md"),
                project.join(".claude/agents/g/c06.md"),
            ]
        );
        assert_eq!(found.declared_names.len(), 15);
    }
}
