//! Agent definition files: Markdown with YAML front matter.
//!
//! This crate reads agent files in three formats — agentctl's own (`.agentctl/agents/*.md`),
//! Claude Code subagents (`.claude/agents/**/*.md`) and Gemini CLI agents (`.gemini/agents/*.md`)
//! — and maps them onto [`agentctl_core::AgentDefinition`]. Every problem is reported with
//! `path:line:col` and the field concerned. An agent whose definition has errors is found but
//! never runnable; agent files are read through [`agentctl_config::read_input_file`]'s limits.
//!
//! - [`parse_str`] / [`parse_bytes`] / [`load_file`] load one file;
//! - [`discover`] finds every agent of a project and the user, resolving precedence, and
//!   [`Discovery::require`] finds the one to run by name (or says why it cannot);
//! - [`validate`] runs the checks of one agent, and [`Discovery::validate`] the same knowing the
//!   other agents (a graph agent's nodes): the checks behind `agentctl agents validate`;
//! - this crate checks syntax, types, names and field values; checks that need another crate's
//!   engine (CEL conditions, graphs, guardrail declarations) are [`SemanticCheck`]s implemented
//!   by that crate and passed in a [`Checks`] set to [`discover`] and [`validate`] — the
//!   parser links no database, CEL or JSON Schema engine;
//! - graph agents — an agent file with a `graph:` block, or a graph file in
//!   `.agentctl/graphs/` ([`parse_graph_str`]) — are found and looked up like agents;
//! - [`Template`] and [`render_agent_file`] write new agent files;
//! - [`agent_schema`] is the JSON Schema of the native front matter;
//! - [`installed_plugins`] reads the plugins installed (Claude Code's plugin format), whose
//!   agents, skills and commands the discoveries above name `plugin:name`.

mod claude;
mod commands;
mod declared_check;
mod detect;
mod discover;
mod discovery;
mod effort_check;
mod error;
mod foreign;
mod frontmatter;
mod gemini;
mod graph_file;
mod lookup;
mod memory_check;
mod native;
mod parse;
mod plugins;
mod regex_check;
mod report;
mod schema;
mod semantic;
mod skills;
mod source;
mod suggest;
mod templates;
mod validate;
mod value;
mod yaml_index;
mod yaml_tree;

pub use commands::{
    CommandDef, CommandDir, CommandSet, CommandSyntax, CommandWarning, MAX_COMMANDS_PER_DIR,
    MAX_EXPANDED_BYTES, command_dirs, discover_commands,
};
pub use discover::{
    AgentDir, CreateTarget, TargetReason, agent_dirs, create_target, discover, discover_in,
    discover_summaries,
};
pub use discovery::{Discovery, InvalidAgent, Shadowed};
pub use error::{DefinitionError, Diagnostic, ErrorKind, Result, Severity};
pub use graph_file::parse_graph_str;
pub use lookup::AgentLookupError;
pub use parse::{LoadedAgent, load_file, parse_bytes, parse_str};
pub use plugins::{
    InstalledPlugin, MANIFEST_DIR, MAX_MANIFEST_BYTES, PLUGIN_MANIFEST, PLUGINS_DIR, PathList,
    PluginError, PluginManifest, PluginOrigin, PluginRecord, PluginRoot, PluginSet, REGISTRY_FILE,
    Registry, confined_path, installed_plugins, is_valid_plugin_name, plugin_roots,
    read_plugin_manifest, read_registry,
};
pub use report::{Check, ValidationReport};
pub use schema::{SCHEMA_URL, agent_schema};
pub use semantic::{CheckStage, Checks, SemanticCheck};
pub use skills::{
    MAX_BUNDLED_FILES, MAX_SKILL_DESCRIPTION, MAX_SKILLS_PER_DIR, SKILL_FILE, Skill, SkillContent,
    SkillDir, SkillSet, SkillWarning, discover_skills, load_skill, read_skill, skill_dirs,
    unknown_skills,
};
pub use templates::{
    DEFAULT_PROMPT, Template, TemplateContent, TemplateEntry, TemplateOrigin, derive_description,
    find_template, render_agent_file, template_dirs, templates,
};
pub use validate::validate;

/// Whether `name` is a valid native agent name: kebab-case, 1 to 64 characters.
pub fn is_valid_name(name: &str) -> bool {
    name.len() <= 64 && validate::is_kebab_case(name)
}
