//! Starting points for `agents create`, and writing agent files.

mod user;

use crate::schema::SCHEMA_URL;
use agentctl_core::AgentSpec;
pub use user::{
    TemplateContent, TemplateEntry, TemplateOrigin, find_template, template_dirs, templates,
};

/// A ready-made agent: a system prompt and sensible front-matter defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Template {
    /// Finds the cause of a bug and proposes a fix.
    Debugging,
    /// Reviews changes for correctness, style and risk.
    CodeReview,
    /// Writes and updates documentation.
    Documentation,
    /// Writes tests for existing code.
    TestGenerator,
    /// Audits code for security problems.
    Security,
}

impl Template {
    /// Every template.
    pub const ALL: [Template; 5] = [
        Template::Debugging,
        Template::CodeReview,
        Template::Documentation,
        Template::TestGenerator,
        Template::Security,
    ];

    /// The template's name, as `--template` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Template::Debugging => "debugging",
            Template::CodeReview => "code-review",
            Template::Documentation => "documentation",
            Template::TestGenerator => "test-generator",
            Template::Security => "security",
        }
    }

    /// Other names `--template` takes for it: seed 002's appendix calls the test template
    /// `testing.md`, its §3.2.2 `test-generator`.
    pub fn aliases(self) -> &'static [&'static str] {
        match self {
            Template::TestGenerator => &["testing"],
            _ => &[],
        }
    }

    /// The template of that name or alias.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|t| t.name() == name || t.aliases().contains(&name))
    }

    /// A title for agents made from the template.
    pub fn title(self) -> &'static str {
        match self {
            Template::Debugging => "Debugger",
            Template::CodeReview => "Code Reviewer",
            Template::Documentation => "Documentation Writer",
            Template::TestGenerator => "Test Generator",
            Template::Security => "Security Auditor",
        }
    }

    /// The description agents made from the template start with.
    pub fn description(self) -> &'static str {
        match self {
            Template::Debugging => {
                "Finds the root cause of bugs, failing tests and crashes, and proposes a minimal fix. Use when something is broken and the cause is unclear."
            }
            Template::CodeReview => {
                "Reviews code changes for correctness, readability, risk and missing tests. Use after writing or modifying code, before committing."
            }
            Template::Documentation => {
                "Writes and updates READMEs, API docs and guides so they match the code. Use when code changed or docs are missing."
            }
            Template::TestGenerator => {
                "Writes focused unit and integration tests for existing code, covering edge cases and error paths. Use when coverage is thin."
            }
            Template::Security => {
                "Audits code for vulnerabilities: injection, secrets, unsafe input handling, authz gaps and risky dependencies. Read-only."
            }
        }
    }

    /// Tools agents made from the template are allowed.
    pub fn tools(self) -> &'static [&'static str] {
        match self {
            Template::Debugging => &[
                "read_file",
                "read_many_files",
                "grep",
                "glob",
                "bash",
                "edit_file",
            ],
            Template::CodeReview | Template::Security => {
                &["read_file", "read_many_files", "grep", "glob", "bash"]
            }
            Template::Documentation => &[
                "read_file",
                "read_many_files",
                "grep",
                "glob",
                "write_file",
                "edit_file",
            ],
            Template::TestGenerator => &[
                "read_file",
                "read_many_files",
                "grep",
                "glob",
                "write_file",
                "edit_file",
                "bash",
            ],
        }
    }

    /// The template's front matter, for an agent called `name`.
    pub fn spec(self, name: &str) -> AgentSpec {
        let mut spec = AgentSpec {
            name: name.to_owned(),
            title: Some(self.title().to_owned()),
            description: Some(self.description().to_owned()),
            ..AgentSpec::default()
        };
        spec.tools.allow = Some(self.tools().iter().map(|t| (*t).to_owned()).collect());
        if matches!(self, Template::CodeReview | Template::Security) {
            spec.tools.deny = vec!["write_file".to_owned(), "delete_file".to_owned()];
        }
        spec
    }

    /// The template's system prompt.
    pub fn system_prompt(self) -> &'static str {
        match self {
            Template::Debugging => include_str!("templates/debugging.md"),
            Template::CodeReview => include_str!("templates/code-review.md"),
            Template::Documentation => include_str!("templates/documentation.md"),
            Template::TestGenerator => include_str!("templates/test-generator.md"),
            Template::Security => include_str!("templates/security.md"),
        }
    }
}

/// The system prompt of agents created without a template.
pub const DEFAULT_PROMPT: &str = "You are a focused assistant.\n\nDescribe here what the agent does, how it works and what it returns.\n";

/// A description for an agent created without one, made from its title and system prompt
/// (deterministic; no model is asked): `"<title>: <the prompt's first sentence>"`, or the title
/// alone when the prompt is still [`DEFAULT_PROMPT`].
///
/// ```
/// use agentctl_definitions::{DEFAULT_PROMPT, derive_description};
/// assert_eq!(derive_description("Debug Analyzer", DEFAULT_PROMPT), "Debug Analyzer");
/// assert_eq!(
///     derive_description("Debugger", "# Role\n\nYou find bugs. Then you fix them."),
///     "Debugger: You find bugs."
/// );
/// ```
pub fn derive_description(title: &str, prompt: &str) -> String {
    const LIMIT: usize = 200;
    let title = title.trim();
    if prompt.trim() == DEFAULT_PROMPT.trim() {
        return title.to_owned();
    }
    let paragraph = prompt
        .lines()
        .map(str::trim)
        .find(|line| !line.is_empty() && !line.starts_with('#') && !line.starts_with("---"))
        .unwrap_or("");
    let paragraph = paragraph.trim_start_matches(['-', '*', '>', ' ']);
    let end = paragraph
        .char_indices()
        .find(|&(i, c)| {
            matches!(c, '。' | '！' | '？')
                || (matches!(c, '.' | '!' | '?')
                    && paragraph[i + c.len_utf8()..]
                        .chars()
                        .next()
                        .is_none_or(char::is_whitespace))
        })
        .map_or(paragraph.len(), |(i, c)| i + c.len_utf8());
    let mut sentence = paragraph[..end].trim().to_owned();
    if sentence.chars().count() > LIMIT {
        let cut: String = sentence.chars().take(LIMIT).collect();
        let cut = cut.rsplit_once(' ').map_or(cut.as_str(), |(head, _)| head);
        sentence = format!("{}…", cut.trim_end_matches([',', ';', ':']));
    }
    match (title.is_empty(), sentence.is_empty()) {
        (_, true) => title.to_owned(),
        (true, false) => sentence,
        (false, false) => format!("{title}: {sentence}"),
    }
}

/// Writes an agent file: YAML front matter (with a `yaml-language-server` schema comment so
/// editors complete and check fields), then the body.
///
/// ```
/// use agentctl_definitions::{Template, render_agent_file, parse_str};
/// use agentctl_core::{Scope, SourceFormat};
/// let spec = Template::CodeReview.spec("reviewer");
/// let text = render_agent_file(&spec, Template::CodeReview.system_prompt());
/// assert!(text.starts_with("---\n# yaml-language-server: $schema="));
/// let agent = parse_str(&text, "reviewer.md".as_ref(), SourceFormat::Native, Scope::Project)?;
/// assert_eq!(agent.definition.spec, spec);
/// # Ok::<(), agentctl_definitions::DefinitionError>(())
/// ```
pub fn render_agent_file(spec: &AgentSpec, body: &str) -> String {
    let yaml = serde_norway::to_string(spec).unwrap_or_else(|error| {
        format!(
            "# could not write every field: {error}\nname: {}\n",
            spec.name
        )
    });
    format!(
        "---\n# yaml-language-server: $schema={SCHEMA_URL}\n{yaml}---\n\n{}\n",
        body.trim()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{parse_str, validate};
    use agentctl_core::{Scope, Settings, SourceFormat};
    use std::path::Path;

    #[test]
    fn testing_is_the_test_generator() {
        assert_eq!(
            Template::from_name("testing"),
            Some(Template::TestGenerator)
        );
        assert_eq!(Template::from_name("nope"), None);
    }

    #[test]
    fn descriptions_are_derived_from_the_first_sentence() {
        assert_eq!(
            derive_description("T", "  \n- Reads files. More."),
            "T: Reads files."
        );
        assert_eq!(derive_description("T", "v1.2 is here"), "T: v1.2 is here");
        assert_eq!(derive_description("", "Finds bugs."), "Finds bugs.");
        let long = format!("{} end.", "word ".repeat(80));
        let derived = derive_description("T", &long);
        assert!(
            derived.ends_with("word…") && derived.chars().count() < 210,
            "{derived}"
        );
    }

    #[test]
    fn every_template_round_trips_and_validates() {
        for template in Template::ALL {
            assert_eq!(Template::from_name(template.name()), Some(template));
            let mut spec = template.spec("my-agent");
            spec.model = Some("sonnet".into());
            spec.temperature = Some(0.3);
            spec.max_turns = Some(20);
            let text = render_agent_file(&spec, template.system_prompt());
            let agent = parse_str(
                &text,
                Path::new("a.md"),
                SourceFormat::Native,
                Scope::Project,
            )
            .unwrap();
            assert_eq!(agent.definition.spec, spec, "{text}");
            assert_eq!(
                agent.definition.system_prompt,
                template.system_prompt().trim()
            );
            let report = validate(&agent, &Settings::default(), &crate::Checks::new());
            assert!(
                report.valid && report.diagnostics().count() == 0,
                "{report:?}"
            );
        }
    }
}
