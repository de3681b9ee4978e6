//! The tool registry (type-erased tools by name) and the per-agent tool filter.

use crate::agent::ToolPolicy;
use crate::conversation::ToolSpec;
use crate::tool::{Tool, TypedAdapter, TypedTool};
use globset::{Glob, GlobSet, GlobSetBuilder};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Every tool a runtime can offer, by name.
///
/// Which of them an agent actually sees is decided per run by a [`ToolFilter`] built from the
/// agent's `tools.allow` / `tools.deny` lists.
#[derive(Clone, Default)]
pub struct ToolRegistry {
    tools: BTreeMap<String, Arc<dyn Tool>>,
}

impl std::fmt::Debug for ToolRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.tools.keys()).finish()
    }
}

impl ToolRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a tool, replacing (and returning) any tool of the same name.
    pub fn register(&mut self, tool: impl Tool + 'static) -> Option<Arc<dyn Tool>> {
        self.register_arc(Arc::new(tool))
    }

    /// Adds a shared tool, replacing (and returning) any tool of the same name.
    pub fn register_arc(&mut self, tool: Arc<dyn Tool>) -> Option<Arc<dyn Tool>> {
        self.tools.insert(tool.name().to_owned(), tool)
    }

    /// Adds a typed tool; its JSON Schema is derived from its argument type once, here.
    pub fn register_typed<T: TypedTool>(&mut self, tool: T) -> Option<Arc<dyn Tool>> {
        self.register(TypedAdapter::new(tool))
    }

    /// The tool of that name.
    pub fn get(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        self.tools.get(name)
    }

    /// True when a tool of that name is registered.
    pub fn contains(&self, name: &str) -> bool {
        self.tools.contains_key(name)
    }

    /// Tool names, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.tools.keys().map(String::as_str)
    }

    /// Number of tools.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// True when no tool is registered.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// Specs of every tool, sorted by name, as offered to a model.
    pub fn specs(&self) -> Vec<ToolSpec> {
        self.tools
            .values()
            .map(|tool| spec_of(tool.as_ref()))
            .collect()
    }

    /// The tools a filter lets through, sorted by name.
    pub fn filtered(&self, filter: &ToolFilter) -> Vec<Arc<dyn Tool>> {
        self.tools
            .iter()
            .filter(|(name, _)| filter.allows(name))
            .map(|(_, tool)| Arc::clone(tool))
            .collect()
    }

    /// Every tool, sorted by name.
    pub fn iter(&self) -> impl Iterator<Item = &Arc<dyn Tool>> {
        self.tools.values()
    }
}

/// The spec a model sees for a tool.
pub fn spec_of(tool: &dyn Tool) -> ToolSpec {
    ToolSpec {
        name: tool.name().to_owned(),
        description: tool.description().to_owned(),
        parameters: tool.parameters(),
    }
}

/// The refusal the model reads when an agent calls a tool outside its allowed set.
pub fn not_allowed(tool: &str) -> String {
    format!("Tool not allowed for this agent: {tool}")
}

/// An agent's tool allow and deny lists, compiled. Entries are names or glob patterns
/// (`mcp.github.*`, `read_*`); deny wins over allow; no allow list means every tool.
#[derive(Debug, Clone, Default)]
pub struct ToolFilter {
    allow: Option<GlobSet>,
    deny: Option<GlobSet>,
}

/// A tool pattern that is not a valid glob.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid tool pattern `{pattern}` in tools.{list}: {message}")]
pub struct ToolPatternError {
    /// The pattern as written.
    pub pattern: String,
    /// `allow` or `deny`.
    pub list: &'static str,
    /// What globset reported.
    pub message: String,
}

impl ToolFilter {
    /// Lets every tool through.
    pub fn allow_all() -> Self {
        Self::default()
    }

    /// Compiles an agent's tool policy.
    pub fn new(policy: &ToolPolicy) -> Result<Self, ToolPatternError> {
        let allow = policy
            .allow
            .as_deref()
            .map(|list| compile(list, "allow"))
            .transpose()?;
        let deny = if policy.deny.is_empty() {
            None
        } else {
            Some(compile(&policy.deny, "deny")?)
        };
        Ok(Self { allow, deny })
    }

    /// True when the agent may call `name`: allowed (or no allow list) and not denied.
    pub fn allows(&self, name: &str) -> bool {
        let denied = self.deny.as_ref().is_some_and(|deny| deny.is_match(name));
        let allowed = self.allow.as_ref().is_none_or(|allow| allow.is_match(name));
        allowed && !denied
    }
}

fn compile(patterns: &[String], list: &'static str) -> Result<GlobSet, ToolPatternError> {
    let mut builder = GlobSetBuilder::new();
    for pattern in patterns {
        let glob = Glob::new(pattern.trim()).map_err(|error| ToolPatternError {
            pattern: pattern.clone(),
            list,
            message: error.kind().to_string(),
        })?;
        builder.add(glob);
    }
    builder.build().map_err(|error| ToolPatternError {
        pattern: patterns.join(","),
        list,
        message: error.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(allow: Option<&[&str]>, deny: &[&str]) -> ToolPolicy {
        ToolPolicy {
            allow: allow.map(|list| list.iter().map(|s| s.to_string()).collect()),
            deny: deny.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn no_allow_list_allows_everything_but_deny_wins() {
        let filter = ToolFilter::new(&policy(None, &["bash", "mcp.github.delete_*"])).unwrap();
        assert!(filter.allows("read_file"));
        assert!(filter.allows("mcp.github.create_issue"));
        assert!(!filter.allows("bash"));
        assert!(!filter.allows("mcp.github.delete_repo"));
    }

    #[test]
    fn allow_list_with_globs() {
        let filter =
            ToolFilter::new(&policy(Some(&["read_*", "grep"]), &["read_many_files"])).unwrap();
        assert!(filter.allows("read_file"));
        assert!(filter.allows("grep"));
        assert!(!filter.allows("read_many_files"));
        assert!(!filter.allows("write_file"));
        let none = ToolFilter::new(&policy(Some(&[]), &[])).unwrap();
        assert!(!none.allows("grep"));
    }

    #[test]
    fn bad_pattern_names_list() {
        let error = ToolFilter::new(&policy(Some(&["read_[x"]), &[])).unwrap_err();
        assert_eq!(error.list, "allow");
        assert!(
            error
                .to_string()
                .starts_with("invalid tool pattern `read_[x` in tools.allow")
        );
    }
}
