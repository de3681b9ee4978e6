//! An agent's tool allow and deny lists, compiled, and the refusal the model reads.

use crate::agent::ToolPolicy;
use globset::{Glob, GlobSet, GlobSetBuilder};

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
