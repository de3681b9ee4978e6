//! Matchers: which tools a hook fires for. Claude Code's matchers are tool names or regular
//! expressions over them (`Bash`, `Edit|Write`, `mcp__github__.*`, `*` or empty for all); a
//! call here carries agentctl's name (`bash`, `mcp.github.create_issue`), so a matcher is
//! tried on that name, on Claude Code's name and on Gemini CLI's name of the same tool.
//! Anchored: `Bash` does not fire for a tool whose name only contains it.
//!
//! Write tools are matched by every name a guard on writes would use: `delete_file` answers
//! to `Write` and `Edit` too, so that a hook guarding `Edit|Write` sees deletions.

use regex::Regex;

/// A compiled matcher.
#[derive(Debug, Clone)]
pub struct Matcher {
    pattern: String,
    regex: Option<Regex>,
}

impl PartialEq for Matcher {
    fn eq(&self, other: &Self) -> bool {
        self.pattern == other.pattern
    }
}

impl Eq for Matcher {}

impl Matcher {
    /// Matches every tool.
    pub fn all() -> Self {
        Self {
            pattern: String::new(),
            regex: None,
        }
    }

    /// Compiles `pattern`; `*` and the empty string match every tool.
    ///
    /// ```
    /// use agentctl_session::Matcher;
    /// let matcher = Matcher::new("Edit|Write").unwrap();
    /// assert!(matcher.matches_tool("write_file"));
    /// assert!(matcher.matches_tool("edit_file"));
    /// assert!(!matcher.matches_tool("bash"));
    /// assert!(Matcher::new("mcp__github__.*").unwrap().matches_tool("mcp.github.create_issue"));
    /// ```
    pub fn new(pattern: &str) -> Result<Self, String> {
        let pattern = pattern.trim();
        if pattern.is_empty() || pattern == "*" {
            return Ok(Self::all());
        }
        let regex = Regex::new(&format!("^(?:{pattern})$"))
            .map_err(|error| format!("not a valid regular expression: {error}"))?;
        Ok(Self {
            pattern: pattern.to_owned(),
            regex: Some(regex),
        })
    }

    /// The pattern as written (empty for all).
    pub fn pattern(&self) -> &str {
        &self.pattern
    }

    /// Whether it fires for the tool agentctl calls `tool`.
    pub fn matches_tool(&self, tool: &str) -> bool {
        let Some(regex) = &self.regex else {
            return true;
        };
        names_of(tool).iter().any(|name| regex.is_match(name))
    }

    /// Whether it fires for `subject` (a source, a notification type): events other than
    /// tool events.
    pub fn matches(&self, subject: &str) -> bool {
        self.regex
            .as_ref()
            .is_none_or(|regex| regex.is_match(subject))
    }
}

/// The names a tool goes by: agentctl's, Claude Code's and Gemini CLI's.
pub(crate) fn names_of(tool: &str) -> Vec<String> {
    let mut names = vec![tool.to_owned()];
    if let Some(rest) = tool.strip_prefix("mcp.")
        && let Some((server, name)) = rest.split_once('.')
    {
        names.push(format!("mcp__{server}__{name}"));
    }
    let others: &[&str] = match tool {
        "bash" => &["Bash", "run_shell_command"],
        "read_file" => &["Read"],
        "read_many_files" => &["Read", "read_many_files"],
        "write_file" => &["Write"],
        "edit_file" => &["Edit", "MultiEdit", "replace"],
        "delete_file" => &["Write", "Edit"],
        "glob" => &["Glob", "LS", "list_directory"],
        "grep" => &["Grep", "search_file_content"],
        "web_fetch" => &["WebFetch"],
        "web_search" => &["WebSearch", "google_web_search"],
        "task" => &["Task", "Agent"],
        "todo_write" => &["TodoWrite", "write_todos"],
        _ => &[],
    };
    names.extend(others.iter().map(|name| (*name).to_owned()));
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchored_names_of_every_convention() {
        let bash = Matcher::new("Bash").unwrap();
        assert!(bash.matches_tool("bash"));
        assert!(!bash.matches_tool("bash_extra"));
        assert!(
            Matcher::new("run_shell_command")
                .unwrap()
                .matches_tool("bash")
        );
        assert!(Matcher::new("*").unwrap().matches_tool("anything"));
        assert!(Matcher::new("").unwrap().matches_tool("anything"));
        assert!(Matcher::new("Write").unwrap().matches_tool("delete_file"));
        assert!(
            Matcher::new("mcp__srv__tool")
                .unwrap()
                .matches_tool("mcp.srv.tool")
        );
        assert!(!Matcher::new("Read").unwrap().matches_tool("bash"));
        assert!(Matcher::new("[").is_err());
    }
}
