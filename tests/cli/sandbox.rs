//! The sandbox end to end: an approved `bash` command of `agentctl run` sees no other process
//! (not agentctl's environment with its key), cannot change `.git` or `.agentctl`, and reaches
//! only the allow-listed hosts, through the proxy and the bridge the `agentctl` binary itself
//! runs.

use super::support::{ServedModel, TestProject, text};
use agentctl_core::SandboxMode;
use agentctl_sandbox::{SandboxPolicy, SandboxStatus, probe};
use std::io::{Read as _, Write as _};
use std::net::TcpListener;

const AGENT: &str = "---
name: boxed
description: Tries the sandbox's walls.
model: openai:gpt-4o-mini
tools:
  allow: [bash]
---
You try things.
";

/// An HTTP server on the host's loopback that answers `hello <path>` to every request.
fn http_server() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut request = [0u8; 4096];
            let read = stream.read(&mut request).unwrap_or(0);
            let request = String::from_utf8_lossy(&request[..read]).into_owned();
            let body = format!("hello {}", request.split(' ').nth(1).unwrap_or("?"));
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    port
}

#[test]
fn an_approved_command_stays_inside_the_sandbox() {
    let namespaces = match probe(&SandboxPolicy::new(SandboxMode::WorkspaceWrite)) {
        SandboxStatus::Enforced {
            namespaces: true, ..
        } => Ok(()),
        status => Err(format!("the sandbox has no namespaces: {status}")),
    };
    if !agentctl_test_support::requirement(namespaces) {
        return;
    }
    let port = http_server();
    let settings = r#"{"sandbox": {"network": {"allow": ["localhost"]}}}"#;
    let project = TestProject::new();
    project
        .write(".agentctl/agents/boxed.md", AGENT)
        .write(".agentctl/settings.json", settings)
        .write(".git/config", "[core]\n");
    // The protected paths are spelled so that the rater cannot see them (a command it marks
    // protected is asked every time, and refused here where nobody can answer): what stops
    // these writes is the sandbox alone.
    let script = format!(
        "grep -l -a sk-test-strict-fake /proc/[0-9]*/environ | wc -l; \
         g=.gi; echo x > ${{g}}t/config; a=.agent; echo '{{}}' > /dev/fd/../cwd/${{a}}ctl/settings.json; \
         curl -sS http://localhost:{port}/listed; echo; \
         curl -sS http://127.0.0.1:{port}/unlisted; \
         curl -sS --noproxy '*' --max-time 10 http://localhost:{port}/direct || echo direct-failed"
    );
    let model = ServedModel::openai();
    let arguments = serde_json::json!({ "command": script }).to_string();
    model.answer_call("c1", "bash", &arguments);
    model.answer_text("done");
    let mut command = project.command(&[
        "run",
        "boxed",
        "-p",
        "Try the walls",
        "--approve",
        "safe,low,medium,high,critical",
    ]);
    model.point(&mut command);
    let output = command.output().unwrap();
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(!stderr.contains("sandbox"), "no gap to report: {stderr}");
    let requests = model.server.requests();
    assert_eq!(requests.len(), 2, "{stderr}");
    // What the tool answered, as the model received it.
    let result = requests[1].body["messages"]
        .as_array()
        .and_then(|messages| messages.last())
        .and_then(|message| message["content"].as_str())
        .unwrap_or_default()
        .to_owned();
    assert!(result.starts_with("exit code: 0\nstdout:\n0\n"), "{result}");
    assert!(result.contains("hello /listed\n"), "{result}");
    assert!(
        result.contains(&format!(
            "agentctl sandbox: 127.0.0.1:{port} is not in sandbox.network.allow"
        )),
        "{result}"
    );
    assert!(result.contains("direct-failed"), "{result}");
    assert_eq!(
        result.matches("Read-only file system").count(),
        2,
        "{result}"
    );
    let root = &project.root;
    assert_eq!(
        std::fs::read_to_string(root.join(".git/config")).unwrap(),
        "[core]\n"
    );
    assert_eq!(
        std::fs::read_to_string(root.join(".agentctl/settings.json")).unwrap(),
        settings
    );
}
