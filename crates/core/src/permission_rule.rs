//! Permission rules in Claude Code's syntax (`permissions.allow/ask/deny`), parsed into what
//! agentctl's tools are: `Bash(npm test:*)` is a command prefix for `bash`, `Read(./secrets/**)`
//! a path pattern for the reading tools, `WebFetch(domain:example.com)` a host for
//! `web_fetch`, `mcp__github__create_issue` an MCP tool. Matching a call is the policy
//! pipeline's business (`agentctl-tools`); this module only says what a rule means, or why
//! agentctl cannot map it ([`RuleError`]), so that no rule is dropped silently.

use std::fmt;

/// The list a rule is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RuleKind {
    /// `permissions.allow`: runs without asking.
    Allow,
    /// `permissions.ask`: asked every time.
    Ask,
    /// `permissions.deny`: refused.
    Deny,
}

impl RuleKind {
    /// `allow`, `ask` or `deny`.
    pub fn name(self) -> &'static str {
        match self {
            RuleKind::Allow => "allow",
            RuleKind::Ask => "ask",
            RuleKind::Deny => "deny",
        }
    }
}

impl fmt::Display for RuleKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What files a path rule is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathAccess {
    /// `Read(…)`: `read_file`, `read_many_files`, `grep`, `glob` (and the files a `bash`
    /// command names, for `deny`).
    Read,
    /// `Edit(…)`, `MultiEdit(…)`, `Write(…)`: `write_file`, `edit_file`, `delete_file` (and
    /// the files a `bash` command names, for `deny`).
    Edit,
}

/// How a `Bash(…)` rule matches a command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommandPattern {
    /// `Bash(npm test:*)`: the command's words start with these words.
    Prefix(Vec<String>),
    /// `Bash(npm test)`: the command's words are exactly these.
    Exact(Vec<String>),
    /// `Bash(git * main)`: `*` stands for any text (a trailing ` *` also matches nothing).
    Wildcard(String),
}

/// What a rule is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RuleTarget {
    /// Every call of these agentctl tools (`Bash`, `Read`, `WebSearch`, …).
    Tools(Vec<&'static str>),
    /// `bash` calls whose command (each simple command of it) matches.
    Command(CommandPattern),
    /// Calls of the reading or editing tools on paths matching a gitignore-style pattern, as
    /// written (`./secrets/**`, `//etc/**`, `~/.ssh/**`, `*.pem`).
    Path {
        /// Which tools.
        access: PathAccess,
        /// The pattern as written.
        pattern: String,
    },
    /// `web_fetch` calls to this host (`example.com`) or, written `*.example.com`, to its
    /// subdomains.
    Domain(String),
    /// The tools of MCP server `server` (as configured), all of them or one.
    Mcp {
        /// The server's name.
        server: String,
        /// The tool's name; `None` for every tool of the server.
        tool: Option<String>,
    },
}

/// One rule as written and what it means.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PermissionRule {
    /// The rule as written, e.g. `Bash(rm:*)`.
    pub text: String,
    /// What it matches.
    pub target: RuleTarget,
}

/// Why agentctl cannot map a rule.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{rule}`: {reason}")]
pub struct RuleError {
    /// The rule as written.
    pub rule: String,
    /// Why it cannot be mapped.
    pub reason: String,
}

const READ_TOOLS: &[&str] = &["read_file", "read_many_files", "grep", "glob"];
const EDIT_TOOLS: &[&str] = &["write_file", "edit_file", "delete_file"];

impl PermissionRule {
    /// Parses a rule written in Claude Code's syntax.
    ///
    /// ```
    /// use agentctl_core::{CommandPattern, PermissionRule, RuleTarget};
    ///
    /// let rule = PermissionRule::parse("Bash(npm test:*)").unwrap();
    /// assert_eq!(rule.target, RuleTarget::Command(CommandPattern::Prefix(vec!["npm".into(), "test".into()])));
    /// let rule = PermissionRule::parse("mcp__github").unwrap();
    /// assert_eq!(rule.target, RuleTarget::Mcp { server: "github".into(), tool: None });
    /// assert!(PermissionRule::parse("Bash(rm").is_err());
    /// assert!(PermissionRule::parse("NotebookEdit").is_err());
    /// ```
    pub fn parse(text: &str) -> Result<Self, RuleError> {
        let error = |reason: &str| RuleError {
            rule: text.to_owned(),
            reason: reason.to_owned(),
        };
        let trimmed = text.trim();
        let (tool, specifier) = match trimmed.split_once('(') {
            Some((tool, rest)) => {
                let Some(inner) = rest.strip_suffix(')') else {
                    return Err(error("the specifier has no closing `)`"));
                };
                (tool.trim(), Some(inner.trim()))
            }
            None => (trimmed, None),
        };
        if tool.is_empty() {
            return Err(error("no tool name"));
        }
        let target = match (tool, specifier) {
            (_, Some("")) => return Err(error("empty specifier `()`")),
            (tool, _) if tool.starts_with("mcp__") => mcp_target(tool, specifier, &error)?,
            ("Bash", Some(spec)) => RuleTarget::Command(command_pattern(spec, &error)?),
            ("Read", Some(pattern)) => path_target(PathAccess::Read, pattern),
            ("Edit" | "MultiEdit" | "Write", Some(pattern)) => {
                path_target(PathAccess::Edit, pattern)
            }
            ("WebFetch", Some(spec)) => match spec.strip_prefix("domain:") {
                Some(host) if !host.trim().is_empty() => {
                    RuleTarget::Domain(host.trim().trim_end_matches('.').to_ascii_lowercase())
                }
                _ => return Err(error("WebFetch takes `domain:HOST`")),
            },
            (tool, None) => RuleTarget::Tools(plain_tools(tool).ok_or_else(|| {
                error("no agentctl tool answers to this name; the rule has no effect")
            })?),
            (_, Some(_)) => {
                return Err(error(
                    "agentctl cannot match this tool's arguments; write the tool name alone",
                ));
            }
        };
        Ok(Self {
            text: text.to_owned(),
            target,
        })
    }
}

/// The agentctl tools a Claude Code tool name stands for in a rule without specifier.
fn plain_tools(tool: &str) -> Option<Vec<&'static str>> {
    let tools: &[&'static str] = match tool {
        "Bash" => &["bash"],
        "Read" => READ_TOOLS,
        "Edit" | "MultiEdit" | "Write" => EDIT_TOOLS,
        "Grep" => &["grep"],
        "Glob" | "LS" => &["glob"],
        "WebFetch" => &["web_fetch"],
        "WebSearch" => &["web_search"],
        "Task" | "Agent" => &["task"],
        "TodoWrite" => &["todo_write"],
        _ => return None,
    };
    Some(tools.to_vec())
}

fn path_target(access: PathAccess, pattern: &str) -> RuleTarget {
    RuleTarget::Path {
        access,
        pattern: pattern.to_owned(),
    }
}

fn mcp_target(
    tool: &str,
    specifier: Option<&str>,
    error: &dyn Fn(&str) -> RuleError,
) -> Result<RuleTarget, RuleError> {
    if specifier.is_some() {
        return Err(error("MCP rules take no specifier"));
    }
    let rest = tool.trim_start_matches("mcp__");
    let (server, tool) = match rest.split_once("__") {
        Some((server, "*" | "")) => (server, None),
        Some((server, tool)) => (server, Some(tool.to_owned())),
        None => (rest, None),
    };
    if server.is_empty() {
        return Err(error("no server name after `mcp__`"));
    }
    Ok(RuleTarget::Mcp {
        server: server.to_owned(),
        tool,
    })
}

fn command_pattern(
    spec: &str,
    error: &dyn Fn(&str) -> RuleError,
) -> Result<CommandPattern, RuleError> {
    let words =
        |text: &str| -> Vec<String> { text.split_whitespace().map(str::to_owned).collect() };
    if let Some(prefix) = spec.strip_suffix(":*") {
        let prefix = words(prefix);
        if prefix.is_empty() || prefix.iter().any(|word| word.contains('*')) {
            return Err(error("`:*` needs a command before it, without `*`"));
        }
        return Ok(CommandPattern::Prefix(prefix));
    }
    if spec.contains(":*") {
        return Err(error("`:*` may only end the specifier"));
    }
    if spec == "*" {
        return Ok(CommandPattern::Wildcard("*".to_owned()));
    }
    if spec.contains('*') {
        return Ok(CommandPattern::Wildcard(words(spec).join(" ")));
    }
    Ok(CommandPattern::Exact(words(spec)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(text: &str) -> RuleTarget {
        PermissionRule::parse(text).unwrap().target
    }

    #[test]
    fn claude_code_rules_map_to_agentctl_tools() {
        assert_eq!(target("Bash"), RuleTarget::Tools(vec!["bash"]));
        assert_eq!(
            target("Bash(npm   run build)"),
            RuleTarget::Command(CommandPattern::Exact(vec![
                "npm".into(),
                "run".into(),
                "build".into()
            ]))
        );
        assert_eq!(
            target("Bash(git * main)"),
            RuleTarget::Command(CommandPattern::Wildcard("git * main".into()))
        );
        assert_eq!(
            target("Read(./secrets/**)"),
            RuleTarget::Path {
                access: PathAccess::Read,
                pattern: "./secrets/**".into()
            }
        );
        assert_eq!(
            target("MultiEdit(src/**)"),
            RuleTarget::Path {
                access: PathAccess::Edit,
                pattern: "src/**".into()
            }
        );
        assert_eq!(
            target("WebFetch(domain:Example.COM.)"),
            RuleTarget::Domain("example.com".into())
        );
        assert_eq!(
            target("mcp__github__create_issue"),
            RuleTarget::Mcp {
                server: "github".into(),
                tool: Some("create_issue".into())
            }
        );
        assert_eq!(
            target("mcp__github__*"),
            RuleTarget::Mcp {
                server: "github".into(),
                tool: None
            }
        );
        assert_eq!(target("Edit"), RuleTarget::Tools(EDIT_TOOLS.to_vec()));
    }

    #[test]
    fn rules_agentctl_cannot_map_say_why() {
        for (rule, reason) in [
            ("Bash(rm:*", "closing"),
            ("Bash()", "empty"),
            ("Bash(rm:* -rf)", "only end"),
            ("Bash(*:*)", "without `*`"),
            ("WebFetch(example.com)", "domain:"),
            ("NotebookEdit", "no agentctl tool"),
            ("Grep(foo)", "arguments"),
            ("mcp__", "no server"),
            ("mcp__x(y)", "no specifier"),
            ("(x)", "no tool"),
        ] {
            let error = PermissionRule::parse(rule).unwrap_err();
            assert!(error.reason.contains(reason), "{rule}: {error}");
            assert_eq!(error.rule, rule);
        }
    }
}
