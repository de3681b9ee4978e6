//! A `bash` command the rater marks as writing a protected path goes through the gate like a
//! file tool's protected write: asked at every `--approve` level, never covered by "always",
//! refused without a terminal with `ApprovalHint::AskAPerson`.

use super::support::Person;
use agentctl_core::{
    ApprovalHint, CallGate, DecidedBy, Decision, PendingCall, RiskLevel, Tool, ToolCall, ToolFilter,
};
use agentctl_tools::{AutoApprove, Gate, RiskClassifier, builtin_tools, classify_command};
use serde_json::{Value, json};
use std::path::Path;
use std::sync::Arc;

/// Commands of issue 31 that write a protected path, each spelled another way.
const PROTECTED_COMMANDS: &[&str] = &[
    "echo x > .git/config",
    "echo '{\"sandbox\":{\"mode\":\"off\"}}' > /dev/fd/../cwd/.agentctl/settings.json",
    "echo x > /proc/self/cwd/.claude/settings.json",
    "tee sub/.git/config < /dev/null",
    "cp x .agentctl/sessions.db",
    "ln -s ../../evil .git/hooks/pre-commit",
    "mv evil .git/hooks/",
    "cp -r payload/. .",
    "git archive -o .agentctl/sessions.db HEAD",
    "tar -xf payload.tar",
    "sed -i s/a/b/ .gemini/settings.json",
];

fn bash() -> Arc<dyn Tool> {
    builtin_tools()
        .into_iter()
        .find(|tool| tool.name() == "bash")
        .unwrap()
}

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for folder in [".git/hooks", ".agentctl", ".claude", "sub/.git", "payload"] {
        std::fs::create_dir_all(dir.path().join(folder)).unwrap();
    }
    dir
}

fn gate(root: &Path) -> Gate {
    Gate::new(
        AutoApprove::new(RiskLevel::ALL),
        RiskClassifier::new().with_root(root),
    )
}

fn arguments(command: &str) -> Value {
    json!({ "command": command })
}

fn pending<'a>(filter: &'a ToolFilter, call: &'a ToolCall, tool: &'a dyn Tool) -> PendingCall<'a> {
    PendingCall {
        agent: "coder",
        filter,
        call,
        tool,
    }
}

fn call(command: &str) -> ToolCall {
    ToolCall {
        id: "c1".into(),
        name: "bash".into(),
        arguments: arguments(command),
        signature: None,
    }
}

#[test]
fn the_rater_marks_each_command_protected() {
    let dir = project();
    for command in PROTECTED_COMMANDS {
        let rating = classify_command(command, Some(dir.path()));
        assert!(
            rating.level >= RiskLevel::High && rating.protected.is_some(),
            "{command}: {rating:?}"
        );
    }
    let plain = classify_command("rm -rf target", Some(dir.path()));
    assert_eq!((plain.level, plain.protected), (RiskLevel::High, None));
    let db = classify_command("cp x .agentctl/sessions.db", Some(dir.path()));
    assert_eq!(db.level, RiskLevel::Critical);
    assert_eq!(db.protected.as_deref(), Some(".agentctl/sessions.db"));
}

#[test]
fn protected_commands_are_asked_at_every_approve_level() {
    let dir = project();
    let gate = gate(dir.path());
    let filter = ToolFilter::allow_all();
    let tool = bash();
    for command in PROTECTED_COMMANDS {
        let decision = gate.evaluate(&filter, tool.as_ref(), &arguments(command));
        assert!(
            matches!(decision, Decision::Ask { .. }),
            "{command}: {decision:?}"
        );
    }
    // With every level approved, a high command that writes nothing protected runs.
    let plain = gate.evaluate(&filter, tool.as_ref(), &arguments("rm -rf target"));
    assert!(matches!(plain, Decision::Allow { .. }), "{plain:?}");
    // An override of bash's level keeps the mark.
    let critical = Gate::new(
        AutoApprove::new(RiskLevel::ALL),
        RiskClassifier::new()
            .with_root(dir.path())
            .with_override("bash", RiskLevel::Critical),
    );
    let decision = critical.evaluate(&filter, tool.as_ref(), &arguments("echo x > .git/config"));
    assert!(matches!(decision, Decision::Ask { .. }), "{decision:?}");
}

#[test]
fn without_a_terminal_protected_commands_are_refused_asking_a_person() {
    let dir = project();
    let gate = gate(dir.path());
    let filter = ToolFilter::allow_all();
    let tool = bash();
    for command in PROTECTED_COMMANDS {
        let call = call(command);
        let decision = gate.decide(&pending(&filter, &call, tool.as_ref()));
        let Decision::Deny { by, hint, risk, .. } = &decision else {
            panic!("{command}: {decision:?}")
        };
        assert_eq!(*by, DecidedBy::NonTerminal, "{command}");
        assert_eq!(hint, &Some(ApprovalHint::AskAPerson), "{command}");
        assert!(*risk >= RiskLevel::High, "{command}");
    }
}

#[tokio::test]
async fn always_does_not_cover_a_protected_command() {
    let dir = project();
    let gate = Person::new(gate(dir.path()), "a\na\na\n");
    let filter = ToolFilter::allow_all();
    let tool = bash();
    let call = call("echo x > .git/hooks/pre-commit");
    let pending = pending(&filter, &call, tool.as_ref());
    let Decision::Ask { risk, reason } = gate.decide(&pending) else {
        panic!("a protected write must be asked")
    };
    let first = gate.ask(&pending, risk, &reason).await;
    assert!(
        matches!(
            first,
            Decision::Allow {
                by: DecidedBy::User,
                ..
            }
        ),
        "{first:?}"
    );
    // "Always" was answered, yet the same command is asked again.
    let again = gate.decide(&pending);
    assert!(matches!(again, Decision::Ask { .. }), "{again:?}");
}

/// `sandbox.protectedPaths` is protected like `.git/`: a file tool's write and a command's
/// write there are asked at every level, through a symlink too; a path beside it is not.
#[test]
fn paths_the_settings_protect_are_asked_every_time() {
    let dir = project();
    std::fs::create_dir_all(dir.path().join("deploy")).unwrap();
    std::fs::write(dir.path().join("deploy/keys.yml"), "k: v\n").unwrap();
    std::os::unix::fs::symlink("deploy", dir.path().join("d")).unwrap();
    let gate = Gate::new(
        AutoApprove::new(RiskLevel::ALL),
        RiskClassifier::new()
            .with_root(dir.path())
            .with_protected_path("deploy"),
    );
    let filter = ToolFilter::allow_all();
    let tools = builtin_tools();
    let tool = |name: &str| {
        tools
            .iter()
            .find(|tool| tool.name() == name)
            .unwrap()
            .clone()
    };
    let asked = |name: &str, arguments: Value| {
        matches!(
            gate.evaluate(&filter, tool(name).as_ref(), &arguments),
            Decision::Ask { .. }
        )
    };
    for path in [
        "deploy/keys.yml",
        "./deploy/new.yml",
        "src/../deploy/keys.yml",
        "d/keys.yml",
    ] {
        assert!(
            asked("write_file", json!({"path": path, "content": "x"})),
            "write_file {path}"
        );
        assert!(
            asked("bash", arguments(&format!("echo x > {path}"))),
            "bash {path}"
        );
    }
    assert!(asked(
        "edit_file",
        json!({"path": "deploy/keys.yml", "old_string": "v", "new_string": "w"})
    ));
    assert!(asked("delete_file", json!({"path": "deploy/keys.yml"})));
    assert!(!asked(
        "write_file",
        json!({"path": "deployment.md", "content": "x"})
    ));
    assert!(!asked("bash", arguments("echo x > deployment.md")));
    let decision = gate.evaluate(
        &filter,
        tool("write_file").as_ref(),
        &json!({"path": "deploy/keys.yml", "content": "x"}),
    );
    assert!(
        decision
            .reason()
            .contains("which sandbox.protectedPaths protects (deploy)"),
        "{decision:?}"
    );
}
