//! The shape the command line keeps: its modules form no circle, the `run` front end stays
//! small, one tokio runtime serves the process, and no front end decides whether an agent is a
//! graph or queues approval questions — the session does both.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `dir`, with its text.
fn sources(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|ext| ext == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                found.push((path, text));
            }
        }
    }
    found.sort();
    found
}

/// The top-level module a file belongs to (`run` for `run.rs` and `run/repl.rs`).
fn module_of(path: &Path) -> String {
    let relative = path.strip_prefix(src()).unwrap();
    let first = relative.components().next().unwrap().as_os_str();
    first.to_string_lossy().trim_end_matches(".rs").to_owned()
}

/// `crate::NAME` references of each top-level module to the others.
fn edges() -> BTreeMap<String, BTreeSet<String>> {
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (path, text) in sources(&src()) {
        let from = module_of(&path);
        for (at, _) in text.match_indices("crate::") {
            let name: String = text[at + "crate::".len()..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() && name != from {
                edges.entry(from.clone()).or_default().insert(name);
            }
        }
    }
    edges
}

/// A path `from → … → from`, if `from` is on a circle.
fn circle(edges: &BTreeMap<String, BTreeSet<String>>, from: &str) -> Option<Vec<String>> {
    let mut stack = vec![vec![from.to_owned()]];
    let mut seen = BTreeSet::new();
    while let Some(path) = stack.pop() {
        let last = path.last().unwrap();
        for next in edges.get(last).into_iter().flatten() {
            if next == from {
                let mut circle = path.clone();
                circle.push(next.clone());
                return Some(circle);
            }
            if seen.insert(next.clone()) {
                let mut longer = path.clone();
                longer.push(next.clone());
                stack.push(longer);
            }
        }
    }
    None
}

#[test]
fn the_modules_form_no_circle() {
    let edges = edges();
    assert!(edges.len() > 10, "the module graph was not read: {edges:?}");
    let circles: Vec<String> = edges
        .keys()
        .filter_map(|module| circle(&edges, module))
        .map(|circle| circle.join(" → "))
        .collect();
    assert!(
        circles.is_empty(),
        "module circles:\n{}",
        circles.join("\n")
    );
}

#[test]
fn the_run_front_end_is_at_most_700_lines() {
    let mut files = vec![(src().join("run.rs"), String::new())];
    files[0].1 = std::fs::read_to_string(&files[0].0).unwrap();
    files.extend(sources(&src().join("run")));
    let lines: usize = files.iter().map(|(_, text)| text.lines().count()).sum();
    assert!(lines <= 700, "run.rs + run/ hold {lines} lines");
}

#[test]
fn one_tokio_runtime_serves_the_process() {
    let builders: Vec<String> = sources(&src())
        .into_iter()
        .filter(|(_, text)| text.contains("runtime::Builder"))
        .map(|(path, _)| path.display().to_string())
        .collect();
    assert_eq!(builders.len(), 1, "{builders:?}");
    assert!(builders[0].ends_with("rt.rs"), "{builders:?}");
}

#[test]
fn no_front_end_decides_agent_or_graph_or_queues_questions() {
    let front_ends = ["run", "drive", "render", "mcp_cmd"];
    for (path, text) in sources(&src()) {
        let module = module_of(&path);
        if !front_ends.contains(&module.as_str()) {
            continue;
        }
        let shown = path.display();
        // Whether an agent is a graph is the session's decision, whatever the front end.
        assert!(!text.contains("spec.graph"), "{shown} looks at `graph:`");
        // Questions come as events and go back as operations: no queue, no callback.
        for queue in ["mpsc", "oneshot", "Approver"] {
            assert!(!text.contains(queue), "{shown} uses `{queue}`");
        }
    }
}
