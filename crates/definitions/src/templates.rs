//! Starting points for `agents create`, and writing agent files.

use crate::schema::SCHEMA_URL;
use agentctl_core::AgentSpec;

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

    /// The template of that name.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.name() == name)
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
