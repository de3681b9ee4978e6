use super::*;
use crate::builtin_tools;
use agentctl_core::{Decision, RiskLevel, ToolFilter};
use serde_json::json;
use std::sync::Arc;

fn tool(name: &str) -> Arc<dyn Tool> {
    builtin_tools()
        .into_iter()
        .find(|tool| tool.name() == name)
        .unwrap()
}

fn rules(allow: &[&str], ask: &[&str], deny: &[&str], root: &Path) -> PermissionRules {
    let list = |rules: &[&str]| rules.iter().map(|rule| (*rule).to_owned()).collect();
    let settings = PermissionSettings {
        allow: list(allow),
        ask: list(ask),
        deny: list(deny),
    };
    PermissionRules::new(&settings, root, Some(Path::new("/home/u"))).unwrap()
}

fn bash(rules: &PermissionRules, command: &str) -> Option<RuleVerdict> {
    rules.judge(tool("bash").as_ref(), Some(&json!({ "command": command })))
}

fn denied(verdict: Option<RuleVerdict>) -> bool {
    matches!(verdict, Some(RuleVerdict::Deny { .. }))
}

#[test]
fn a_denied_command_is_caught_in_every_simple_command() {
    let rules = rules(&["Bash(npm test:*)"], &[], &["Bash(rm:*)"], Path::new("/p"));
    for line in [
        "rm x",
        "a && rm x",
        "echo x; rm -rf /",
        "npm test | rm x",
        "echo $(rm -rf ~)",
        "npm test -- `rm x`",
        "sh -c 'ls && rm x'",
        "eval rm x",
        "sudo /bin/rm x",
        "find . -exec rm {} +",
        "(cd src && \\rm x)",
        "'r'm x",
    ] {
        assert!(denied(bash(&rules, line)), "{line}");
    }
    assert!(matches!(
        bash(&rules, "npm test --coverage"),
        Some(RuleVerdict::Allow { .. })
    ));
    // A command not allowed makes the whole line not allowed.
    assert_eq!(bash(&rules, "npm test && curl x"), None);
    assert_eq!(bash(&rules, "npm testing"), None);
    // What cannot be read is asked, not let through.
    for line in ["$RM x", "eval \"$X\"", "npm test; r$(printf m) x"] {
        assert!(
            matches!(
                bash(&rules, line),
                Some(RuleVerdict::Ask {
                    unsure: Some(_),
                    ..
                })
            ),
            "{line}"
        );
    }
}

#[test]
fn deny_wins_over_allow_and_ask_asks() {
    let rules = rules(
        &["Bash"],
        &["Bash(git push:*)"],
        &["Bash(git push --force:*)"],
        Path::new("/p"),
    );
    assert!(denied(bash(&rules, "git push --force origin")));
    assert!(matches!(
        bash(&rules, "git push origin"),
        Some(RuleVerdict::Ask { unsure: None, .. })
    ));
    assert!(matches!(
        bash(&rules, "ls"),
        Some(RuleVerdict::Allow { .. })
    ));
}

#[test]
fn path_rules_see_through_other_spellings() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    std::fs::create_dir_all(root.join("secrets")).unwrap();
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(root.join("secrets/x"), "k").unwrap();
    let rules = rules(
        &["Edit(src/**)"],
        &[],
        &["Read(./secrets/**)", "Edit(./secrets/**)"],
        &root,
    );
    let read = |path: &str| rules.judge(tool("read_file").as_ref(), Some(&json!({ "path": path })));
    let absolute = root.join("secrets/x").display().to_string();
    for path in [
        "secrets/x",
        "./secrets/../secrets/x",
        "src/../secrets/x",
        absolute.as_str(),
    ] {
        assert!(denied(read(path)), "{path}");
    }
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(root.join("secrets"), root.join("src/link")).unwrap();
        assert!(denied(read("src/link/x")));
        // Writing through the link into the denied folder is denied although `src/**` is
        // allowed.
        let write = rules.judge(
            tool("write_file").as_ref(),
            Some(&json!({ "path": "src/link/y", "content": "" })),
        );
        assert!(denied(write.clone()), "{write:?}");
    }
    assert_eq!(read("src/main.rs"), None);
    let write = rules.judge(
        tool("write_file").as_ref(),
        Some(&json!({ "path": "src/main.rs", "content": "" })),
    );
    assert!(
        matches!(write, Some(RuleVerdict::Allow { .. })),
        "{write:?}"
    );
    // A command naming the denied file is denied; a search of the folder holding it asked.
    assert!(denied(bash(&rules, "cat ./secrets/../secrets/x")));
    assert!(denied(bash(&rules, "echo k > secrets/x")));
    let grep = rules.judge(tool("grep").as_ref(), Some(&json!({ "pattern": "k" })));
    assert!(
        matches!(
            grep,
            Some(RuleVerdict::Ask {
                unsure: Some(_),
                ..
            })
        ),
        "{grep:?}"
    );
}

#[test]
fn web_fetch_mcp_and_plain_names() {
    let rules = rules(
        &["WebFetch(domain:example.com)", "mcp__github"],
        &[],
        &["mcp__github__delete_repo", "WebSearch"],
        Path::new("/p"),
    );
    let fetch = |url: &str| rules.judge(tool("web_fetch").as_ref(), Some(&json!({ "url": url })));
    assert!(matches!(
        fetch("https://EXAMPLE.com./a"),
        Some(RuleVerdict::Allow { .. })
    ));
    assert_eq!(fetch("https://example.com.evil.org/"), None);
    assert_eq!(fetch("https://sub.example.com/"), None);
    assert!(denied(rules.judge(tool("web_search").as_ref(), None)));
    let mcp = |name: &str| rules.judge(&Named(name.to_owned()), Some(&json!({})));
    assert!(denied(mcp("mcp.github.delete_repo")));
    assert!(matches!(
        mcp("mcp.github.create_issue"),
        Some(RuleVerdict::Allow { .. })
    ));
    assert_eq!(mcp("mcp.githubx.create_issue"), None);
}

#[test]
fn the_gate_applies_rules_in_its_chain() {
    let rules = rules(&["Bash(npm test:*)"], &[], &["Bash(rm:*)"], Path::new("/p"));
    let gate = crate::Gate::new(
        crate::AutoApprove::new([
            RiskLevel::Safe,
            RiskLevel::Low,
            RiskLevel::Medium,
            RiskLevel::High,
        ]),
        crate::RiskClassifier::new(),
    )
    .with_rules(rules);
    let bash = tool("bash");
    let decision = gate.evaluate(
        &ToolFilter::allow_all(),
        bash.as_ref(),
        &json!({"command": "ls && rm x"}),
    );
    assert_eq!(
        decision.reason(),
        "denied by the permission rule `Bash(rm:*)`"
    );
    assert!(matches!(decision, Decision::Deny { .. }));
    let gate = crate::Gate::new(crate::AutoApprove::default(), crate::RiskClassifier::new())
        .with_rules(
            PermissionRules::new(
                &PermissionSettings {
                    allow: vec!["Bash(npm test:*)".into()],
                    ..Default::default()
                },
                Path::new("/p"),
                None,
            )
            .unwrap(),
        );
    let decision = gate.evaluate(
        &ToolFilter::allow_all(),
        bash.as_ref(),
        &json!({"command": "npm test"}),
    );
    assert!(matches!(decision, Decision::Allow { .. }), "{decision:?}");
    let decision = gate.evaluate(
        &ToolFilter::allow_all(),
        bash.as_ref(),
        &json!({"command": "npm test; curl -fsSL x | sh"}),
    );
    assert!(matches!(decision, Decision::Ask { .. }), "{decision:?}");
}

/// A tool that has only a name (an MCP tool, for the rules).
struct Named(String);

#[async_trait::async_trait]
impl Tool for Named {
    fn name(&self) -> &str {
        &self.0
    }
    fn description(&self) -> &str {
        ""
    }
    fn parameters(&self) -> Value {
        json!({"type": "object"})
    }
    async fn call(
        &self,
        _: Value,
        _: &agentctl_core::ToolContext,
    ) -> Result<agentctl_core::ToolOutput, agentctl_core::ToolError> {
        Err(agentctl_core::ToolError::failed("not called"))
    }
}

#[test]
fn an_ask_rule_asks_whatever_levels_are_approved() {
    let settings = PermissionSettings {
        ask: vec!["Bash(git push:*)".into()],
        ..Default::default()
    };
    let rules = PermissionRules::new(&settings, Path::new("/p"), None).unwrap();
    let gate = crate::Gate::new(
        crate::AutoApprove::new([
            RiskLevel::Safe,
            RiskLevel::Low,
            RiskLevel::Medium,
            RiskLevel::High,
        ]),
        crate::RiskClassifier::new(),
    )
    .with_rules(rules);
    let decision = gate.evaluate(
        &ToolFilter::allow_all(),
        tool("bash").as_ref(),
        &json!({"command": "git push origin main"}),
    );
    assert!(matches!(decision, Decision::Ask { .. }), "{decision:?}");
    assert_eq!(
        decision.reason(),
        "the permission rule `Bash(git push:*)` asks"
    );
}

#[test]
fn a_cd_is_followed_and_computed_words_near_a_denied_path_are_asked() {
    let rules = rules(
        &[],
        &[],
        &["Read(./secrets/**)", "Edit(./locked/**)"],
        Path::new("/p"),
    );
    for line in [
        "cd secrets && cat key.txt",
        "cd locked; echo x > f",
        "pushd secrets; tar c .",
    ] {
        assert!(denied(bash(&rules, line)), "{line}");
    }
    for line in [
        "cat sec*/key.txt",
        "cat $(printf secrets)/key.txt",
        "cd $D && cat key.txt",
        "echo x > $(printf lock)ed/f",
    ] {
        let verdict = bash(&rules, line);
        assert!(
            matches!(
                verdict,
                Some(RuleVerdict::Ask {
                    unsure: Some(_),
                    ..
                })
            ),
            "{line}: {verdict:?}"
        );
    }
    // What cannot reach a denied path runs; searches of the whole project are left to the
    // sandbox, which hides the denied files from every command.
    for line in [
        "cat src/*.rs",
        "cat *.md",
        "echo $HOME",
        "cd src && cat main.rs",
        "grep -r TOKEN .",
    ] {
        assert_eq!(bash(&rules, line), None, "{line}");
    }
}
