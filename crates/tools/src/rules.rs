//! Permission rules (`permissions.allow/ask/deny`, Claude Code's syntax) in the one policy
//! pipeline.
//!
//! [`PermissionRules::judge`] answers what the rules say about one call, `deny` first, then
//! `ask`, then `allow`; the [`Gate`](crate::Gate) puts that answer into its chain. A `deny`
//! rule wins wherever it was written. How each kind of rule matches:
//!
//! - `Bash(npm test:*)`, `Bash(npm test)`, `Bash(git * main)` are matched against every
//!   simple command of the parsed line — in lists, pipelines, substitutions, subshells,
//!   `sh -c` scripts and `eval` — so `echo x; rm -rf /` meets `Bash(rm:*)`. A `deny`/`ask`
//!   rule also sees through program paths (`/bin/rm`) and wrappers (`sudo`, `env`, `xargs`,
//!   `find -exec`, …); a line whose commands cannot all be read (`$CMD x`, `eval "$X"`, a
//!   parse error) is asked when a `Bash(…)` rule would deny or ask. An `allow` rule lets a line
//!   run only when every one of its commands, as written, is allowed.
//! - `Read(glob)` and `Edit(glob)` match the paths a call names by every spelling (see
//!   [`paths`]); a `deny` also meets a `bash` command naming such a path as an argument or
//!   a redirection target, and a search (`grep`, `read_many_files`) of a folder holding a
//!   denied path is asked.
//! - `WebFetch(domain:host)` matches `web_fetch` calls by the URL's host; `mcp__server` and
//!   `mcp__server__tool` match MCP tools (`mcp.server.tool`); a plain name matches every call.
//!
//! An `allow` never lets a call of critical risk run unasked, nor one changing a protected
//! path (the gate asks those first).

mod command;
mod named;
mod paths;

use agentctl_core::{
    PathAccess, PermissionRule, PermissionSettings, RuleError, RuleKind, RuleTarget, Tool,
};
use paths::{PathPattern, spellings};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// What the rules say about a call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RuleVerdict {
    /// A `deny` rule matches: the call is refused.
    Deny {
        /// The rule as written.
        rule: String,
    },
    /// An `ask` rule matches, or a `deny`/`ask` rule might and the call cannot show it does
    /// not (`why`): a person decides.
    Ask {
        /// The rule as written.
        rule: String,
        /// Why it cannot be told, when it might match.
        unsure: Option<&'static str>,
    },
    /// `allow` rules cover the whole call.
    Allow {
        /// The (first) rule as written.
        rule: String,
    },
}

/// The compiled rules of `permissions.*`.
#[derive(Debug, Clone, Default)]
pub struct PermissionRules {
    rules: Vec<Compiled>,
    root: PathBuf,
    home: Option<PathBuf>,
}

#[derive(Debug, Clone)]
struct Compiled {
    kind: RuleKind,
    text: String,
    matcher: Matcher,
}

#[derive(Debug, Clone)]
enum Matcher {
    Tools(Vec<&'static str>),
    Command(agentctl_core::CommandPattern),
    Path {
        access: PathAccess,
        patterns: Vec<PathPattern>,
    },
    Domain(String),
    Mcp {
        server: String,
        tool: Option<String>,
    },
}

/// One answer of a matcher: yes, no, or cannot tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Hit {
    No,
    Yes,
    Unsure(&'static str),
}

const READ_TOOLS: &[&str] = &["read_file", "read_many_files", "grep", "glob"];
const EDIT_TOOLS: &[&str] = &["write_file", "edit_file", "delete_file"];

impl PermissionRules {
    /// Compiles the rules of `settings`; paths are judged against the project `root` and
    /// the user's `home` (`~/…`). A rule agentctl cannot map is an error (settings files
    /// report and leave such rules out when they are loaded).
    pub fn new(
        settings: &PermissionSettings,
        root: &Path,
        home: Option<&Path>,
    ) -> Result<Self, RuleError> {
        let mut roots = vec![paths::clean(root)];
        if let Ok(real) = root.canonicalize()
            && !roots.contains(&real)
        {
            roots.push(real);
        }
        let lists = [
            (RuleKind::Deny, &settings.deny),
            (RuleKind::Ask, &settings.ask),
            (RuleKind::Allow, &settings.allow),
        ];
        let mut rules = Vec::new();
        for (kind, list) in lists {
            for text in list {
                let rule = PermissionRule::parse(text)?;
                rules.push(Compiled {
                    kind,
                    text: rule.text,
                    matcher: compile(rule.target, &roots, home),
                });
            }
        }
        Ok(Self {
            rules,
            root: roots.swap_remove(0),
            home: home.map(Path::to_path_buf),
        })
    }

    /// True when there is no rule.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// What the rules say about a call of `tool` with `arguments` (`None`: the tool as a
    /// whole, for listings, where only rules without specifier apply). `None` when no rule
    /// speaks.
    pub fn judge(&self, tool: &dyn Tool, arguments: Option<&Value>) -> Option<RuleVerdict> {
        let call = Call::new(tool, arguments);
        for kind in [RuleKind::Deny, RuleKind::Ask] {
            let mut unsure = None;
            for rule in self.rules.iter().filter(|rule| rule.kind == kind) {
                match self.hit(&call, &rule.matcher, kind == RuleKind::Deny) {
                    Hit::Yes if kind == RuleKind::Deny => {
                        return Some(RuleVerdict::Deny {
                            rule: rule.text.clone(),
                        });
                    }
                    Hit::Yes => {
                        return Some(RuleVerdict::Ask {
                            rule: rule.text.clone(),
                            unsure: None,
                        });
                    }
                    Hit::Unsure(why) => unsure = unsure.or(Some((rule, why))),
                    Hit::No => {}
                }
            }
            if let Some((rule, why)) = unsure {
                return Some(RuleVerdict::Ask {
                    rule: rule.text.clone(),
                    unsure: Some(why),
                });
            }
        }
        self.allowed(&call)
            .map(|rule| RuleVerdict::Allow { rule: rule.clone() })
    }

    /// Whether a `deny`/`ask` matcher meets the call (any command, any spelling).
    fn hit(&self, call: &Call<'_>, matcher: &Matcher, deny: bool) -> Hit {
        match matcher {
            Matcher::Tools(tools) => bool_hit(tools.contains(&call.name)),
            Matcher::Mcp { server, tool } => bool_hit(mcp_matches(call.name, server, tool)),
            Matcher::Domain(domain) => bool_hit(
                call.name == "web_fetch"
                    && call.host().is_some_and(|host| host_matches(&host, domain)),
            ),
            Matcher::Command(pattern) => {
                let Some(list) = call.commands() else {
                    return Hit::No;
                };
                let hit = list
                    .commands
                    .iter()
                    .any(|command| command::matches_any_view(pattern, &texts(&command.words)));
                match (hit, list.complete) {
                    (true, _) => Hit::Yes,
                    (false, false) => Hit::Unsure("part of the command is computed when it runs"),
                    (false, true) => Hit::No,
                }
            }
            Matcher::Path { access, patterns } => self.path_hit(call, *access, patterns, deny),
        }
    }

    fn path_hit(
        &self,
        call: &Call<'_>,
        access: PathAccess,
        patterns: &[PathPattern],
        deny: bool,
    ) -> Hit {
        let any = |path: &str| {
            spellings(path, &self.root, self.home.as_deref())
                .iter()
                .any(|spelled| patterns.iter().any(|pattern| pattern.matches(spelled)))
        };
        let may_hold = |folder: &str| {
            spellings(folder, &self.root, self.home.as_deref())
                .iter()
                .any(|folder| patterns.iter().any(|pattern| pattern.may_lie_below(folder)))
        };
        if call.name == "bash" && deny {
            // Beyond Claude Code: a denied path named by a command is denied too, and one a
            // computed word may name is asked (the sandbox holds what exists either way).
            let named = call.command_paths();
            if named.literal.iter().any(|path| any(path)) {
                return Hit::Yes;
            }
            if named.computed.iter().any(|folder| may_hold(folder)) {
                return Hit::Unsure("a path of the command is computed when it runs");
            }
            let glob_meets = |glob: &String| {
                spellings(glob, &self.root, self.home.as_deref())
                    .iter()
                    .any(|glob| {
                        patterns
                            .iter()
                            .any(|pattern| named::glob_may_meet(glob, pattern.literal()))
                    })
            };
            if named.globs.iter().any(glob_meets) {
                return Hit::Unsure("a glob of the command may match a path the rule names");
            }
            return Hit::No;
        }
        if !tools_of(access).contains(&call.name) {
            return Hit::No;
        }
        let named = call.paths();
        if named.iter().any(|path| any(path)) {
            return Hit::Yes;
        }
        let searched = matches!(call.name, "grep" | "read_many_files");
        if searched && named.iter().any(|path| may_hold(path)) {
            return Hit::Unsure("the search may reach files the rule names");
        }
        Hit::No
    }

    /// The first `allow` rule when `allow` rules cover the whole call.
    fn allowed(&self, call: &Call<'_>) -> Option<&String> {
        let allows = || {
            self.rules
                .iter()
                .filter(|rule| rule.kind == RuleKind::Allow)
        };
        if let Some(rule) = allows().find(|rule| match &rule.matcher {
            Matcher::Tools(tools) => tools.contains(&call.name),
            Matcher::Mcp { server, tool } => mcp_matches(call.name, server, tool),
            Matcher::Domain(domain) => {
                call.name == "web_fetch"
                    && call.host().is_some_and(|host| host_matches(&host, domain))
            }
            _ => false,
        }) {
            return Some(&rule.text);
        }
        if call.name == "bash" {
            let list = call.commands()?;
            if !list.complete || list.commands.is_empty() {
                return None;
            }
            let mut first = None;
            for command in &list.commands {
                let words = texts(&command.words);
                let rule = allows().find(|rule| {
                    matches!(&rule.matcher, Matcher::Command(pattern) if command::matches(pattern, &words))
                })?;
                first.get_or_insert(&rule.text);
            }
            return first;
        }
        let named = call.paths();
        if named.is_empty() {
            return None;
        }
        let mut first = None;
        for path in &named {
            for spelled in spellings(path, &self.root, self.home.as_deref()) {
                let rule = allows().find(|rule| match &rule.matcher {
                    Matcher::Path { access, patterns } => {
                        tools_of(*access).contains(&call.name)
                            && patterns.iter().any(|pattern| pattern.matches(&spelled))
                    }
                    _ => false,
                })?;
                first.get_or_insert(&rule.text);
            }
        }
        first
    }
}

fn compile(target: RuleTarget, roots: &[PathBuf], home: Option<&Path>) -> Matcher {
    match target {
        RuleTarget::Tools(tools) => Matcher::Tools(tools),
        RuleTarget::Command(pattern) => Matcher::Command(pattern),
        RuleTarget::Path { access, pattern } => Matcher::Path {
            access,
            patterns: PathPattern::new(&pattern, roots, home),
        },
        RuleTarget::Domain(domain) => Matcher::Domain(domain),
        RuleTarget::Mcp { server, tool } => Matcher::Mcp {
            server: sanitize(&server),
            tool: tool.as_deref().map(sanitize),
        },
    }
}

fn bool_hit(hit: bool) -> Hit {
    if hit { Hit::Yes } else { Hit::No }
}

fn tools_of(access: PathAccess) -> &'static [&'static str] {
    match access {
        PathAccess::Read => READ_TOOLS,
        PathAccess::Edit => EDIT_TOOLS,
    }
}

fn texts(words: &[crate::shell::Word]) -> Vec<String> {
    words.iter().map(|word| word.text.clone()).collect()
}

/// The MCP tool name part as agentctl writes it (`mcp.<server>.<tool>`, sanitised).
fn sanitize(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

fn mcp_matches(name: &str, server: &str, tool: &Option<String>) -> bool {
    let Some(rest) = name
        .strip_prefix("mcp.")
        .and_then(|rest| rest.strip_prefix(server))
    else {
        return false;
    };
    let Some(called) = rest.strip_prefix('.') else {
        return false;
    };
    tool.as_ref().is_none_or(|tool| called == tool)
}

fn host_matches(host: &str, domain: &str) -> bool {
    match domain.strip_prefix("*.") {
        Some(parent) => host.ends_with(&format!(".{parent}")),
        None => host == domain,
    }
}

/// One call as the rules see it.
struct Call<'a> {
    name: &'a str,
    tool: &'a dyn Tool,
    arguments: Option<&'a Value>,
    commands: std::cell::OnceCell<Option<crate::shell::CommandList>>,
}

impl<'a> Call<'a> {
    fn new(tool: &'a dyn Tool, arguments: Option<&'a Value>) -> Self {
        Self {
            name: tool.name(),
            tool,
            arguments,
            commands: std::cell::OnceCell::new(),
        }
    }

    fn argument(&self, key: &str) -> Option<&'a str> {
        self.arguments?.get(key)?.as_str()
    }

    /// The simple commands of a `bash` call.
    fn commands(&self) -> Option<&crate::shell::CommandList> {
        self.commands
            .get_or_init(|| {
                (self.name == "bash")
                    .then(|| self.argument("command"))
                    .flatten()
                    .map(crate::shell::simple_commands)
            })
            .as_ref()
    }

    /// The paths a `bash` call names (see [`named::named_paths`]).
    fn command_paths(&self) -> named::NamedPaths {
        self.commands().map(named::named_paths).unwrap_or_default()
    }

    /// The paths a file tool's call names (searches: the folder searched, the root by
    /// default; `read_many_files`: the fixed folder before each pattern's first glob).
    fn paths(&self) -> Vec<String> {
        let Some(arguments) = self.arguments else {
            return Vec::new();
        };
        match self.name {
            "read_file" => self
                .argument("path")
                .map(str::to_owned)
                .into_iter()
                .collect(),
            "grep" | "glob" => vec![self.argument("path").unwrap_or(".").to_owned()],
            "read_many_files" => arguments
                .get("patterns")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(fixed_folder)
                .collect(),
            name if EDIT_TOOLS.contains(&name) => self
                .tool
                .written_paths(arguments)
                .into_iter()
                .map(|path| path.to_string_lossy().into_owned())
                .collect(),
            _ => Vec::new(),
        }
    }

    /// The host of a `web_fetch` call's URL, lower case, without a trailing dot.
    fn host(&self) -> Option<String> {
        let url = reqwest::Url::parse(self.argument("url")?).ok()?;
        Some(url.host_str()?.trim_end_matches('.').to_ascii_lowercase())
    }
}

/// The part of a glob before its first glob character, cut at a `/`: `src/**/*.rs` → `src`.
fn fixed_folder(pattern: &str) -> String {
    let end = pattern.find(['*', '?', '[', '{']).unwrap_or(pattern.len());
    let fixed = &pattern[..end];
    if end == pattern.len() {
        return fixed.to_owned();
    }
    match fixed.rfind('/') {
        Some(at) => fixed[..at].to_owned(),
        None => ".".to_owned(),
    }
}

#[cfg(test)]
mod tests;
