//! Helpers shared by the end-to-end tests.

use std::path::Path;

pub mod request;
mod served;
mod terminal;

pub use terminal::{Terminal, has_script};

/// Copies a directory tree (files and folders only).
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Copies examples/review-fix to `to`, without any session database a local run left there,
/// and marks the copy as a project root.
pub fn copy_example(name: &str, to: &Path) {
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("examples")
            .join(name),
        to,
    );
    for leftover in ["sessions.db", "sessions.db-wal", "sessions.db-shm"] {
        let _ = std::fs::remove_file(to.join(".agentctl").join(leftover));
    }
    std::fs::create_dir_all(to.join(".git")).unwrap();
}

/// A temporary project (with `.agentctl/agents/`) and a home of its own, and the `agentctl`
/// binary run in it: the one harness of the end-to-end tests.
pub struct TestProject {
    /// The project root (canonical).
    pub root: std::path::PathBuf,
    /// `$HOME` of the runs (`$AGENTCTL_HOME` is `home/.agentctl`).
    pub home: std::path::PathBuf,
    /// The cassette server its `scripted:` models are served by, once
    /// [`serve_cassettes`](Self::serve_cassettes) was called.
    served: std::sync::OnceLock<served::Cassettes>,
    _tmp: tempfile::TempDir,
}

impl TestProject {
    /// An empty project with an agents folder.
    pub fn new() -> Self {
        Self::with(|root| std::fs::create_dir_all(root.join(".agentctl/agents")).unwrap())
    }

    /// A copy of examples/review-fix (without any session database a local run left there).
    pub fn example() -> Self {
        Self::example_named("review-fix")
    }

    /// A copy of `examples/NAME` (without any session database a local run left there),
    /// trusted as the user who runs the examples does (`agentctl trust`): the examples'
    /// settings auto-approve what their scripted runs do.
    pub fn example_named(name: &str) -> Self {
        let example = Self::with(|root| copy_example(name, root));
        example.trust();
        example
    }

    /// [`example_named`](Self::example_named) with its cassettes served on the wire by the
    /// strict OpenAI fake ([`serve_cassettes`](Self::serve_cassettes)), before it is trusted.
    pub fn served_example(name: &str) -> Self {
        let example = Self::with(|root| copy_example(name, root));
        example.serve_cassettes();
        example.trust();
        example
    }

    /// Runs `agentctl trust` in the project, which must succeed.
    pub fn trust(&self) -> &Self {
        self.agentctl(&["trust"]);
        self
    }

    /// A copy of `tests/cli/fixtures/NAME`: its `home/` folder becomes the home (global
    /// agents and settings), everything else the project.
    pub fn fixture(name: &str) -> Self {
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/cli/fixtures")
            .join(name);
        let project = Self::with(|root| {
            std::fs::create_dir_all(root).unwrap();
            for entry in std::fs::read_dir(&fixture).unwrap() {
                let entry = entry.unwrap();
                if entry.file_name() == "home" {
                    continue;
                }
                let target = root.join(entry.file_name());
                if entry.file_type().unwrap().is_dir() {
                    copy_dir(&entry.path(), &target);
                } else {
                    std::fs::copy(entry.path(), target).unwrap();
                }
            }
        });
        if fixture.join("home").is_dir() {
            copy_dir(&fixture.join("home"), &project.home);
        }
        project
    }

    fn with(fill: impl FnOnce(&Path)) -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("project");
        fill(&root);
        std::fs::create_dir_all(&root).unwrap();
        let home = tmp.path().join("home");
        std::fs::create_dir_all(&home).unwrap();
        Self {
            root: root.canonicalize().unwrap(),
            home: home.canonicalize().unwrap(),
            served: std::sync::OnceLock::new(),
            _tmp: tmp,
        }
    }

    /// Writes a file of the project, creating folders.
    pub fn write(&self, path: &str, content: &str) -> &Self {
        let path = self.root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let under_cassettes = path
            .components()
            .any(|part| part.as_os_str() == "cassettes");
        let content = if under_cassettes {
            content.to_owned()
        } else {
            self.served_text(content)
        };
        std::fs::write(path, content).unwrap();
        self
    }

    /// `agentctl --project-dir ROOT ARGS…` with the project's home, no provider keys or base
    /// URLs from the test's environment, and a closed stdin (approvals are refused at once).
    /// `schema` and `completions` read no project and refuse `--project-dir`: they run in the
    /// project's folder without it.
    pub fn command(&self, args: &[&str]) -> std::process::Command {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_agentctl"));
        if !matches!(args.first(), Some(&("schema" | "completions"))) {
            command.arg("--project-dir").arg(&self.root);
        }
        let args: Vec<String> = args.iter().map(|arg| self.served_text(arg)).collect();
        command
            .args(&args)
            .env("HOME", &self.home)
            .env("AGENTCTL_HOME", self.home.join(".agentctl"))
            .current_dir(&self.root)
            .stdin(std::process::Stdio::null());
        for name in [
            "OPENAI_API_KEY",
            "OPENAI_BASE_URL",
            "ANTHROPIC_API_KEY",
            "ANTHROPIC_BASE_URL",
            "GEMINI_API_KEY",
            "GOOGLE_API_KEY",
            "GEMINI_BASE_URL",
            // The sessions go to the project's own file unless a test names a store.
            "AGENTCTL_DATABASE_URL",
            // `agents edit` and `agents create` must not open the developer's editor.
            "VISUAL",
            "EDITOR",
        ] {
            command.env_remove(name);
        }
        if let Some(served) = self.served.get() {
            served.point(&mut command);
        }
        command
    }

    /// `command(args)` run under `script`, which gives agentctl a pseudo-terminal for stdin
    /// and stderr (what it sees is on the command's stdout); same environment and folder.
    pub fn terminal_command(&self, args: &[&str]) -> std::process::Command {
        let inner = self.command(args);
        let line: Vec<String> = std::iter::once(inner.get_program())
            .chain(inner.get_args())
            .map(|word| format!("'{}'", word.to_string_lossy().replace('\'', r"'\''")))
            .collect();
        let mut outer = std::process::Command::new("/usr/bin/script");
        outer.args(["-qec", &line.join(" "), "/dev/null"]);
        for (name, value) in inner.get_envs() {
            match value {
                Some(value) => outer.env(name, value),
                None => outer.env_remove(name),
            };
        }
        if let Some(dir) = inner.get_current_dir() {
            outer.current_dir(dir);
        }
        outer
    }

    /// Runs agentctl and returns its output, whatever its exit code.
    pub fn output(&self, args: &[&str]) -> std::process::Output {
        self.command(args).output().unwrap()
    }

    /// Exit code, stdout and stderr of a run, with the project and home paths shown as
    /// `[PROJECT]` and `[HOME]`: the text the snapshots hold.
    pub fn transcript(&self, args: &[&str]) -> String {
        let output = self.output(args);
        format!(
            "exit: {}\n--- stdout\n{}--- stderr\n{}",
            output.status.code().unwrap_or(-1),
            text(&output.stdout),
            text(&output.stderr)
        )
        .replace(&self.root.display().to_string(), "[PROJECT]")
        .replace(&self.home.display().to_string(), "[HOME]")
    }

    /// Runs agentctl, which must succeed, and parses its stdout as JSON.
    pub fn json(&self, args: &[&str]) -> serde_json::Value {
        serde_json::from_slice(&self.agentctl(args).stdout).unwrap()
    }

    /// Runs agentctl and returns its output, failing the test unless it succeeded.
    pub fn agentctl(&self, args: &[&str]) -> std::process::Output {
        let output = self.output(args);
        assert!(
            output.status.success(),
            "agentctl {args:?}: {}\nstdout:\n{}\nstderr:\n{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        output
    }

    /// The project's session store, opened the way agentctl opens it.
    pub fn store(&self) -> agentctl_store_sqlite::SqliteStore {
        agentctl_store_sqlite::SqliteStore::open(&self.root.join(".agentctl/sessions.db")).unwrap()
    }
}

/// A fake model API (strict: it refuses what the real API refuses) served from a runtime of
/// its own while the binary under test talks to it.
pub struct ServedModel {
    /// The fake server: queue replies, read requests, check violations.
    pub server: agentctl_test_support::FakeServer,
    /// Shut down in the background on drop, so that an async test may own the server too.
    runtime: Option<tokio::runtime::Runtime>,
}

impl Drop for ServedModel {
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

impl ServedModel {
    /// A strict fake of the OpenAI Chat Completions API.
    pub fn openai() -> Self {
        Self::start(agentctl_test_support::FakeServer::openai())
    }

    /// A strict fake of the Anthropic Messages API.
    pub fn anthropic() -> Self {
        Self::start(agentctl_test_support::FakeServer::anthropic())
    }

    /// The server `start` makes, run on a runtime of its own (started from a thread of its
    /// own, so that an async test may call this too).
    fn start(
        start: impl std::future::Future<Output = agentctl_test_support::FakeServer> + Send,
    ) -> Self {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let server =
            std::thread::scope(|scope| scope.spawn(|| runtime.block_on(start)).join().unwrap());
        Self {
            server,
            runtime: Some(runtime),
        }
    }

    /// A strict fake of the OpenAI Chat Completions API answering each request with what
    /// `route` says for it (for runs whose calls interleave).
    pub fn routed(
        route: impl Fn(&agentctl_core::ModelRequest) -> agentctl_core::ModelResponse
        + Send
        + Sync
        + 'static,
    ) -> Self {
        Self::start(agentctl_test_support::FakeServer::openai_routed(route))
    }

    /// Queues a streamed answer with `text`.
    pub fn answer_text(&self, text: &str) {
        use agentctl_test_support::openai;
        self.server.push_sse([
            openai::text_chunk(text),
            openai::finish_chunk("stop"),
            openai::usage_chunk(10, 5),
            openai::done(),
        ]);
    }

    /// Queues a streamed answer calling one tool.
    pub fn answer_call(&self, id: &str, name: &str, arguments: &str) {
        use agentctl_test_support::openai;
        self.server.push_sse([
            openai::tool_call_chunk(0, Some(id), Some(name), arguments),
            openai::finish_chunk("tool_calls"),
            openai::usage_chunk(10, 5),
            openai::done(),
        ]);
    }

    /// `command` pointed at this server with a test key.
    pub fn point(&self, command: &mut std::process::Command) {
        command
            .env("OPENAI_API_KEY", "sk-test-strict-fake")
            .env("OPENAI_BASE_URL", self.server.base_url())
            .env("ANTHROPIC_API_KEY", "sk-ant-test-strict-fake")
            .env("ANTHROPIC_BASE_URL", self.server.base_url());
    }

    /// Runs `agentctl ARGS` in `project` against this server.
    pub fn run(&self, project: &TestProject, args: &[&str]) -> std::process::Output {
        let mut command = project.command(args);
        self.point(&mut command);
        command.output().unwrap()
    }
}

/// Text of a process's output stream.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Polls `check` every 50 ms until it returns something or `limit` passes (then `None`): a
/// limit catches a hang, it asserts no speed.
pub fn wait_for<T>(limit: std::time::Duration, mut check: impl FnMut() -> Option<T>) -> Option<T> {
    let started = std::time::Instant::now();
    loop {
        if let Some(value) = check() {
            return Some(value);
        }
        if started.elapsed() > limit {
            return None;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// Starts `command` with its stdin, stdout and stderr piped to the test.
pub fn spawn_piped(mut command: std::process::Command) -> std::process::Child {
    use std::process::Stdio;
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// The events of a `--format stream-json` run, one JSON value a line.
///
/// Every line must match the schema `agentctl schema run-event` (or `graph-event`, for a
/// graph's lines) prints.
pub fn events(output: &std::process::Output) -> Vec<serde_json::Value> {
    let events: Vec<serde_json::Value> = text(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let graph = events
        .first()
        .is_some_and(|event| event["type"] == "graph_started");
    for event in &events {
        check_shape(if graph { "graph-event" } else { "run-event" }, event);
    }
    events
}

/// Fails the test unless `value` matches the JSON Schema `agentctl schema SHAPE` prints.
pub fn check_shape(shape: &str, value: &serde_json::Value) {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    static SCHEMAS: OnceLock<Mutex<HashMap<String, serde_json::Value>>> = OnceLock::new();
    let schema = SCHEMAS
        .get_or_init(Mutex::default)
        .lock()
        .unwrap()
        .entry(shape.to_owned())
        .or_insert_with(|| {
            let output = std::process::Command::new(env!("CARGO_BIN_EXE_agentctl"))
                .args(["schema", shape])
                .output()
                .unwrap();
            assert!(output.status.success(), "agentctl schema {shape}");
            serde_json::from_slice(&output.stdout).unwrap()
        })
        .clone();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(value)
        .map(|error| format!("{} at {}", error, error.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "output does not match `agentctl schema {shape}`:\n{}\n{value:#}",
        errors.join("\n")
    );
}

/// The `tool_result` event of call `id`.
pub fn tool_result<'a>(events: &'a [serde_json::Value], id: &str) -> &'a serde_json::Value {
    events
        .iter()
        .find(|event| event["type"] == "tool_result" && event["id"] == id)
        .unwrap_or_else(|| panic!("no tool_result for {id}: {events:#?}"))
}

/// The npm-installed MCP everything server; missing is a failure under CI, a skip elsewhere.
pub fn everything_server() -> Option<std::path::PathBuf> {
    let bin = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("crates/mcp/tests/servers/node_modules/.bin/mcp-server-everything");
    let check = if bin.exists() {
        Ok(())
    } else {
        Err(format!(
            "{} is missing: run `npm ci --prefix crates/mcp/tests/servers`",
            bin.display()
        ))
    };
    agentctl_test_support::requirement(check).then_some(bin)
}

/// The binary of `examples/NAME.rs`, which cargo builds next to `agentctl` (built here when a
/// lone `cargo test --test cli` did not).
pub fn example_binary(name: &str) -> std::path::PathBuf {
    let bin = Path::new(env!("CARGO_BIN_EXE_agentctl"));
    let example = bin
        .parent()
        .unwrap()
        .join("examples")
        .join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    // Built every time (a no-op when it is up to date): a binary left by an older build would
    // test old code.
    let status = std::process::Command::new(env!("CARGO"))
        .args(["build", "--example", name])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .unwrap();
    assert!(status.success());
    example
}

/// The review-then-fix example's first step, as JSON: the reviewer reads `src/stats.py`.
pub const REVIEW: &[&str] = &[
    "run",
    "code-reviewer",
    "-p",
    "Review src/stats.py",
    "--format",
    "json",
];

/// Its second step, as JSON: the fixer continues the session on its cassette.
pub const FIX: &[&str] = &[
    "run",
    "bug-fixer",
    "--continue",
    "--model",
    "scripted:.agentctl/cassettes/bug-fixer.yaml",
    "--approve",
    "safe,low,medium",
    "-p",
    "Fix what the review found",
    "--format",
    "json",
];
