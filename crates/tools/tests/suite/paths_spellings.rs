//! One path, resolved once: for every spelling of a protected path, the approval gate's decision
//! and the file the tool then touches agree, and the session database is never written.
//!
//! Each case builds a fresh project with real protected files and symlinks, asks the gate (every
//! level auto-approved, nobody at a terminal), then runs the tool directly — as if a person had
//! said yes — and compares the whole tree before and after. Whether a changed entry is protected
//! is judged here from its real name on disk, independently of the code under test.

use super::support::{ctx, tool};
use agentctl_core::{
    ApprovalHint, CallGate, Decision, PendingCall, RiskLevel, ToolCall, ToolFilter,
};
use agentctl_tools::{AutoApprove, Gate, RiskClassifier};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

/// Every level, critical included: protected writes must still be asked.
const ORIGINAL: &str = "ORIGINAL\n";

/// A project with the protected folders, a nested repository and in-project symlinks.
pub(crate) fn project() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    for file in [
        ".git/config",
        ".git/hooks/pre-commit",
        ".agentctl/settings.json",
        ".agentctl/sessions.db",
        ".agentctl/sessions.db-wal",
        ".agentctl/memory.db",
        ".claude/settings.json",
        ".gemini/settings.json",
        "sub/.git/config",
        "sub/.git/hooks/post-checkout",
        "src/main.rs",
        "a/b/c.txt",
    ] {
        let path = root.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, ORIGINAL).unwrap();
    }
    for (link, target) in [
        ("g", ".git"),
        ("cfg", ".git/config"),
        ("db", ".agentctl/sessions.db"),
        ("ag", ".agentctl"),
        ("up", "a/b"),
        ("hooks", ".git/hooks"),
        ("proc", "/proc/self/root"),
        ("fd", "/dev/fd"),
    ] {
        symlink(target, root.join(link)).unwrap();
    }
    (dir, root)
}

/// What is at a path of the tree, without following symlinks.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Node {
    File(Vec<u8>),
    Dir,
    Link(PathBuf),
}

fn snapshot(root: &Path) -> BTreeMap<String, Node> {
    let mut out = BTreeMap::new();
    let mut todo = vec![root.to_path_buf()];
    while let Some(dir) = todo.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let relative = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            let node = if meta.file_type().is_symlink() {
                Node::Link(std::fs::read_link(&path).unwrap())
            } else if meta.is_dir() {
                todo.push(path.clone());
                Node::Dir
            } else {
                Node::File(std::fs::read(&path).unwrap())
            };
            out.insert(relative, node);
        }
    }
    out
}

/// The entries that differ between two snapshots.
fn changes(before: &BTreeMap<String, Node>, after: &BTreeMap<String, Node>) -> Vec<String> {
    let mut keys: Vec<&String> = before.keys().chain(after.keys()).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .filter(|key| before.get(*key) != after.get(*key))
        .cloned()
        .collect()
}

/// The policy as documented, judged on the real entry name: a component named `.git`,
/// `.agentctl`, `.claude` or `.gemini` (ASCII case-insensitively) anywhere under the root.
fn is_protected(relative: &str) -> bool {
    relative.split('/').any(|part| {
        [".git", ".agentctl", ".claude", ".gemini"]
            .iter()
            .any(|name| part.eq_ignore_ascii_case(name))
    })
}

fn is_database(relative: &str) -> bool {
    relative.starts_with(".agentctl/sessions.db") || relative.starts_with(".agentctl/memory.db")
}

/// What the gate said, with every level auto-approved and nobody to ask.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Gated {
    /// Runs without asking.
    Allowed,
    /// A person must be asked (refused here with the "ask a person" hint).
    Asked,
    /// Never allowed: the session database.
    Database,
}

fn gate(root: &Path) -> Gate {
    Gate::new(
        AutoApprove::new(RiskLevel::ALL),
        RiskClassifier::new().with_root(root),
    )
}

fn gated(gate: &Gate, name: &str, arguments: &Value) -> Gated {
    let tool = tool(name);
    let filter = ToolFilter::allow_all();
    let evaluated = gate.evaluate(&filter, tool.as_ref(), arguments);
    let call = ToolCall {
        id: "c1".into(),
        name: name.into(),
        arguments: arguments.clone(),
        signature: None,
    };
    let pending = PendingCall {
        agent: "reviewer",
        filter: &filter,
        call: &call,
        tool: tool.as_ref(),
    };
    let decided = gate.decide(&pending);
    match (&evaluated, &decided) {
        (Decision::Allow { .. }, Decision::Allow { .. }) => Gated::Allowed,
        (Decision::Ask { risk, .. }, Decision::Deny { hint, .. }) => {
            assert!(
                *risk >= RiskLevel::High,
                "{name} {arguments}: {evaluated:?}"
            );
            assert_eq!(
                hint,
                &Some(ApprovalHint::AskAPerson),
                "{name} {arguments}: {decided:?}"
            );
            Gated::Asked
        }
        (Decision::Deny { reason, .. }, _) if reason.contains("session database") => {
            Gated::Database
        }
        _ => panic!("{name} {arguments}: unexpected {evaluated:?} / {decided:?}"),
    }
}

fn arguments(name: &str, path: &str) -> Value {
    match name {
        "write_file" => json!({"path": path, "content": "PWNED\n"}),
        "edit_file" => json!({"path": path, "old_string": "ORIGINAL", "new_string": "PWNED"}),
        _ => json!({"path": path}),
    }
}

/// What one call did: the gate's decision, the tool's result and the entries it changed.
struct Outcome {
    gated: Gated,
    result: Result<String, String>,
    changed: Vec<String>,
}

async fn run(name: &str, spelling: &str) -> Outcome {
    let (_dir, root) = project();
    let path = spelling.replace("{root}", &root.to_string_lossy());
    let arguments = arguments(name, &path);
    let gated = gated(&gate(&root), name, &arguments);
    let before = snapshot(&root);
    let result = tool(name)
        .call(arguments, &ctx(&root))
        .await
        .map(|out| out.content)
        .map_err(|error| error.to_string());
    let changed = changes(&before, &snapshot(&root));
    Outcome {
        gated,
        result,
        changed,
    }
}

/// What `write_file` must do with a spelling.
#[derive(Debug, Clone, Copy)]
enum Expect {
    /// The gate asks; once a person says yes, the protected file is written.
    Asked,
    /// The gate lets it run and the tool writes an unprotected file.
    Written,
    /// The tool refuses, with this in its message (whatever the gate said).
    Refused(&'static str),
    /// The gate never allows it and the tool refuses it too.
    Database,
}

use Expect::{Asked, Database, Refused, Written};

const BLANK: &str = "with a blank";
const PROC: &str = "under /proc, the system's process and device files";
const DEV: &str = "under /dev, the system's process and device files";
const INTO: &str = "leads through a symbolic link to";
const DB: &str = "belongs to agentctl's session database";

/// Spellings of protected and unprotected paths; `{root}` is the canonical project root.
const SPELLINGS: &[(&str, Expect)] = &[
    // Plain and lexical variants.
    (".git/config", Asked),
    ("./.git/config", Asked),
    ("src/../.git/config", Asked),
    (".git//config", Asked),
    (".git/./config", Asked),
    (".git/config/.", Asked),
    ("{root}/.git/config", Asked),
    ("{root}/./src/../.git/config", Asked),
    ("{root}//.git/config", Asked),
    (".git/hooks/pre-commit", Asked),
    (".agentctl/settings.json", Asked),
    (".claude/settings.json", Asked),
    (".gemini/settings.json", Asked),
    // Nested repositories, and the names a case-insensitive file system takes for `.git`.
    ("sub/.git/config", Asked),
    ("sub/.git/hooks/post-checkout", Asked),
    ("./sub/./.git/config", Asked),
    (".GIT/config", Asked),
    ("sub/.Git/config", Asked),
    // Blanks: never trimmed on one side only.
    (" .agentctl/settings.json", Refused(BLANK)),
    (".agentctl/settings.json ", Refused(BLANK)),
    ("\u{3000}.agentctl/settings.json", Refused(BLANK)),
    (".agentctl/settings.json\u{3000}", Refused(BLANK)),
    ("\u{00A0}.git/config", Refused(BLANK)),
    (".git /config", Refused(BLANK)),
    (" .git/config", Refused(BLANK)),
    ("sub/ .git/config", Refused(BLANK)),
    // Control and invisible characters.
    (".git/config\n", Refused("a control character")),
    ("\t.git/config", Refused("a control character")),
    (".git/config\0", Refused("a NUL byte")),
    ("\u{200B}.git/config", Refused("an invisible character")),
    (".g\u{200C}it/config", Refused("an invisible character")),
    // The process's own view of the file system.
    ("/proc/self/cwd/.git/config", Refused(PROC)),
    (
        "/proc/thread-self/cwd/.agentctl/settings.json",
        Refused(PROC),
    ),
    ("/proc/self/fd/../cwd/.git/config", Refused(PROC)),
    ("/dev/fd/../cwd/.git/config", Refused(DEV)),
    ("/proc/self/root{root}/.git/config", Refused(PROC)),
    ("/../proc/self/cwd/.git/config", Refused(PROC)),
    ("/dev/stdin", Refused(DEV)),
    // In-project symlinks: `g` → .git, `cfg` → .git/config, `hooks` → .git/hooks,
    // `ag` → .agentctl, `up` → a/b, `proc` → /proc/self/root, `fd` → /dev/fd.
    ("g/config", Refused(INTO)),
    ("g/hooks/pre-commit", Refused(INTO)),
    ("./g/../.git/config", Asked),
    ("cfg", Refused(INTO)),
    ("hooks/pre-commit", Refused(INTO)),
    // `..` is taken as written, before links are followed: this is `config` at the top.
    ("hooks/../config", Written),
    ("up/../.git/config", Asked),
    ("up/../../.git/config", Refused("escapes the project root")),
    ("ag/settings.json", Refused(INTO)),
    (
        "proc{root}/.git/config",
        Refused("leads through a symbolic link into /proc"),
    ),
    (
        "proc/etc/passwd",
        Refused("leads through a symbolic link into /proc"),
    ),
    ("fd/0", Refused("leads through a symbolic link into /dev")),
    // As written, `fd/..` is the root: a new nested `cwd/.git`, protected like any other.
    ("fd/../cwd/.git/config", Asked),
    // The session database and the memory store.
    (".agentctl/sessions.db", Database),
    ("./.agentctl/sessions.db", Database),
    (".agentctl/sessions.db-wal", Database),
    (".agentctl/memory.db", Database),
    ("{root}/.agentctl/sessions.db", Database),
    ("src/../.agentctl/./sessions.db", Database),
    (".AGENTCTL/sessions.db", Database),
    ("/proc/self/cwd/.agentctl/sessions.db", Refused(PROC)),
    (" .agentctl/sessions.db", Refused(BLANK)),
    ("db", Refused(DB)),
    ("ag/sessions.db", Refused(DB)),
    // Unprotected: written as asked.
    ("src/main.rs", Written),
    (".gitignore", Written),
    ("src/.gitkeep", Written),
    ("a/b/c.txt", Written),
    ("up/new.txt", Written),
    ("src/my notes.md", Written),
];

/// Whether `write_file`'s outcome is the one the table expects.
fn unexpected(spelling: &str, expect: Expect, outcome: &Outcome) -> Option<String> {
    let touched_protected = outcome.changed.iter().any(|path| is_protected(path));
    let ok = match (expect, &outcome.result) {
        (Asked, Ok(_)) => outcome.gated == Gated::Asked && touched_protected,
        (Written, Ok(_)) => outcome.gated == Gated::Allowed && !touched_protected,
        (Refused(text), Err(error)) => error.contains(text),
        (Database, Err(error)) => outcome.gated == Gated::Database && error.contains(DB),
        _ => false,
    };
    (!ok).then(|| {
        format!(
            "write_file {spelling:?}: expected {expect:?}, got gate {:?}, tool {:?}, changed {:?}",
            outcome.gated, outcome.result, outcome.changed
        )
    })
}

/// Checks that the gate's decision and the tool's effect agree; returns a line describing a
/// disagreement.
fn disagreement(name: &str, spelling: &str, outcome: &Outcome) -> Option<String> {
    let Outcome {
        gated,
        result,
        changed,
    } = outcome;
    let touched_protected = changed.iter().any(|path| is_protected(path));
    let problem = if changed.iter().any(|path| is_database(path)) {
        Some("changed the session database")
    } else if result.is_err() && !changed.is_empty() {
        Some("failed but changed files")
    } else if result.is_ok() && changed.is_empty() {
        Some("succeeded without changing anything")
    } else if *gated == Gated::Database && result.is_ok() {
        Some("the gate refused the session database but the tool wrote")
    } else if touched_protected && *gated != Gated::Asked {
        Some("changed a protected path the gate did not ask about")
    } else if *gated == Gated::Asked && result.is_ok() && !touched_protected {
        Some("the gate asked but the tool changed an unprotected path")
    } else {
        None
    };
    problem.map(|problem| {
        format!(
            "{name} {spelling:?}: {problem}: gate {gated:?}, tool {result:?}, changed {changed:?}"
        )
    })
}

#[tokio::test]
async fn gate_and_tool_agree_on_every_spelling() {
    let mut problems = Vec::new();
    for name in ["write_file", "edit_file", "delete_file"] {
        for (spelling, expect) in SPELLINGS {
            let outcome = run(name, spelling).await;
            problems.extend(disagreement(name, spelling, &outcome));
            if name == "write_file" {
                problems.extend(unexpected(spelling, *expect, &outcome));
            }
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}
