//! Secrets stay secret: with a provider key set, `printenv` and `env` run by the `bash` tool, a
//! file the agent reads, an MCP server's environment, a `--record` cassette, the session
//! database, trace files and error output never contain the key.

use super::support::{ServedModel, TestProject, everything_server, text};
use std::path::Path;

const KEY: &str = "sk-live-0123456789abcdefSECRET";

const AGENT: &str = "---
name: leaky
description: Tries to see secrets.
model: openai:gpt-4o-mini
mcp:
  servers: [everything]
tools:
  allow: [bash, read_file, mcp.everything.get-env]
---
You look around.
";

/// The files under `dir` whose bytes contain `needle`.
fn contains_anywhere(dir: &Path, needle: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in walk(dir) {
        if let Ok(bytes) = std::fs::read(&entry)
            && String::from_utf8_lossy(&bytes).contains(needle)
        {
            found.push(entry.display().to_string());
        }
    }
    found
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

#[test]
fn a_provider_key_reaches_no_output_cassette_request_or_session_row() {
    let Some(server) = everything_server() else {
        return;
    };
    let project = TestProject::new();
    project
        .write(".agentctl/agents/leaky.md", AGENT)
        .write(
            ".agentctl/settings.json",
            &serde_json::json!({
                "mcpServers": {"everything": {"command": server, "args": ["stdio"]}},
                // Traces (the store's spans and the JSONL files) hold prompts, answers and
                // tool results: the key must not reach them either.
                "agents": {"tracing": true}
            })
            .to_string(),
        )
        // A file that happens to hold the key, as a `.env` would.
        .write("notes.txt", &format!("OPENAI_API_KEY={KEY}\n"));
    let model = ServedModel::openai();
    model.answer_call("c1", "bash", r#"{"command":"printenv; env"}"#);
    model.answer_call("c2", "read_file", r#"{"path":"notes.txt"}"#);
    model.answer_call("c3", "mcp__everything__get-env", "{}");
    // A model that learned the key and repeats it.
    model.answer_text(&format!("I found {KEY}."));
    let mut command = project.command(&[
        "run",
        "leaky",
        "-p",
        "Look around",
        "--approve",
        "safe,low,medium",
        "--record",
        "recorded.yaml",
    ]);
    model.point(&mut command);
    command.env("OPENAI_API_KEY", KEY);
    let output = command.output().unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(
        !text(&output.stderr).contains(KEY),
        "{}",
        text(&output.stderr)
    );

    // What the model was sent after each tool: the tools ran, the key was not in their results.
    let requests = model.server.requests();
    assert_eq!(requests.len(), 4);
    for request in &requests {
        assert!(!request.raw_body.contains(KEY), "{}", request.raw_body);
    }
    let after_env = &requests[1].raw_body;
    assert!(after_env.contains("PATH="), "printenv ran: {after_env}");
    assert!(requests[2].raw_body.contains("OPENAI_API_KEY=[REDACTED]"));
    // The cassette and the session database (and its journal files) never hold it.
    let cassette = std::fs::read_to_string(project.root.join("recorded.yaml")).unwrap();
    assert!(
        cassette.contains("[REDACTED]") && !cassette.contains(KEY),
        "{cassette}"
    );
    assert_eq!(
        contains_anywhere(&project.root.join(".agentctl"), KEY),
        Vec::<String>::new()
    );
    assert!(
        !contains_anywhere(&project.root.join(".agentctl/traces"), "[REDACTED]").is_empty(),
        "the trace files were written, masked"
    );
    model.server.assert_no_violations();

    // An API that echoes the key in its error body: the message is masked.
    model.server.push_raw(
        401,
        "application/json",
        &format!(r#"{{"error":{{"message":"Incorrect API key provided: {KEY}"}}}}"#),
    );
    let mut command = project.command(&["run", "leaky", "-p", "again"]);
    model.point(&mut command);
    command.env("OPENAI_API_KEY", KEY);
    let failed = command.output().unwrap();
    assert!(!failed.status.success());
    let stderr = text(&failed.stderr);
    assert!(stderr.contains("HTTP 401"), "{stderr}");
    assert!(stderr.contains("[REDACTED]"), "{stderr}");
    assert!(!stderr.contains(KEY), "{stderr}");
    assert_eq!(
        contains_anywhere(&project.root.join(".agentctl"), KEY),
        Vec::<String>::new()
    );
}

/// The variables agentctl consumes as credentials, each with a value that does not look like a
/// key (so a leak is found by name, not masked into `[REDACTED]`): passed through by the
/// settings, and still withheld.
const CONSUMED: [(&str, &str); 7] = [
    ("AGENTCTL_DATABASE_URL", "sqlite://.agentctl/sessions.db"),
    ("PGPASSWORD", "pg-password-2"),
    (
        "OTEL_EXPORTER_OTLP_HEADERS",
        "authorization=Bearer%20otel-3",
    ),
    ("OTEL_EXPORTER_OTLP_TRACES_HEADERS", "x-api=otel-4"),
    // A provider key under a custom `apiKeyEnv` name, and a web search key.
    ("BRAVE", "brave-value-5"),
    ("SEARCHPASS", "search-value-6"),
    ("PGUSER", "agentctl-store-user"),
];

/// Connection variables agentctl does not read: withheld because nothing passes them through.
const CONNECTION: [(&str, &str); 3] = [
    (
        "DATABASE_URL",
        "postgres://app:database-pw-1@db.internal/app",
    ),
    ("PGHOST", "db.internal"),
    ("PGSERVICEFILE", "/etc/pg_service.conf"),
];

/// `GITHUB_PAT`, which an MCP server's header references, is consumed too.
const REFERENCED: (&str, &str) = ("GITHUB_PAT", "ghp-value-7");

/// Names present in `text` as `NAME=` at the start of a line (a shell's `env`, its line breaks
/// raw or escaped in JSON; not the tail of a longer name such as `AGENTCTL_TEST_DATABASE_URL=`)
/// or as `"NAME"` (a JSON object, raw or inside a JSON string).
fn names_in(text: &str, names: &[&str]) -> Vec<String> {
    let assigned = |name: &str| {
        let needle = format!("{name}=");
        text.match_indices(&needle).any(|(at, _)| {
            let before = &text[..at];
            before.is_empty() || before.ends_with('\n') || before.ends_with("\\n")
        })
    };
    names
        .iter()
        .filter(|name| {
            assigned(name)
                || text.contains(&format!("\"{name}\""))
                || text.contains(&format!("\\\"{name}\\\""))
        })
        .map(|name| (*name).to_owned())
        .collect()
}

#[test]
fn consumed_secrets_reach_no_command_server_or_validator() {
    let Some(server) = everything_server() else {
        return;
    };
    let project = TestProject::new();
    let passed: Vec<&str> = CONSUMED
        .iter()
        .chain([&REFERENCED])
        .map(|(name, _)| *name)
        .collect();
    let consumed: Vec<&str> = passed
        .iter()
        .copied()
        .chain(CONNECTION.iter().map(|(name, _)| *name))
        .collect();
    // Passing the consumed names through must not re-admit them.
    let mut passthrough = passed.clone();
    passthrough.extend(["LANG", "ORDINARY_VAR"]);
    project
        .write(
            ".agentctl/agents/leaky.md",
            "---
name: leaky
description: Tries to see secrets.
model: openai:gpt-4o-mini
mcp:
  servers: [everything]
tools:
  allow: [bash, mcp.everything.get-env]
guardrails:
  - name: validator-env
    stage: input
    command: [sh, -c, 'env > validator-env.txt']
---
You look around.
",
        )
        .write(
            ".agentctl/settings.json",
            &serde_json::json!({
                "providers": {"brave": {"kind": "openai", "apiKeyEnv": "BRAVE"}},
                "web": {"search": {"backend": "brave", "apiKeyEnv": "SEARCHPASS"}},
                "env": {"passthrough": passthrough},
                "mcpServers": {
                    "everything": {"command": server, "args": ["stdio"]},
                    "github": {
                        "url": "http://127.0.0.1:9/mcp",
                        "headers": {"Authorization": "Bearer ${GITHUB_PAT}"}
                    }
                }
            })
            .to_string(),
        )
        // The user's own configuration, as trusted: what it consumes is withheld.
        .trust();
    let model = ServedModel::openai();
    model.answer_call("c1", "bash", r#"{"command":"env"}"#);
    model.answer_call("c2", "mcp__everything__get-env", "{}");
    model.answer_text("Seen.");
    let mut command = project.command(&[
        "run",
        "leaky",
        "-p",
        "Look around",
        "--approve",
        "safe,low,medium",
    ]);
    model.point(&mut command);
    for (name, value) in CONSUMED.iter().chain([&REFERENCED]).chain(&CONNECTION) {
        command.env(name, value);
    }
    command
        .env("LANG", "C.UTF-8")
        .env("ORDINARY_VAR", "ordinary-value");
    let output = command.output().unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));

    let requests = model.server.requests();
    assert_eq!(requests.len(), 3);
    // The `bash` command's environment: ordinary variables and passed names, no credential.
    let bash = &requests[1].raw_body;
    assert!(bash.contains("TMPDIR="), "the command ran: {bash}");
    assert_eq!(names_in(bash, &consumed), Vec::<String>::new(), "{bash}");
    assert_eq!(
        names_in(bash, &["PATH", "HOME", "LANG", "ORDINARY_VAR"]).len(),
        4,
        "{bash}"
    );
    // The MCP stdio server's (its `get-env` tool returns its environment as JSON).
    let server_env = &requests[2].raw_body;
    assert_eq!(
        names_in(server_env, &["PATH", "HOME", "ORDINARY_VAR"]).len(),
        3,
        "{server_env}"
    );
    assert_eq!(
        names_in(server_env, &consumed),
        Vec::<String>::new(),
        "{server_env}"
    );
    // The `command:` validator's.
    let validator = std::fs::read_to_string(project.root.join("validator-env.txt")).unwrap();
    assert_eq!(
        names_in(&validator, &consumed),
        Vec::<String>::new(),
        "{validator}"
    );
    assert_eq!(
        names_in(&validator, &["PATH", "HOME", "LANG", "ORDINARY_VAR"]).len(),
        4,
        "{validator}"
    );
    model.server.assert_no_violations();

    // `agentctl mcp call` starts the server the same way.
    let mut command = project.command(&["mcp", "call", "everything", "get-env"]);
    for (name, value) in CONSUMED.iter().chain([&REFERENCED]).chain(&CONNECTION) {
        command.env(name, value);
    }
    command.env("ORDINARY_VAR", "ordinary-value");
    let output = command.output().unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    let called = text(&output.stdout);
    assert_eq!(
        names_in(&called, &["PATH", "HOME", "ORDINARY_VAR"]).len(),
        3,
        "{called}"
    );
    assert_eq!(
        names_in(&called, &consumed),
        Vec::<String>::new(),
        "{called}"
    );
}
