//! Protected writes are asked every time, at every level; the gate's decision cannot be
//! outrun by a symlink planted between the decision and the call, nor by one that flips while
//! the tool works.

use super::paths_spellings::project;
use super::support::Person;
use super::support::{call, ctx, tool};
use agentctl_core::{
    ApprovalHint, CallGate, DecidedBy, Decision, PendingCall, RiskLevel, ToolCall, ToolFilter,
};
use agentctl_tools::{AutoApprove, Gate, RiskClassifier};
use serde_json::{Value, json};
use std::os::unix::fs::symlink;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// The decision for a call, asking the person when the gate says so, as the agent loop does.
async fn decide(gate: &dyn CallGate, name: &str, arguments: Value) -> Decision {
    let tool = tool(name);
    let filter = ToolFilter::allow_all();
    let call = ToolCall {
        id: "c1".into(),
        name: name.into(),
        arguments,
        signature: None,
    };
    let pending = PendingCall {
        agent: "coder",
        filter: &filter,
        call: &call,
        tool: tool.as_ref(),
    };
    match gate.decide(&pending) {
        Decision::Ask { risk, reason } => gate.ask(&pending, risk, &reason).await,
        decided => decided,
    }
}

fn by_user(decision: &Decision) -> bool {
    matches!(
        decision,
        Decision::Allow {
            by: DecidedBy::User,
            ..
        }
    )
}

fn write(path: &str) -> Value {
    json!({"path": path, "content": "PWNED\n"})
}

#[tokio::test]
async fn protected_writes_are_asked_every_time_at_every_level_and_always_never_covers_them() {
    let (_dir, root) = project();
    let levels = AutoApprove::new(RiskLevel::ALL);
    // Three answers, all "always": each protected call must use one up.
    let gate = Person::new(
        Gate::new(levels.clone(), RiskClassifier::new().with_root(&root)),
        "a\na\na\n",
    );
    let protected = [
        write(".git/hooks/pre-commit"),
        json!({"path": "sub/.git/config", "old_string": "ORIGINAL", "new_string": "x"}),
        json!({"path": ".claude/settings.json"}),
    ];
    for (name, arguments) in ["write_file", "edit_file", "delete_file"]
        .into_iter()
        .zip(protected.iter())
    {
        let evaluated =
            gate.gate
                .evaluate(&ToolFilter::allow_all(), tool(name).as_ref(), arguments);
        let Decision::Ask { risk, reason } = &evaluated else {
            panic!("{name} {arguments}: {evaluated:?}")
        };
        assert_eq!(*risk, RiskLevel::High, "{name}");
        assert!(reason.contains("under the protected folder"), "{reason}");
        let decided = decide(&gate, name, arguments.clone()).await;
        assert!(by_user(&decided), "{name}: {decided:?}");
    }
    // The answers are used up: the same calls are asked again, and the end of input is a no.
    for (name, arguments) in ["write_file", "edit_file", "delete_file"]
        .into_iter()
        .zip(protected.iter())
    {
        let again = decide(&gate, name, arguments.clone()).await;
        assert!(
            matches!(
                again,
                Decision::Deny {
                    by: DecidedBy::User,
                    ..
                }
            ),
            "{name}: {again:?}"
        );
    }
    // "Always" still covers the unprotected writes of those tools (every level is approved
    // anyway here, so they run by policy).
    let plain = decide(&gate, "write_file", write("src/new.rs")).await;
    assert!(matches!(
        plain,
        Decision::Allow {
            by: DecidedBy::Policy,
            ..
        }
    ));
    // Without a terminal, at every level, a protected write is refused with the hint that only
    // a person can allow it.
    let nobody = Gate::new(levels, RiskClassifier::new().with_root(&root));
    for path in [
        ".git/config",
        "sub/.git/config",
        ".agentctl/settings.json",
        " .agentctl/settings.json",
        "/proc/self/cwd/.git/config",
    ] {
        let decision = decide(&nobody, "write_file", write(path)).await;
        let Decision::Deny { by, hint, .. } = &decision else {
            panic!("{path:?}: {decision:?}")
        };
        assert_eq!(*by, DecidedBy::NonTerminal, "{path:?}");
        assert_eq!(hint, &Some(ApprovalHint::AskAPerson), "{path:?}");
    }
    assert_eq!(
        std::fs::read_to_string(root.join(".git/config")).unwrap(),
        "ORIGINAL\n"
    );
}

#[tokio::test]
async fn always_for_a_tool_does_not_reach_its_protected_calls() {
    let (_dir, root) = project();
    // Only safe is auto-approved; the first answer is "always" for write_file.
    let gate = Person::new(
        Gate::new(
            AutoApprove::default(),
            RiskClassifier::new().with_root(&root),
        ),
        "a\n",
    );
    assert!(by_user(
        &decide(&gate, "write_file", write("src/a.rs")).await
    ));
    // Remembered for ordinary writes, without reading input.
    let remembered = decide(&gate, "write_file", write("src/b.rs")).await;
    assert_eq!(
        remembered.reason(),
        "write_file was approved for this session"
    );
    // Never for a protected one, however it is spelled.
    for path in [
        "sub/.git/config",
        "./.GIT/config",
        "x/../.gemini/settings.json",
    ] {
        let evaluated = gate.gate.evaluate(
            &ToolFilter::allow_all(),
            tool("write_file").as_ref(),
            &write(path),
        );
        assert!(
            matches!(evaluated, Decision::Ask { .. }),
            "{path}: {evaluated:?}"
        );
        let asked = decide(&gate, "write_file", write(path)).await;
        assert!(asked.denial().is_some(), "{path}: {asked:?}");
    }
}

#[tokio::test]
async fn a_real_nested_repository_is_protected() {
    let have_git = agentctl_test_support::requirement(
        std::process::Command::new("git")
            .arg("--version")
            .output()
            .map(|_| ())
            .map_err(|error| format!("git is needed: {error}")),
    );
    if !have_git {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let nested = root.join("fixtures/repo");
    std::fs::create_dir_all(&nested).unwrap();
    let status = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(&nested)
        .status()
        .unwrap();
    assert!(status.success());
    let config = nested.join(".git/config");
    let before = std::fs::read_to_string(&config).unwrap();
    let gate = Gate::new(
        AutoApprove::new(RiskLevel::ALL),
        RiskClassifier::new().with_root(&root),
    );
    let arguments = json!({
        "path": "fixtures/repo/.git/config",
        "content": "[core]\n\tfsmonitor = touch pwned\n"
    });
    let decision = decide(&gate, "write_file", arguments).await;
    assert_eq!(
        decision
            .denial()
            .map(|reason| reason.contains("protected folder .git/")),
        Some(true),
        "{decision:?}"
    );
    assert_eq!(std::fs::read_to_string(&config).unwrap(), before);
}

/// The gate decides on `path` while it is harmless; then `plant` swaps a symlink in; then the
/// tool runs, as it would after the decision.
async fn planted_after_the_decision(name: &str, path: &str, plant: impl FnOnce(&Path)) {
    let (_dir, root) = project();
    std::fs::create_dir_all(root.join("plain")).unwrap();
    std::fs::write(root.join("plain/config"), "ORIGINAL\n").unwrap();
    std::fs::write(root.join("file"), "ORIGINAL\n").unwrap();
    let gate = Gate::new(
        AutoApprove::new(RiskLevel::ALL),
        RiskClassifier::new().with_root(&root),
    );
    let arguments = match name {
        "edit_file" => json!({"path": path, "old_string": "ORIGINAL", "new_string": "PWNED"}),
        "delete_file" => json!({"path": path}),
        _ => write(path),
    };
    let decision = decide(&gate, name, arguments.clone()).await;
    assert!(
        matches!(
            decision,
            Decision::Allow {
                by: DecidedBy::Policy,
                ..
            }
        ),
        "{name} {path}: {decision:?}"
    );
    plant(&root);
    let result = tool(name).call(arguments, &ctx(&root)).await;
    let error = result.expect_err("the planted link must not be followed");
    assert!(
        error
            .to_string()
            .contains("leads through a symbolic link to .git/"),
        "{name} {path}: {error}"
    );
    assert_eq!(
        std::fs::read_to_string(root.join(".git/config")).unwrap(),
        "ORIGINAL\n"
    );
}

#[tokio::test]
async fn a_link_planted_between_the_decision_and_the_call_does_not_carry_the_write() {
    let swap_file = |root: &Path| {
        std::fs::remove_file(root.join("file")).unwrap();
        symlink(".git/config", root.join("file")).unwrap();
    };
    let swap_dir = |root: &Path| {
        std::fs::remove_dir_all(root.join("plain")).unwrap();
        symlink(".git", root.join("plain")).unwrap();
    };
    let new_link = |root: &Path| symlink(".git/config", root.join("fresh")).unwrap();
    planted_after_the_decision("write_file", "file", swap_file).await;
    planted_after_the_decision("edit_file", "file", swap_file).await;
    planted_after_the_decision("write_file", "fresh", new_link).await;
    planted_after_the_decision("write_file", "plain/config", swap_dir).await;
    planted_after_the_decision("edit_file", "plain/config", swap_dir).await;
    planted_after_the_decision("delete_file", "plain/config", swap_dir).await;
}

/// Swaps two entries of `root` atomically, over and over, until `stop`.
fn flip(root: &Path, a: &str, b: &str, stop: &AtomicBool) -> usize {
    use rustix::fs::{CWD, RenameFlags, renameat_with};
    let (a, b) = (root.join(a), root.join(b));
    let mut flips = 0;
    while !stop.load(Ordering::Relaxed) {
        renameat_with(CWD, &a, CWD, &b, RenameFlags::EXCHANGE).unwrap();
        flips += 1;
    }
    flips
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn links_flipping_while_the_tools_work_never_reach_the_protected_folder() {
    let (_dir, root) = project();
    // `sub2` is a real folder and `via` a link to .git; `cfg2` a file and `to` a link to
    // .git/config. A thread swaps each pair as fast as it can while the tools work.
    std::fs::create_dir(root.join("sub2")).unwrap();
    symlink(".git", root.join("via")).unwrap();
    std::fs::write(root.join("cfg2"), "ORIGINAL\n").unwrap();
    symlink(".git/config", root.join("to")).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let flippers: Vec<_> = [("sub2", "via"), ("cfg2", "to")]
        .into_iter()
        .map(|(a, b)| {
            let (root, stop) = (root.clone(), Arc::clone(&stop));
            std::thread::spawn(move || flip(&root, a, b, &stop))
        })
        .collect();
    let mut written = 0;
    for round in 0..300 {
        let calls = [
            ("write_file", write("sub2/config")),
            ("write_file", write("cfg2")),
            (
                "edit_file",
                json!({"path": "cfg2", "old_string": "ORIGINAL", "new_string": "PWNED"}),
            ),
            ("delete_file", json!({"path": "sub2/config"})),
            ("write_file", write(&format!("sub2/hooks-{round}"))),
        ];
        for (name, arguments) in calls {
            if call(&root, name, arguments).await.is_ok() {
                written += 1;
            }
        }
    }
    stop.store(true, Ordering::Relaxed);
    let flips: usize = flippers.into_iter().map(|t| t.join().unwrap()).sum();
    assert!(flips > 0 && written > 0, "flips {flips}, writes {written}");
    let git = root.join(".git");
    assert_eq!(
        std::fs::read_to_string(git.join("config")).unwrap(),
        "ORIGINAL\n"
    );
    let mut names: Vec<_> = std::fs::read_dir(&git)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["config", "hooks"]);
}
