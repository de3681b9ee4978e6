//! An agent's tool allow and deny lists, compiled with the tools its declarations bring, and
//! the refusal the model reads.

use crate::agent::{AgentSpec, ToolPolicy};
use globset::{Glob, GlobSet, GlobSetBuilder};

/// The refusal the model reads when an agent calls a tool outside its allowed set.
pub fn not_allowed(tool: &str) -> String {
    format!("Tool not allowed for this agent: {tool}")
}

/// An agent's tool allow and deny lists, compiled. Entries are names or glob patterns
/// (`mcp.github.*`, `read_*`); deny wins over allow; no allow list means every tool. Built
/// with [`for_agent`](Self::for_agent), it also lets through the tools the agent declares
/// (handoffs, memory; see [`AgentSpec::declared_tools`]) whatever the allow list says —
/// unless denied.
#[derive(Debug, Clone, Default)]
pub struct ToolFilter {
    allow: Option<Patterns>,
    deny: Option<Patterns>,
    /// Tools the agent's declarations bring: allowed unless denied.
    declared: Vec<String>,
}

/// One list: plain names are compared as they are, and a name followed by one `*` (`read_*`,
/// `handoff_to_*`, `mcp.github.*`) as a prefix — building a glob matcher (an Aho-Corasick
/// automaton, about 8 µs for one such pattern) costs more than a whole run's bookkeeping, and
/// most lists are names and prefixes; other patterns go to a [`GlobSet`].
#[derive(Debug, Clone, Default)]
struct Patterns {
    names: Vec<String>,
    prefixes: Vec<String>,
    globs: Option<GlobSet>,
}

impl Patterns {
    fn is_match(&self, name: &str) -> bool {
        self.names.iter().any(|plain| plain == name)
            || self.prefixes.iter().any(|prefix| name.starts_with(prefix))
            || self
                .globs
                .as_ref()
                .is_some_and(|globs| globs.is_match(name))
    }
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
        Ok(Self {
            allow,
            deny,
            declared: Vec::new(),
        })
    }

    /// Compiles the tool policy of the agent `spec` describes, with the tools its
    /// declarations bring ([`AgentSpec::declared_tools`]): a `handoffs:` entry's
    /// `handoff_to_<agent>` and the memory tools are allowed whatever `tools.allow` says, and
    /// removed only by `tools.deny`. What the agent loop, the approval gate and `agents tools`
    /// use.
    ///
    /// ```
    /// use agentctl_core::{AgentSpec, Handoff, ToolFilter, ToolPolicy};
    ///
    /// let mut spec = AgentSpec {
    ///     name: "triage".into(),
    ///     tools: ToolPolicy { allow: Some(vec!["read_file".into()]), deny: vec![] },
    ///     handoffs: vec![Handoff { to: "billing".into(), ..Handoff::default() }],
    ///     ..AgentSpec::default()
    /// };
    /// let filter = ToolFilter::for_agent(&spec)?;
    /// assert!(filter.allows("handoff_to_billing") && filter.allows("read_file"));
    /// assert!(!filter.allows("bash") && !filter.allows("handoff_to_sales"));
    /// spec.tools.deny = vec!["handoff_to_*".into()];
    /// assert!(!ToolFilter::for_agent(&spec)?.allows("handoff_to_billing"));
    /// # Ok::<(), agentctl_core::ToolPatternError>(())
    /// ```
    pub fn for_agent(spec: &AgentSpec) -> Result<Self, ToolPatternError> {
        let mut filter = Self::new(&spec.tools)?;
        filter.declared = spec
            .declared_tools()
            .into_iter()
            .map(|tool| tool.name)
            .collect();
        Ok(filter)
    }

    /// True when the agent may call `name`: allowed (no allow list, listed, or declared) and
    /// not denied.
    pub fn allows(&self, name: &str) -> bool {
        let denied = self.deny.as_ref().is_some_and(|deny| deny.is_match(name));
        let allowed = self.allow.as_ref().is_none_or(|allow| allow.is_match(name))
            || self.declared.iter().any(|declared| declared == name);
        allowed && !denied
    }
}

/// Characters that make an entry a glob pattern rather than a name.
const GLOB_SYNTAX: &[char] = &['*', '?', '[', ']', '{', '}', '\\'];

fn compile(patterns: &[String], list: &'static str) -> Result<Patterns, ToolPatternError> {
    let mut names = Vec::new();
    let mut prefixes = Vec::new();
    let mut builder: Option<GlobSetBuilder> = None;
    for pattern in patterns {
        let pattern = pattern.trim();
        if !pattern.contains(GLOB_SYNTAX) {
            names.push(pattern.to_owned());
            continue;
        }
        // `*` matches any run of characters (separators too: tool names have none to keep).
        if let Some(prefix) = pattern.strip_suffix('*')
            && !prefix.contains(GLOB_SYNTAX)
        {
            prefixes.push(prefix.to_owned());
            continue;
        }
        let glob = Glob::new(pattern).map_err(|error| ToolPatternError {
            pattern: pattern.to_owned(),
            list,
            message: error.kind().to_string(),
        })?;
        builder.get_or_insert_with(GlobSetBuilder::new).add(glob);
    }
    let globs = builder
        .map(|builder| builder.build())
        .transpose()
        .map_err(|error| ToolPatternError {
            pattern: patterns.join(","),
            list,
            message: error.to_string(),
        })?;
    Ok(Patterns {
        names,
        prefixes,
        globs,
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
    fn plain_names_match_as_the_same_glob_would() {
        let names = ["grep", "mcp.github.get_issue", "read_file", " spaced "];
        let candidates = [
            "grep",
            "grep2",
            "gre",
            "mcp.github.get_issue",
            "mcp.github.get_issueX",
            "mcpXgithub.get_issue",
            "read_file",
            "spaced",
            " spaced ",
            "",
        ];
        let filter = ToolFilter::new(&policy(Some(&names), &[])).unwrap();
        let mut globs = GlobSetBuilder::new();
        for name in names {
            globs.add(Glob::new(name.trim()).unwrap());
        }
        let globs = globs.build().unwrap();
        for candidate in candidates {
            assert_eq!(
                filter.allows(candidate),
                globs.is_match(candidate),
                "{candidate:?}"
            );
        }
    }

    #[test]
    fn prefixes_match_as_the_same_glob_would() {
        let patterns = [
            "read_*",
            "handoff_to_*",
            "mcp.github.*",
            "*",
            "x*",
            "a?b*",
            "[ab]*",
        ];
        let candidates = [
            "read_file",
            "read_",
            "read",
            "READ_file",
            "handoff_to_billing",
            "handoff_to_",
            "xhandoff_to_b",
            "mcp.github.get_issue",
            "mcp.github.",
            "mcp.githubX",
            "mcp.github/x",
            "a.b",
            "acbz",
            "bz",
            "x",
            "",
        ];
        for pattern in patterns {
            let filter = ToolFilter::new(&policy(Some(&[pattern]), &[])).unwrap();
            let glob = Glob::new(pattern).unwrap().compile_matcher();
            for candidate in candidates {
                assert_eq!(
                    filter.allows(candidate),
                    glob.is_match(candidate),
                    "{pattern:?} on {candidate:?}"
                );
            }
        }
    }

    #[test]
    fn declared_tools_pass_any_allow_list_but_not_a_deny() {
        use crate::{Handoff, LongTermMemory, MemorySpec};
        let mut spec = AgentSpec {
            name: "a".into(),
            tools: policy(Some(&["read_file"]), &[]),
            handoffs: vec![Handoff {
                to: "b".into(),
                ..Handoff::default()
            }],
            memory: Some(MemorySpec {
                session: vec!["k".into()],
                long_term: Some(LongTermMemory::default()),
                scope: None,
            }),
            ..AgentSpec::default()
        };
        let filter = ToolFilter::for_agent(&spec).unwrap();
        for tool in [
            "read_file",
            "handoff_to_b",
            "memory_get",
            "memory_set",
            "remember",
            "recall",
        ] {
            assert!(filter.allows(tool), "{tool}");
        }
        // Only what is declared: not another handoff, not a prefix of one.
        for tool in [
            "handoff_to_c",
            "handoff_to_",
            "handoff_to_b2",
            "handoff_to_b ",
            " handoff_to_b",
            "HANDOFF_TO_B",
            "handoff_to_*",
            "grep",
            "task",
        ] {
            assert!(!filter.allows(tool), "{tool}");
        }
        // An empty allow list still offers what the agent declares.
        spec.tools = policy(Some(&[]), &[]);
        assert!(ToolFilter::for_agent(&spec).unwrap().allows("handoff_to_b"));
        // A deny by name or by pattern wins.
        for deny in [
            "handoff_to_b",
            " handoff_to_b ",
            "handoff_to_*",
            "handoff_to_[ab]",
            "*",
            "memory_*",
        ] {
            spec.tools = policy(Some(&["read_file"]), &[deny]);
            let filter = ToolFilter::for_agent(&spec).unwrap();
            let expected = !Glob::new(deny.trim())
                .unwrap()
                .compile_matcher()
                .is_match("handoff_to_b");
            assert_eq!(filter.allows("handoff_to_b"), expected, "{deny}");
        }
        spec.tools = policy(None, &["memory_*"]);
        let filter = ToolFilter::for_agent(&spec).unwrap();
        assert!(!filter.allows("memory_get") && filter.allows("remember"));
        // The policy alone knows nothing of declarations.
        spec.tools = policy(Some(&["read_file"]), &[]);
        assert!(!ToolFilter::new(&spec.tools).unwrap().allows("handoff_to_b"));
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
