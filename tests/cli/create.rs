//! `agentctl agents create` without a wizard: the flags, the scopes, the `--extended` fields,
//! what happens without a terminal, and names that try to leave the agents folder. The wizard
//! itself is driven through a pseudo-terminal in `create_wizard.rs`.

use super::support::has_script;
use super::support::{TestProject, spawn_piped, text, wait_for};
use std::io::Read as _;
use std::time::Duration;

/// Long enough for a loaded machine; only a hang reaches it.
pub(super) const HANG: Duration = Duration::from_secs(60);

/// Settings with a default model, an alias and an MCP server, so that every list of the
/// wizard has something in it and `--mcp-server github` validates.
pub(super) const SETTINGS: &str = r#"{
  "agents": {"defaultModel": "sonnet"},
  "aliases": {"fast": "ollama:qwen3"},
  "mcpServers": {"github": {"command": "github-mcp-server", "args": ["stdio"]}}
}"#;

pub(super) const REVIEWER: &str =
    "---\nname: code-reviewer\ndescription: Reviews code\n---\nReview.\n";
const FIXER: &str = "---\nname: code-fixer\ndescription: Fixes code\n---\nFix.\n";

pub(super) fn project() -> TestProject {
    let project = TestProject::new();
    project
        .write(".agentctl/settings.json", SETTINGS)
        .write(".agentctl/agents/code-reviewer.md", REVIEWER)
        .write(".agentctl/agents/code-fixer.md", FIXER);
    project
}

pub(super) fn read(path: &std::path::Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn every_flag_without_a_terminal_writes_the_file_it_says() {
    let project = project();
    let args = [
        "agents",
        "create",
        "debug-analyzer",
        "--title",
        "Debug Analyzer",
        "--description",
        "Specialized in analyzing and fixing bugs",
        "--model",
        "fast",
        "--allow",
        "read_file,read_many_files,grep,bash,mcp.github.*",
        "--deny",
        "write_file,delete_file",
        "--mcp-server",
        "github",
        "--context-mode",
        "shared",
        "--scope",
        "project",
    ];
    insta::assert_snapshot!("every_flag_transcript", project.transcript(&args));
    let file = project.root.join(".agentctl/agents/debug-analyzer.md");
    insta::assert_snapshot!("every_flag_file", read(&file));
    // The commands of "Next steps" work on what was written.
    let validate = project.agentctl(&["agents", "validate", "debug-analyzer"]);
    assert!(text(&validate.stdout).contains("Validation: 7/7 passed"));
    let shown = project.json(&["agents", "show", "debug-analyzer", "--format", "json"]);
    assert_eq!(shown["contextMode"], "shared");
    assert_eq!(shown["tools"]["deny"][1], "delete_file");
    assert_eq!(shown["mcp"]["servers"][0], "github");
    assert_eq!(shown["source"]["format"], "native");

    // The seed's spellings (`--tools`, `--mcp`, `--context`) and JSON output.
    let json = project.json(&[
        "agents",
        "create",
        "doc-writer",
        "--description",
        "Writes docs",
        "--tools",
        "read_file",
        "--mcp",
        "github",
        "--context",
        "run",
        "--format",
        "json",
    ]);
    assert_eq!(json["written"], true);
    assert_eq!(json["validation"]["valid"], true);
    assert_eq!(
        json["nextSteps"][2],
        "agentctl agents run doc-writer -p \"your request\""
    );
    let written = read(&project.root.join(".agentctl/agents/doc-writer.md"));
    assert!(
        written.contains("contextMode: run") && written.contains("- github"),
        "{written}"
    );
}

#[test]
fn scope_global_writes_to_the_global_agents_folder() {
    let project = project();
    let output = project.agentctl(&[
        "agents",
        "create",
        "helper",
        "--description",
        "Helps",
        "--scope",
        "global",
    ]);
    let global = project.home.join(".agentctl/agents/helper.md");
    assert!(global.exists());
    assert!(!project.root.join(".agentctl/agents/helper.md").exists());
    assert!(
        text(&output.stdout).starts_with("Created ~/.agentctl/agents/helper.md\n"),
        "{}",
        text(&output.stdout)
    );
    let shown = project.json(&["agents", "show", "helper", "--format", "json"]);
    assert_eq!(shown["source"]["scope"], "global");

    // `--global` is `--scope global`, and contradicts `--scope project`.
    project.agentctl(&[
        "agents",
        "create",
        "other",
        "--description",
        "d",
        "--global",
    ]);
    assert!(project.home.join(".agentctl/agents/other.md").exists());
    let both = project.output(&[
        "agents",
        "create",
        "third",
        "--description",
        "d",
        "--global",
        "--scope",
        "project",
    ]);
    assert_eq!(both.status.code(), Some(1));
    assert!(text(&both.stderr).contains("--global and --scope project contradict each other"));

    // A global agent that a project agent of the same name hides says so.
    let hidden = project.agentctl(&[
        "agents",
        "create",
        "code-reviewer",
        "--description",
        "d",
        "--scope",
        "global",
    ]);
    assert!(
        text(&hidden.stdout)
            .contains("note: .agentctl/agents/code-reviewer.md of the same name takes precedence"),
        "{}",
        text(&hidden.stdout)
    );
}

#[test]
fn extended_flags_write_fields_that_validate() {
    let project = project();
    let args = [
        "agents",
        "create",
        "debug-flow",
        "--extended",
        "--description",
        "Routes bug reports through analysis, fixing and review",
        "--allow",
        "read_file,grep",
        "--trigger",
        "bug,error,crash",
        "--trigger-regex",
        "fix.*test",
        "--trigger-priority",
        "8",
        "--trigger-intent",
        "debug",
        "--handoff",
        "code-reviewer:task.status == 'need-review'",
        "--handoff-payload",
        r#"code-reviewer={"type":"object","properties":{"files":{"type":"array"}}}"#,
        "--guardrail",
        r#"schema={"type":"object","required":["analysis"]}"#,
        "--guardrail",
        "no-secrets",
        "--guardrail-policy",
        "repair",
        "--memory",
        "current_task,analyzed_files",
        "--long-term-memory",
        "--graph-node",
        "analyzer=code-reviewer:analysis",
        "--graph-node",
        "fixer=code-fixer",
        "--graph-edge",
        "analyzer->fixer:analysis.can_auto_fix",
        "--graph-edge",
        "fixer->END",
        "--tracing",
        "--trace-events",
        "llm,tool,handoff",
        "--trace-backend",
        "console",
        "--trace-sample-rate",
        "0.5",
    ];
    let output = project.agentctl(&args);
    // The memory and the handoff bring their tools: the allow list is written as given.
    assert!(
        !text(&output.stdout).contains("to tools.allow"),
        "{}",
        text(&output.stdout)
    );
    let file = project.root.join(".agentctl/agents/debug-flow.md");
    insta::assert_snapshot!("extended_file", read(&file));
    let validate = project.agentctl(&["agents", "validate", "debug-flow", "--format", "json"]);
    let report: serde_json::Value = serde_json::from_slice(&validate.stdout).unwrap();
    assert_eq!(report[0]["valid"], true, "{report:#}");
    let warnings: Vec<&serde_json::Value> = report[0]["checks"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|check| check["diagnostics"].as_array().unwrap())
        .collect();
    assert!(warnings.is_empty(), "{warnings:#?}");
    let shown = project.json(&["agents", "show", "debug-flow", "--format", "json"]);
    assert_eq!(shown["triggers"][0]["priority"], 8);
    assert_eq!(shown["handoffs"][0]["to"], "code-reviewer");
    assert_eq!(shown["guardrails"][1]["validator"], "contains-secret");
    assert_eq!(shown["memory"]["session"][1], "analyzed_files");
    assert_eq!(shown["graph"]["entry"], "analyzer");
    assert_eq!(shown["tracing"]["sampleRate"], 0.5);
    // The router picks it by its trigger.
    let route = project.json(&["route", "the login test has a bug", "--format", "json"]);
    assert_eq!(route["selected"]["agent"], "debug-flow", "{route:#}");
}

#[test]
fn bad_flag_values_are_refused_before_anything_is_written() {
    let project = project();
    let cases: &[(&[&str], &str)] = &[
        (
            &["--trigger-regex", "fix(("],
            "--trigger-regex: invalid regular expression `fix((`",
        ),
        (
            &["--trigger-priority", "3"],
            "--trigger-priority and --trigger-intent qualify a trigger",
        ),
        (
            &["--handoff", "code-reviewer:task.status = 'x'"],
            "--handoff `code-reviewer`: invalid condition",
        ),
        (&["--handoff", "../x"], "is not an agent name"),
        (
            &["--handoff-payload", "code-reviewer={}"],
            "no --handoff code-reviewer to attach it to",
        ),
        (
            &[
                "--handoff",
                "code-reviewer",
                "--handoff-payload",
                "code-reviewer=[1]",
            ],
            "expected a JSON object",
        ),
        (
            &["--guardrail", "schema={oops"],
            "--guardrail `schema={oops`: not valid JSON",
        ),
        (
            &["--guardrail", "max-length=-3"],
            "is not a positive whole number",
        ),
        (
            &["--guardrail", "spellcheck"],
            "unknown check `spellcheck`: use one of schema, json",
        ),
        (
            &["--guardrail-policy", "warn"],
            "pass --guardrail CHECK too",
        ),
        (&["--memory", "task"], "--memory `task`"),
        (
            &[
                "--embedding-model",
                "openai:text-embedding-3-small",
                "--long-term-memory",
                "sqlite",
            ],
            "--embedding-model is for `--long-term-memory vector_store`",
        ),
        (
            &["--graph-edge", "a->b"],
            "need the graph's nodes: pass --graph-node NODE=AGENT",
        ),
        (
            &["--graph-node", "a=code-reviewer", "--graph-edge", "a->b"],
            "--graph-edge `a->b`: no node `b` (nodes: a, or END)",
        ),
        (
            &["--graph-node", "END=code-reviewer"],
            "`END` is the end of the graph",
        ),
        (
            &["--trace-sample-rate", "2"],
            "--trace-sample-rate 2: a fraction of runs, from 0 to 1",
        ),
    ];
    for (flags, message) in cases {
        let mut args = vec!["agents", "create", "bad", "--description", "d"];
        args.extend_from_slice(flags);
        let output = project.output(&args);
        assert_eq!(output.status.code(), Some(1), "{flags:?}");
        let stderr = text(&output.stderr);
        assert!(stderr.contains(message), "{flags:?}: {stderr}");
        assert!(
            !project.root.join(".agentctl/agents/bad.md").exists(),
            "{flags:?}"
        );
    }
    // A value only validation can judge: the report says why, and nothing is written.
    let output = project.output(&[
        "agents",
        "create",
        "bad",
        "--description",
        "d",
        "--model",
        "vllm:qwen",
    ]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        text(&output.stdout).contains("✗ model resolvable")
            && text(&output.stderr)
                .contains(".agentctl/agents/bad.md was not written: the agent does not validate"),
        "{}{}",
        text(&output.stdout),
        text(&output.stderr)
    );
    assert!(!project.root.join(".agentctl/agents/bad.md").exists());
}

#[test]
fn an_existing_agent_is_kept_without_force() {
    let project = project();
    let reviewer = project.root.join(".agentctl/agents/code-reviewer.md");
    let output = project.output(&["agents", "create", "code-reviewer", "--description", "New"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(text(&output.stderr).contains(
        ".agentctl/agents/code-reviewer.md already exists: pass --force to replace it, or `agentctl agents edit code-reviewer`"
    ));
    assert_eq!(read(&reviewer), REVIEWER);
    project.agentctl(&[
        "agents",
        "create",
        "code-reviewer",
        "--description",
        "New",
        "--force",
    ]);
    assert!(read(&reviewer).contains("description: New"));
}

/// The attack: a name that would put the file anywhere but the agents folder.
#[test]
fn names_that_leave_the_agents_folder_are_refused() {
    let project = TestProject::new();
    let before = tree(project.root.parent().unwrap());
    for name in [
        "../evil",
        "../../home/.bashrc",
        "a/b",
        "..",
        ".",
        "/tmp/evil",
        "a\\b",
        "x/../../y",
        ".hidden",
        "evil.md",
        "evil\n",
        "Evil",
        "",
    ] {
        let output = project.output(&["agents", "create", name, "--description", "d", "--force"]);
        assert_eq!(output.status.code(), Some(1), "{name:?}");
        assert!(
            text(&output.stderr).contains("is not a valid agent name: use kebab-case"),
            "{name:?}: {}",
            text(&output.stderr)
        );
    }
    assert_eq!(tree(project.root.parent().unwrap()), before);
}

/// Every path under `dir`, sorted.
fn tree(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path.clone());
            }
            out.push(path);
        }
    }
    out.sort();
    out
}

/// Without someone to answer — stdin not a terminal, `CI` set even on a terminal, or
/// `--no-input` — a missing required answer fails at once, naming its flag.
#[test]
fn without_a_terminal_a_missing_answer_names_its_flag_and_never_waits() {
    let project = project();
    let finished = |command: std::process::Command| {
        let mut child = spawn_piped(command);
        let status = wait_for(HANG, || child.try_wait().unwrap());
        if status.is_none() {
            child.kill().unwrap();
            panic!("agents create waited for an answer nobody can give");
        }
        let mut stdout = String::new();
        let mut stderr = String::new();
        child
            .stdout
            .take()
            .unwrap()
            .read_to_string(&mut stdout)
            .unwrap();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut stderr)
            .unwrap();
        (status.unwrap(), format!("{stdout}{stderr}"))
    };
    // stdin is /dev/null in `project.command`; CI (set where the suite runs on CI) is
    // checked below on its own.
    let no_ci = |args: &[&str]| {
        let mut command = project.command(args);
        command.env_remove("CI");
        command
    };
    let (status, out) = finished(no_ci(&["agents", "create", "--extended"]));
    assert_eq!(status.code(), Some(1));
    assert!(
        out.contains("missing agent name: pass NAME, e.g. `agentctl agents create code-reviewer` (nothing is asked: stdin is not a terminal)"),
        "{out}"
    );
    // Without --description one is derived (issue 36), and the output says so.
    let (status, out) = finished(no_ci(&["agents", "create", "lonely"]));
    assert_eq!(status.code(), Some(0), "{out}");
    assert!(
        out.contains(
            "note: no --description: derived \"Lonely\" from the title and the system prompt"
        ),
        "{out}"
    );
    // Optional answers take their defaults: a template gives the description.
    let (status, out) = finished(no_ci(&[
        "agents",
        "create",
        "sec",
        "--template",
        "security",
        "--extended",
    ]));
    assert_eq!(status.code(), Some(0), "{out}");
    let written = read(&project.root.join(".agentctl/agents/sec.md"));
    assert!(
        written.contains("title: Security Auditor") && !written.contains("triggers"),
        "{written}"
    );

    if !has_script() {
        return;
    }
    // A terminal, but CI says nobody watches it.
    let mut command = project.terminal_command(&["agents", "create", "on-ci"]);
    command.env("CI", "true");
    let (status, out) = finished(command);
    assert_eq!(status.code(), Some(0), "{out}");
    assert!(
        out.contains("note: no --description: derived \"On Ci\"") && !out.contains("? "),
        "{out}"
    );
    // A terminal and --no-input.
    let mut command = project.terminal_command(&[
        "agents",
        "create",
        "quiet",
        "--no-input",
        "--description",
        "d",
    ]);
    command.env_remove("CI");
    let (status, out) = finished(command);
    assert_eq!(status.code(), Some(0), "{out}");
    assert!(!out.contains("Model"), "{out}");
    assert!(read(&project.root.join(".agentctl/agents/quiet.md")).contains("title: Quiet"));
}
