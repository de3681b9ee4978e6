//! Trace files hold prompts, answers and tool results: folders `0700`, files `0600`, and a file
//! an earlier run left readable made private with one notice.

use agentctl_core::{SpanDetail, TraceId, TracePolicy};
use agentctl_trace::{JsonlSink, OpenSpan};
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

/// Ends one session span of `session` into a JSONL sink under `dir`; returns the warnings.
fn trace_once(dir: &Path, session: &str) -> Vec<String> {
    let warnings = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&warnings);
    let warn = Arc::new(move |message: String| seen.lock().unwrap().push(message));
    let sink = Arc::new(JsonlSink::new(dir, warn));
    let span = OpenSpan::root(
        TraceId::random(),
        Some(session),
        sink,
        TracePolicy::default(),
        SpanDetail::Session {
            prompt: "a prompt".into(),
        },
    );
    span.end(None);
    warnings.lock().unwrap().clone()
}

/// Every file and folder under `dir`.
fn tree(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            found.extend(tree(&path));
        }
        found.push(path);
    }
    found
}

#[test]
fn trace_folders_and_files_are_private_and_readable_ones_are_tightened_once() {
    let root = tempfile::tempdir().unwrap();
    let traces = root.path().join(".agentctl/traces");
    assert_eq!(
        trace_once(&traces, "20261201-000000-priv"),
        Vec::<String>::new()
    );
    assert_eq!(mode(&root.path().join(".agentctl")), 0o700);
    let written = tree(&traces);
    let file = written
        .iter()
        .find(|path| path.is_file())
        .expect("a trace file")
        .clone();
    for path in &written {
        let expected = if path.is_dir() { 0o700 } else { 0o600 };
        assert_eq!(mode(path), expected, "{}", path.display());
    }

    // As an agentctl before this one left it.
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
    assert_eq!(
        trace_once(&traces, "20261201-000000-priv"),
        [format!("tightened {} from 0644 to 0600", file.display())]
    );
    assert_eq!(mode(&file), 0o600);
    assert_eq!(std::fs::read_to_string(&file).unwrap().lines().count(), 2);
    assert_eq!(
        trace_once(&traces, "20261201-000000-priv"),
        Vec::<String>::new()
    );
}
