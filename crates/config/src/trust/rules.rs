//! Which project values loosen the user's policy, section by section.
//!
//! Every rule compares a value the project layer sets with the value the user's own layers
//! (defaults and global settings) give at the same place, and says whether the project's is
//! looser. Keys of a policy section with no rule of their own are looser whenever they differ:
//! a key added later (by a newer agentctl, or a field nobody gave an order) is held back until
//! the project is trusted rather than applied unseen.

use super::finding::{Baselines, Finding};
use super::{LooseningReason, entries};
use agentctl_core::{NetworkAccess, RiskLevel, SandboxMode};
use serde_json::{Map, Value};

/// Sections of `settings.json` whose every key is policy.
const POLICY_SECTIONS: &[&str] = &["approvals", "sandbox", "env", "web", "store", "permissions"];

/// How a policy key is ordered, from tightest to loosest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rule {
    /// Risk levels approved without asking: more levels are looser.
    AutoApprove,
    /// `sandbox.mode`: `read-only` < `workspace-write` < `off`.
    SandboxMode,
    /// `sandbox.network`: `false` < `{allow: [...]}` < `true`; a longer list is looser.
    Network,
    /// An allow-list: any entry the user's list lacks is looser.
    AllowList,
    /// A deny-list: any of the user's entries the project's list lacks is looser (adding
    /// entries tightens).
    DenyList,
    /// A switch whose `true` opens something.
    TrueOpens,
    /// A switch whose `false` turns a protection off.
    FalseOpens,
    /// A size limit: larger is looser.
    Limit,
    /// `store.url`: a SQLite file inside the project keeps the sessions where they were;
    /// anything else sends them elsewhere.
    StoreUrl,
    /// A list joined to the user's, never replacing it, that can only restrict
    /// (`permissions.deny`, `permissions.ask`): never looser.
    Tightens,
    /// No known order: any difference is looser.
    Differs,
}

/// Keys of the policy sections with an order of their own (dotted paths).
const RULES: &[(&str, Rule)] = &[
    ("approvals.autoApprove", Rule::AutoApprove),
    ("sandbox.mode", Rule::SandboxMode),
    ("sandbox.network", Rule::Network),
    ("sandbox.writableRoots", Rule::AllowList),
    ("sandbox.readableRoots", Rule::AllowList),
    ("sandbox.protectedPaths", Rule::DenyList),
    ("sandbox.mcpServers.confine", Rule::FalseOpens),
    ("sandbox.mcpServers.unconfined", Rule::AllowList),
    ("env.passthrough", Rule::AllowList),
    ("web.allowPrivateAddresses", Rule::TrueOpens),
    ("web.allowedHosts", Rule::AllowList),
    ("web.maxBytes", Rule::Limit),
    ("store.url", Rule::StoreUrl),
    ("permissions.allow", Rule::AllowList),
    ("permissions.ask", Rule::Tightens),
    ("permissions.deny", Rule::Tightens),
];

/// Keys compared as one value even when they are objects.
const WHOLE_VALUES: &[&str] = &["sandbox.network"];

/// Splits the project layer into what applies untrusted and what loosens the user's policy.
/// `user` is the merged defaults and global settings.
pub(crate) fn review(
    user: &Map<String, Value>,
    project: &Map<String, Value>,
    baselines: &Baselines<'_>,
) -> (Map<String, Value>, Vec<Finding>) {
    let mut kept = Map::new();
    let mut findings = Vec::new();
    for (section, value) in project {
        let user_section = user.get(section);
        let kept_value =
            match (section.as_str(), value) {
                (name, Value::Object(object)) if POLICY_SECTIONS.contains(&name) => Some(
                    Value::Object(review_object(name, object, user_section, &mut findings)),
                ),
                ("tools", Value::Object(tools)) => Some(Value::Object(entries::review_tools(
                    tools,
                    user_section,
                    baselines,
                    &mut findings,
                ))),
                ("providers", Value::Object(providers)) => Some(Value::Object(
                    entries::review_providers(providers, user_section, &mut findings),
                )),
                ("mcpServers", Value::Object(servers)) => Some(Value::Object(
                    entries::review_servers(servers, user, &mut findings),
                )),
                // Hooks run commands at every tool call: none before the project is trusted.
                ("hooks", Value::Object(events)) => {
                    findings.extend(events.iter().map(|(event, value)| Finding {
                        key: format!("hooks.{event}"),
                        value: value.clone(),
                        reason: LooseningReason::RunsCommands,
                    }));
                    None
                }
                _ => Some(value.clone()),
            };
        if let Some(kept_value) = kept_value.filter(|value| !is_empty_object(value)) {
            kept.insert(section.clone(), kept_value);
        }
    }
    findings.sort_by(|a, b| a.key.cmp(&b.key));
    (kept, findings)
}

fn is_empty_object(value: &Value) -> bool {
    matches!(value, Value::Object(map) if map.is_empty())
}

/// Reviews the keys of one object of a policy section; returns the keys that apply.
fn review_object(
    path: &str,
    object: &Map<String, Value>,
    user: Option<&Value>,
    findings: &mut Vec<Finding>,
) -> Map<String, Value> {
    let mut kept = Map::new();
    for (key, value) in object {
        let key_path = format!("{path}.{key}");
        let user_value = user.and_then(|user| user.get(key));
        if let Value::Object(inner) = value
            && !inner.is_empty()
            && !WHOLE_VALUES.contains(&key_path.as_str())
        {
            let inner = review_object(&key_path, inner, user_value, findings);
            if !inner.is_empty() {
                kept.insert(key.clone(), Value::Object(inner));
            }
            continue;
        }
        let rule = RULES
            .iter()
            .find(|(rule_path, _)| *rule_path == key_path)
            .map_or(Rule::Differs, |(_, rule)| *rule);
        match looser(rule, user_value.unwrap_or(&Value::Null), value) {
            Some(reason) => findings.push(Finding {
                key: key_path,
                value: value.clone(),
                reason,
            }),
            None => {
                kept.insert(key.clone(), value.clone());
            }
        }
    }
    kept
}

/// Why `project` is looser than `user` under `rule`; `None` when it is not.
fn looser(rule: Rule, user: &Value, project: &Value) -> Option<LooseningReason> {
    match rule {
        Rule::AutoApprove => {
            let user = approved_levels(user);
            let extra: Vec<RiskLevel> = approved_levels(project)
                .into_iter()
                .filter(|level| !user.contains(level))
                .collect();
            (!extra.is_empty()).then_some(LooseningReason::AutoApproves(extra))
        }
        Rule::SandboxMode => {
            let (user, project) = (sandbox_mode(user)?, sandbox_mode(project)?);
            project
                .allows_more_than(user)
                .then_some(LooseningReason::SandboxMode { user, project })
        }
        Rule::Network => network_looser(user, project),
        Rule::AllowList => {
            let extra = extra_entries(user, project);
            (!extra.is_empty()).then_some(LooseningReason::AddsEntries(extra))
        }
        Rule::DenyList => {
            let dropped = extra_entries(project, user);
            (!dropped.is_empty()).then_some(LooseningReason::RemovesEntries(dropped))
        }
        Rule::TrueOpens => (project == &Value::Bool(true) && user != &Value::Bool(true))
            .then_some(LooseningReason::Enables),
        Rule::FalseOpens => (project == &Value::Bool(false) && user == &Value::Bool(true))
            .then_some(LooseningReason::Disables),
        Rule::Limit => match (user.as_u64(), project.as_u64()) {
            (Some(user), Some(project)) if project > user => {
                Some(LooseningReason::RaisesLimit { user, project })
            }
            (Some(_), Some(_)) => None,
            _ => (user != project).then_some(LooseningReason::Differs),
        },
        Rule::StoreUrl => (user != project && !project.as_str().is_some_and(is_project_file))
            .then_some(LooseningReason::Differs),
        Rule::Tightens => None,
        Rule::Differs => (user != project).then_some(LooseningReason::Differs),
    }
}

/// Whether a store URL names a SQLite file inside the project: a relative path, plain or
/// `sqlite://`, that never goes up.
fn is_project_file(url: &str) -> bool {
    let path = match url.strip_prefix("sqlite://") {
        Some(path) => path,
        None if !url.contains("://") => url,
        None => return false,
    };
    let path = std::path::Path::new(path);
    path.is_relative()
        && path.components().all(|part| {
            matches!(
                part,
                std::path::Component::Normal(_) | std::path::Component::CurDir
            )
        })
}

/// The levels `approvals.autoApprove` approves: an empty list means safe only, `none`
/// approves nothing, a word that is no level approves nothing (loading refuses it later).
fn approved_levels(value: &Value) -> Vec<RiskLevel> {
    let words: Vec<&str> = value
        .as_array()
        .map(|items| items.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if words.is_empty() {
        return vec![RiskLevel::Safe];
    }
    let mut levels: Vec<RiskLevel> = words.into_iter().filter_map(RiskLevel::from_name).collect();
    levels.sort();
    levels.dedup();
    levels
}

fn sandbox_mode(value: &Value) -> Option<SandboxMode> {
    serde_json::from_value(value.clone()).ok()
}

/// Whether the project's `sandbox.network` reaches more than the user's, compared as the
/// sandbox reads them (host names in any case, `*.` patterns, ports).
fn network_looser(user: &Value, project: &Value) -> Option<LooseningReason> {
    let parse = |value: &Value| serde_json::from_value::<NetworkAccess>(value.clone()).ok();
    let (Some(user), Some(project)) = (parse(user), parse(project)) else {
        // A shape this version cannot order: only the user's own value is safe to apply.
        return (user != project).then_some(LooseningReason::Differs);
    };
    if !project.allows_more_than(&user) {
        return None;
    }
    match (project.allow_list(), user.allow_list()) {
        (None, _) => Some(LooseningReason::Enables),
        (Some(hosts), theirs) => Some(LooseningReason::AddsEntries(
            hosts
                .iter()
                .filter(|host| !theirs.unwrap_or_default().contains(host))
                .map(ToString::to_string)
                .collect(),
        )),
    }
}

/// Entries of the project's list that the user's list lacks (compared as written).
fn extra_entries(user: &Value, project: &Value) -> Vec<String> {
    match (user, project) {
        (Value::Array(user), Value::Array(items)) => items
            .iter()
            .filter(|item| !user.contains(item))
            .map(entry_text)
            .collect(),
        (_, Value::Array(items)) => items.iter().map(entry_text).collect(),
        // Not a list: no order is known.
        (user, other) if user != other => vec![entry_text(other)],
        _ => Vec::new(),
    }
}

/// A list entry as text: strings without quotes, anything else as JSON.
pub(super) fn entry_text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn looser_of(key: &str, user: Value, project: Value) -> Option<LooseningReason> {
        let rule = RULES
            .iter()
            .find(|(path, _)| *path == key)
            .map_or(Rule::Differs, |(_, rule)| *rule);
        looser(rule, &user, &project)
    }

    #[test]
    fn auto_approve_compares_the_levels_approved() {
        let key = "approvals.autoApprove";
        assert_eq!(looser_of(key, json!([]), json!(["safe"])), None);
        assert_eq!(
            looser_of(key, json!(["safe", "low"]), json!(["LOW "])),
            None
        );
        assert_eq!(looser_of(key, json!([]), json!(["none"])), None);
        assert_eq!(
            looser_of(key, json!([]), json!(["safe", "low", "critical"])),
            Some(LooseningReason::AutoApproves(vec![
                RiskLevel::Low,
                RiskLevel::Critical
            ]))
        );
        assert_eq!(
            looser_of(key, json!(["none"]), json!([])),
            Some(LooseningReason::AutoApproves(vec![RiskLevel::Safe])),
            "an empty list approves safe calls, which the user's `none` does not"
        );
        assert_eq!(looser_of(key, json!([]), json!(["bogus"])), None);
    }

    #[test]
    fn sandbox_mode_orders_confinement() {
        let key = "sandbox.mode";
        assert_eq!(
            looser_of(key, json!("workspace-write"), json!("read-only")),
            None
        );
        assert_eq!(
            looser_of(key, json!("workspace-write"), json!("off")),
            Some(LooseningReason::SandboxMode {
                user: SandboxMode::WorkspaceWrite,
                project: SandboxMode::Off
            })
        );
        assert!(looser_of(key, json!("read-only"), json!("workspace-write")).is_some());
    }

    #[test]
    fn network_orders_closed_lists_and_open() {
        let key = "sandbox.network";
        assert_eq!(looser_of(key, json!(true), json!(false)), None);
        assert_eq!(
            looser_of(key, json!(true), json!({"allow": ["a.test"]})),
            None
        );
        assert_eq!(
            looser_of(key, json!(false), json!(true)),
            Some(LooseningReason::Enables)
        );
        assert_eq!(
            looser_of(key, json!(false), json!({"allow": ["a.test"]})),
            Some(LooseningReason::AddsEntries(vec!["a.test".into()]))
        );
        assert_eq!(
            looser_of(
                key,
                json!({"allow": ["a.test", "b.test"]}),
                json!({"allow": ["b.test"]})
            ),
            None
        );
        assert_eq!(
            looser_of(
                key,
                json!({"allow": ["a.test"]}),
                json!({"allow": ["a.test", "c.test"]})
            ),
            Some(LooseningReason::AddsEntries(vec!["c.test".into()]))
        );
        // Hosts compare as the sandbox reads them: case and a matching pattern do not loosen.
        assert_eq!(
            looser_of(
                key,
                json!({"allow": ["A.Test"]}),
                json!({"allow": ["a.test"]})
            ),
            None
        );
        assert_eq!(looser_of(key, json!(false), json!({"allow": []})), None);
        assert_eq!(
            looser_of(key, json!({"allow": ["a.test"]}), json!(true)),
            Some(LooseningReason::Enables)
        );
        assert_eq!(
            looser_of(key, json!(false), json!({"allow": "everything"})),
            Some(LooseningReason::Differs)
        );
    }

    #[test]
    fn dropping_protected_paths_loosens_and_adding_them_tightens() {
        let key = "sandbox.protectedPaths";
        assert_eq!(
            looser_of(key, json!(["secrets", "deploy"]), json!(["deploy"])),
            Some(LooseningReason::RemovesEntries(vec!["secrets".into()]))
        );
        assert_eq!(
            looser_of(key, json!(["deploy"]), json!(["deploy", "more"])),
            None
        );
        assert_eq!(looser_of(key, json!([]), json!(["x"])), None);
    }

    #[test]
    fn lists_switches_limits_and_unknown_keys() {
        assert_eq!(
            looser_of(
                "sandbox.writableRoots",
                json!(["~/.npm"]),
                json!(["~/.npm", "/"])
            ),
            Some(LooseningReason::AddsEntries(vec!["/".into()]))
        );
        assert_eq!(
            looser_of("env.passthrough", json!(["A", "B"]), json!(["B"])),
            None
        );
        assert_eq!(
            looser_of("web.allowPrivateAddresses", json!(false), json!(true)),
            Some(LooseningReason::Enables)
        );
        assert_eq!(
            looser_of("web.allowPrivateAddresses", json!(true), json!(false)),
            None
        );
        assert_eq!(
            looser_of("sandbox.mcpServers.confine", json!(true), json!(false)),
            Some(LooseningReason::Disables)
        );
        assert_eq!(
            looser_of("sandbox.mcpServers.confine", json!(false), json!(true)),
            None
        );
        assert_eq!(
            looser_of("web.maxBytes", json!(100), json!(1000)),
            Some(LooseningReason::RaisesLimit {
                user: 100,
                project: 1000
            })
        );
        assert_eq!(looser_of("web.maxBytes", json!(100), json!(10)), None);
        assert_eq!(
            looser_of("store.url", Value::Null, json!("postgres://elsewhere/db")),
            Some(LooseningReason::Differs)
        );
        assert_eq!(
            looser_of(
                "store.url",
                Value::Null,
                json!("sqlite://.agentctl/team.db")
            ),
            None
        );
        assert_eq!(looser_of("store.url", Value::Null, json!("team.db")), None);
        for elsewhere in [
            "sqlite:///home/u/x.db",
            "/tmp/x.db",
            "../x.db",
            "sqlite://a/../../x.db",
        ] {
            assert!(
                looser_of("store.url", Value::Null, json!(elsewhere)).is_some(),
                "{elsewhere}"
            );
        }
        assert_eq!(
            looser_of("web.search.url", json!("http://x"), json!("http://x")),
            None
        );
    }

    #[test]
    fn review_keeps_tightening_values_and_holds_back_the_rest() {
        let user = json!({
            "approvals": {"autoApprove": []},
            "sandbox": {"mode": "workspace-write", "network": false, "writableRoots": []},
            "agents": {"maxHandoffs": 8}
        });
        let project = json!({
            "approvals": {"autoApprove": ["safe", "low", "medium", "high", "critical"]},
            "sandbox": {"mode": "read-only", "network": true, "writableRoots": ["/"]},
            "agents": {"maxHandoffs": 2}
        });
        let (Value::Object(user), Value::Object(project)) = (user, project) else {
            unreachable!()
        };
        let (kept, findings) = review(&user, &project, &Baselines::default());
        assert_eq!(
            Value::Object(kept),
            json!({"sandbox": {"mode": "read-only"}, "agents": {"maxHandoffs": 2}})
        );
        let keys: Vec<&str> = findings
            .iter()
            .map(|finding| finding.key.as_str())
            .collect();
        assert_eq!(
            keys,
            [
                "approvals.autoApprove",
                "sandbox.network",
                "sandbox.writableRoots"
            ]
        );
    }
}
