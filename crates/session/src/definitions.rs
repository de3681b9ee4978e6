//! Agent files as a front end lists, shows, creates and validates them: discovery, the
//! loaded agents, validation reports and their diagnostics, and the native file format.

pub use crate::agent_file::{AgentFileError, write_agent_file};
pub use agentctl_definitions::{
    AgentDir, AgentLookupError, CreateTarget, DEFAULT_PROMPT, Diagnostic, Discovery, LoadedAgent,
    Severity, TargetReason, Template, TemplateContent, TemplateEntry, TemplateOrigin,
    ValidationReport, agent_dirs, agent_schema, create_target, derive_description, find_template,
    is_valid_name, load_file, parse_str, render_agent_file, template_dirs, templates,
};
pub use agentctl_definitions::{
    CommandDef, CommandSet, CommandSyntax, CommandWarning, SKILL_FILE, Skill, SkillContent,
    SkillSet, SkillWarning, command_dirs, read_skill, skill_dirs,
};
pub use agentctl_definitions::{
    InstalledPlugin, PluginError, PluginManifest, PluginOrigin, PluginRecord, PluginSet,
};
