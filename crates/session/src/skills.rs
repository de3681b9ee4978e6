//! Skills in a session: which skills an agent is offered, the names and descriptions at the
//! end of its system prompt, the `skill` tool that loads one, and the check of agents'
//! `skills:` lists.
//!
//! The main conversation is offered every skill; any other agent only those its front matter
//! lists in `skills:` (Claude Code's subagent field). An agent offered none gets neither the
//! prompt section nor the tool. Loading a skill grants the calling agent `read_file` on that
//! skill's folder for the rest of the session ([`ReadGrants`]), so its bundled files are
//! readable even outside the project root — that folder only.

use crate::main_agent::is_main_conversation;
use crate::project::Project;
use agentctl_core::{AgentDefinition, RiskLevel, ToolContext, ToolError, ToolOutput, TypedTool};
use agentctl_definitions::{
    Check, CheckStage, LoadedAgent, SemanticCheck, Severity, Skill, SkillSet, read_skill,
    unknown_skills,
};
use agentctl_tools::ReadGrants;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use std::fmt::Write as _;
use std::sync::Arc;

/// The name of the tool that loads a skill.
pub const SKILL_TOOL: &str = "skill";

/// The front-matter field listing an agent's skills.
const SKILLS_FIELD: &str = "skills";

/// The skills `agent`'s front matter lists (`skills: [a, b]` or `skills: a, b`); `None` when
/// it lists none, `Err` with the value when it is neither.
pub(crate) fn declared_skills(agent: &AgentDefinition) -> Result<Option<Vec<String>>, Value> {
    let Some(value) = agent.extra.get(SKILLS_FIELD) else {
        return Ok(None);
    };
    let names = match value {
        Value::String(text) => text.split(',').map(|name| name.trim().to_owned()).collect(),
        Value::Array(items) => items
            .iter()
            .map(|item| item.as_str().map(|name| name.trim().to_owned()))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| value.clone())?,
        Value::Null => Vec::new(),
        other => return Err(other.clone()),
    };
    Ok(Some(
        names.into_iter().filter(|name| !name.is_empty()).collect(),
    ))
}

/// The skills `agent` is offered from `set`: all for the main conversation, else those its
/// `skills:` names (unknown names are the check's business, not the run's).
pub(crate) fn skills_of(agent: &AgentDefinition, set: &SkillSet) -> Vec<Skill> {
    match declared_skills(agent) {
        Ok(Some(names)) => names
            .iter()
            .filter_map(|name| set.get(name).cloned())
            .collect(),
        _ if is_main_conversation(agent) => set.skills.clone(),
        _ => Vec::new(),
    }
}

/// `agent` offered `skills`: their names and descriptions at the end of its system prompt,
/// and the `skill` tool let through its tool allow list (as a declaration brings its tools;
/// a deny still removes it). Unchanged when `skills` is empty.
pub(crate) fn with_skills(mut agent: AgentDefinition, skills: &[Skill]) -> AgentDefinition {
    if skills.is_empty() {
        return agent;
    }
    let mut section = String::from(
        "# Skills\n\nSkills are instructions and files for particular tasks. When a task matches \
         one, call the `skill` tool with its name first and follow what it returns.\n",
    );
    for skill in skills {
        let _ = write!(
            section,
            "\n- `{}`: {}",
            skill.qualified_name(),
            one_line(&skill.description)
        );
    }
    agent.system_prompt = format!("{}\n\n{section}\n", agent.system_prompt.trim_end());
    if let Some(allow) = agent.spec.tools.allow.as_mut()
        && !allow.iter().any(|name| name == SKILL_TOOL)
    {
        allow.push(SKILL_TOOL.to_owned());
    }
    agent
}

impl Project {
    /// The skills of the project and the user, with what discovery met (malformed files,
    /// collisions), from the folders [`skill_dirs`](agentctl_definitions::skill_dirs) lists.
    pub fn skills(&self) -> SkillSet {
        agentctl_definitions::discover_skills(&self.locations)
    }
}

/// A description on one line, whatever its YAML spelled.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Arguments of the `skill` tool.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct SkillArgs {
    /// The skill's name, as the system prompt lists it.
    name: String,
}

/// The `skill` tool of one agent: loads one of the skills it is offered.
pub(crate) struct SkillTool {
    skills: Arc<[Skill]>,
    grants: ReadGrants,
}

impl SkillTool {
    /// The tool loading `skills`, recording each load in `grants`.
    pub(crate) fn new(skills: Vec<Skill>, grants: ReadGrants) -> Self {
        Self {
            skills: skills.into(),
            grants,
        }
    }
}

#[async_trait::async_trait]
impl TypedTool for SkillTool {
    type Args = SkillArgs;

    fn name(&self) -> &str {
        SKILL_TOOL
    }

    fn description(&self) -> &str {
        "Loads a skill listed in your instructions: returns its instructions and the files \
         bundled with it, which read_file can then read by the absolute paths given."
    }

    fn risk(&self) -> RiskLevel {
        RiskLevel::Safe
    }

    fn is_mutating(&self) -> bool {
        false
    }

    async fn call(&self, args: SkillArgs, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let Some(skill) = self
            .skills
            .iter()
            .find(|skill| skill.qualified_name() == args.name.trim())
        else {
            let names: Vec<String> = self.skills.iter().map(Skill::qualified_name).collect();
            return Err(ToolError::failed(format!(
                "no skill `{}` is available to you; available: {}",
                args.name,
                names.join(", ")
            )));
        };
        let skill = skill.clone();
        let content = tokio::task::spawn_blocking(move || read_skill(&skill).map(|c| (skill, c)))
            .await
            .map_err(|error| ToolError::failed(format!("skill task failed: {error}")))?;
        let (skill, content) = content
            .map_err(|error| ToolError::failed(format!("cannot load the skill: {error}")))?;
        self.grants
            .grant(ctx.agent(), &skill.dir)
            .map_err(|error| ToolError::failed(format!("cannot load the skill: {error}")))?;
        Ok(ToolOutput::text(render(&skill, &content)))
    }
}

/// What the model reads of a loaded skill.
fn render(skill: &Skill, content: &agentctl_definitions::SkillContent) -> String {
    let dir = skill.dir.display();
    let mut out = format!(
        "# Skill `{}`\n\nFolder: {dir}\n\n{}\n",
        skill.qualified_name(),
        content.body
    );
    if !content.files.is_empty() {
        out.push_str("\nBundled files (read them with read_file by these paths):\n");
        for file in &content.files {
            let _ = writeln!(out, "- {dir}/{file}");
        }
        if content.truncated {
            out.push_str("- … (more files; only the first are listed)\n");
        }
    }
    out
}

/// The check of agents' `skills:` lists against the skills found: an unknown name is an
/// error with the names close to it.
pub(crate) struct SkillsCheck {
    set: Arc<SkillSet>,
}

impl SkillsCheck {
    /// Checks against `set`.
    pub(crate) fn new(set: SkillSet) -> Self {
        Self { set: Arc::new(set) }
    }
}

impl SemanticCheck for SkillsCheck {
    fn name(&self) -> &'static str {
        "skills"
    }

    fn check(&self, agent: &LoadedAgent, stage: CheckStage<'_>) -> Option<Check> {
        if matches!(stage, CheckStage::Load) {
            return None;
        }
        let names = match declared_skills(&agent.definition) {
            Ok(Some(names)) => names,
            Ok(None) => return None,
            Err(value) => {
                let message = format!("`skills` is a list of skill names, not {value}");
                let found = agent.diagnostic(Severity::Error, SKILLS_FIELD, message);
                return Some(Check::new("skills found", vec![found], None));
            }
        };
        let diagnostics = unknown_skills(&self.set, &names)
            .into_iter()
            .map(|(name, close)| {
                let hint = match close.as_slice() {
                    [] => String::new(),
                    close => format!("; did you mean {}?", close.join(", ")),
                };
                agent.diagnostic(
                    Severity::Error,
                    SKILLS_FIELD,
                    format!("no skill named `{name}` was found{hint}"),
                )
            })
            .collect();
        Some(Check::new("skills found", diagnostics, None))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn agent(skills: Option<Value>) -> AgentDefinition {
        let mut agent = crate::main_agent(&agentctl_core::Settings::default());
        agent.spec.name = "writer".into();
        agent.source.path = "writer.md".into();
        if let Some(skills) = skills {
            agent.extra.insert(SKILLS_FIELD.into(), skills);
        }
        agent
    }

    #[test]
    fn skills_are_a_list_or_a_comma_separated_string() {
        assert_eq!(declared_skills(&agent(None)), Ok(None));
        let listed = declared_skills(&agent(Some(json!(["a", " b "]))));
        assert_eq!(listed, Ok(Some(vec!["a".into(), "b".into()])));
        let written = declared_skills(&agent(Some(json!("a, b,"))));
        assert_eq!(written, Ok(Some(vec!["a".into(), "b".into()])));
        assert!(declared_skills(&agent(Some(json!(3)))).is_err());
        assert!(declared_skills(&agent(Some(json!([1])))).is_err());
    }

    #[test]
    fn only_the_main_conversation_gets_every_skill() {
        let main = crate::main_agent(&agentctl_core::Settings::default());
        let mut named_main = agent(None);
        named_main.spec.name = crate::MAIN_AGENT.into();
        let set = SkillSet::default();
        assert!(is_main_conversation(&main));
        assert!(!is_main_conversation(&named_main));
        assert!(skills_of(&named_main, &set).is_empty());
    }

    #[test]
    fn no_skills_leave_the_agent_as_it_is_and_some_let_the_tool_through() {
        let mut writer = agent(None);
        writer.spec.tools.allow = Some(vec!["read_file".into()]);
        let unchanged = with_skills(writer.clone(), &[]);
        assert_eq!(unchanged.system_prompt, writer.system_prompt);
        let skill = Skill {
            name: "notes".into(),
            plugin: None,
            description: "Write\n  notes.".into(),
            allowed_tools: Vec::new(),
            license: None,
            metadata: Default::default(),
            dir: "/skills/notes".into(),
            file: "/skills/notes/SKILL.md".into(),
            scope: agentctl_core::Scope::Global,
        };
        let offered = with_skills(writer, &[skill]);
        assert!(
            offered.system_prompt.ends_with("- `notes`: Write notes.\n"),
            "{}",
            offered.system_prompt
        );
        assert_eq!(
            offered.spec.tools.allow,
            Some(vec!["read_file".into(), SKILL_TOOL.into()])
        );
    }
}
