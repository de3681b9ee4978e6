//! Templates kept as files, listed with the built-in ones.
//!
//! A template file is an agent file (front matter and a system prompt) whose `name:` may be
//! left out: the new agent's name replaces it. Files are read from, highest precedence first,
//! the project's `.agentctl/templates/`, `$AGENTCTL_HOME/templates/` and Gemini CLI's
//! `~/.gemini/agents/templates/` (seed 002 §5.3); a file's stem is its template's name, and a
//! file hides a built-in template of the same name.

use super::Template;
use crate::error::Result;
use crate::parse::{parse_bytes, read_capped};
use crate::suggest::similar;
use agentctl_config::Locations;
use agentctl_core::{AgentSpec, Scope, SourceFormat};
use std::path::PathBuf;

/// Where a template comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TemplateOrigin {
    /// One of agentctl's own.
    BuiltIn(Template),
    /// A file in a templates folder.
    File {
        /// The file.
        path: PathBuf,
        /// The format its folder's agent files are in.
        format: SourceFormat,
    },
}

/// A template `agents create --template NAME` can start from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateEntry {
    /// Its name.
    pub name: String,
    /// Where it comes from.
    pub origin: TemplateOrigin,
    /// The built-in template a file of the same name hides.
    pub shadows: Option<Template>,
}

/// What a template gives a new agent.
#[derive(Debug, Clone, PartialEq)]
pub struct TemplateContent {
    /// The front matter, named after the new agent.
    pub spec: AgentSpec,
    /// The system prompt.
    pub prompt: String,
}

/// The folders template files are read from, highest precedence first, with the format of
/// their files. Folders that do not exist are listed too.
pub fn template_dirs(locations: &Locations) -> Vec<(PathBuf, SourceFormat)> {
    let mut dirs = Vec::with_capacity(3);
    if let Some(root) = &locations.project_root {
        dirs.push((root.join(".agentctl/templates"), SourceFormat::Native));
    }
    dirs.push((
        locations.agentctl_home.join("templates"),
        SourceFormat::Native,
    ));
    if let Some(home) = &locations.user_home {
        dirs.push((home.join(".gemini/agents/templates"), SourceFormat::Gemini));
    }
    dirs
}

/// Every template, sorted by name: the `*.md` files of [`template_dirs`] (the first of a name
/// wins) and the built-in templates no file hides.
pub fn templates(locations: &Locations) -> Vec<TemplateEntry> {
    let mut entries: Vec<TemplateEntry> = Vec::new();
    for (dir, format) in template_dirs(locations) {
        let Ok(read) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut files: Vec<PathBuf> = read
            .filter_map(|entry| entry.ok().map(|entry| entry.path()))
            .filter(|path| path.extension().is_some_and(|ext| ext == "md") && path.is_file())
            .collect();
        files.sort();
        for path in files {
            let Some(name) = path.file_stem().and_then(|s| s.to_str()).map(str::to_owned) else {
                continue;
            };
            if entries.iter().any(|e| e.name == name) {
                continue;
            }
            entries.push(TemplateEntry {
                shadows: Template::ALL.into_iter().find(|t| t.name() == name),
                name,
                origin: TemplateOrigin::File { path, format },
            });
        }
    }
    for template in Template::ALL {
        if !entries.iter().any(|e| e.shadows == Some(template)) {
            entries.push(TemplateEntry {
                name: template.name().to_owned(),
                origin: TemplateOrigin::BuiltIn(template),
                shadows: None,
            });
        }
    }
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    entries
}

/// The template `name` calls for in `entries` ([`templates`]): its own name, or a built-in
/// template's alias (`testing`); `Err` holds the names close to it, closest first.
pub fn find_template<'a>(
    entries: &'a [TemplateEntry],
    name: &str,
) -> std::result::Result<&'a TemplateEntry, Vec<&'a str>> {
    if let Some(entry) = entries.iter().find(|e| e.name == name) {
        return Ok(entry);
    }
    let canonical = Template::from_name(name).map(Template::name);
    canonical
        .and_then(|canonical| entries.iter().find(|e| e.name == canonical))
        .ok_or_else(|| {
            let aliases = Template::ALL
                .into_iter()
                .flat_map(|t| t.aliases().iter().copied());
            similar(name, entries.iter().map(|e| e.name.as_str()).chain(aliases))
        })
}

impl TemplateEntry {
    /// The template's front matter and prompt for an agent called `agent`. A template file
    /// that does not load is a [`DefinitionError`](crate::DefinitionError) located in it.
    pub fn load(&self, agent: &str) -> Result<TemplateContent> {
        match &self.origin {
            TemplateOrigin::BuiltIn(template) => Ok(TemplateContent {
                spec: template.spec(agent),
                prompt: template.system_prompt().to_owned(),
            }),
            TemplateOrigin::File { path, format } => {
                let bytes = with_name(read_capped(path)?, agent);
                let loaded = parse_bytes(&bytes, path, *format, Scope::Project)?;
                let mut spec = loaded.definition.spec;
                spec.name = agent.to_owned();
                Ok(TemplateContent {
                    spec,
                    prompt: loaded.definition.system_prompt,
                })
            }
        }
    }
}

/// The template's text with `name: <agent>` added at the end of its front matter when it has
/// no top-level `name:` (so the lines above keep their numbers in error messages).
fn with_name(bytes: Vec<u8>, agent: &str) -> Vec<u8> {
    let Ok(text) = std::str::from_utf8(&bytes) else {
        return bytes;
    };
    let mut lines = text.split_inclusive('\n');
    if lines.next().map(str::trim_end) != Some("---") {
        return bytes;
    }
    let mut offset = text.find('\n').map_or(text.len(), |i| i + 1);
    for line in lines {
        if line.starts_with("name:") {
            return bytes;
        }
        if line.trim_end() == "---" {
            let mut out = text[..offset].to_owned();
            out.push_str(&format!("name: {agent}\n"));
            out.push_str(&text[offset..]);
            return out.into_bytes();
        }
        offset += line.len();
    }
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn locations(project: &std::path::Path, home: &std::path::Path) -> Locations {
        Locations {
            agentctl_home: home.join(".agentctl"),
            user_home: Some(home.to_path_buf()),
            project_root: Some(project.to_path_buf()),
        }
    }

    #[test]
    fn files_shadow_built_ins_and_load_under_the_new_name() {
        let project = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        let gemini = home.path().join(".gemini/agents/templates");
        std::fs::create_dir_all(&gemini).unwrap();
        std::fs::write(
            gemini.join("debugging.md"),
            "---\ndisplay_name: Bug Hunter\ndescription: Hunts bugs\ntools: [read_file]\n---\nHunt.\n",
        )
        .unwrap();
        std::fs::write(gemini.join("notes.txt"), "not a template").unwrap();
        let locations = locations(project.path(), home.path());
        let all = templates(&locations);
        let names: Vec<&str> = all.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "code-review",
                "debugging",
                "documentation",
                "security",
                "test-generator"
            ]
        );
        let debugging = find_template(&all, "debugging").unwrap();
        assert_eq!(debugging.shadows, Some(Template::Debugging));
        let content = debugging.load("bugs").unwrap();
        assert_eq!(content.spec.name, "bugs");
        assert_eq!(content.spec.title.as_deref(), Some("Bug Hunter"));
        assert_eq!(content.prompt, "Hunt.");
        assert_eq!(
            find_template(&all, "testing").unwrap().origin,
            TemplateOrigin::BuiltIn(Template::TestGenerator)
        );
        assert_eq!(find_template(&all, "debuging").unwrap_err(), ["debugging"]);
        assert_eq!(find_template(&all, "testin").unwrap_err(), ["testing"]);
    }

    #[test]
    fn a_missing_name_is_added_after_the_other_fields() {
        let named = |text: &str| String::from_utf8(with_name(text.into(), "a")).unwrap();
        assert_eq!(
            named("---\ntitle: T\n---\nP\n"),
            "---\ntitle: T\nname: a\n---\nP\n"
        );
        assert_eq!(named("---\nname: b\n---\nP\n"), "---\nname: b\n---\nP\n");
        assert_eq!(named("no front matter"), "no front matter");
    }

    #[test]
    fn a_broken_template_is_a_located_error() {
        let project = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        let dir = project.path().join(".agentctl/templates");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("mine.md"), "---\ntitle: [\n---\nx\n").unwrap();
        let all = templates(&locations(project.path(), home.path()));
        let error = find_template(&all, "mine").unwrap().load("a").unwrap_err();
        assert!(error.to_string().contains("mine.md:2:"), "{error}");
    }
}
