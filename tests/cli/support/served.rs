//! Cassettes served on the wire: a project's `scripted:PATH` models rewritten to
//! `openai:cassette-NAME` and answered by the strict OpenAI fake from the cassette at PATH.

use super::{ServedModel, TestProject};
use std::path::Path;
use std::sync::Mutex;

impl TestProject {
    /// Serves every `scripted:PATH` model of the project on the wire: in the copy's agents and
    /// settings (project and home; files written later too) and in the arguments of each
    /// command, `scripted:PATH` becomes `openai:cassette-NAME`, which the strict OpenAI fake
    /// answers from the cassette at PATH (read afresh, from its first turn, for each command,
    /// concurrent ones too, as a `scripted:` process would). Each request is checked against the API's rules and the
    /// cassette's `expect`; the server fails the test on drop when any was broken.
    pub fn serve_cassettes(&self) -> &Self {
        let served = Cassettes {
            model: ServedModel::start(agentctl_test_support::FakeServer::openai_cassettes([])),
            names: Mutex::default(),
            commands: Default::default(),
        };
        assert!(
            self.served.set(served).is_ok(),
            "serve_cassettes called twice"
        );
        for dir in [&self.root, &self.home] {
            self.serve_files(dir);
        }
        self
    }

    /// The cassette server, once [`serve_cassettes`](Self::serve_cassettes) was called.
    pub fn cassette_server(&self) -> &agentctl_test_support::FakeServer {
        &self
            .served
            .get()
            .expect("serve_cassettes was not called")
            .model
            .server
    }

    /// Rewrites the `scripted:` models of every agent and settings file under `dir`.
    fn serve_files(&self, dir: &Path) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let entry = entry.unwrap();
            let path = entry.path();
            let name = entry.file_name();
            if entry.file_type().unwrap().is_dir() {
                if name != ".git" && name != "cassettes" && name != "node_modules" {
                    self.serve_files(&path);
                }
            } else if let Ok(text) = std::fs::read_to_string(&path) {
                let served = self.served_text(&text);
                if served != text {
                    std::fs::write(&path, served).unwrap();
                }
            }
        }
    }

    /// `text` with each `scripted:PATH` as `openai:cassette-NAME` (when cassettes are served).
    pub(super) fn served_text(&self, text: &str) -> String {
        let Some(served) = self.served.get() else {
            return text.to_owned();
        };
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(at) = rest.find("scripted:") {
            out.push_str(&rest[..at]);
            let after = &rest[at + "scripted:".len()..];
            let end = after
                .find(|c: char| c.is_whitespace() || "\"'`,]}".contains(c))
                .unwrap_or(after.len());
            let path = Path::new(&after[..end]);
            if path
                .extension()
                .is_some_and(|ext| ext == "yaml" || ext == "yml")
            {
                out.push_str(&format!("openai:{}", served.name(&self.root.join(path))));
            } else {
                out.push_str("scripted:");
                out.push_str(&after[..end]);
            }
            rest = &after[end..];
        }
        out.push_str(rest);
        out
    }
}

/// A project's cassettes served on the wire: the strict OpenAI fake and the model name of each
/// cassette file.
pub(super) struct Cassettes {
    pub(super) model: ServedModel,
    /// Commands pointed at the server so far (each gets its own key).
    pub(super) commands: std::sync::atomic::AtomicUsize,
    names: Mutex<std::collections::BTreeMap<std::path::PathBuf, String>>,
}

impl Cassettes {
    /// The model name the cassette at `path` is served under (`cassette-STEM`, with a number
    /// when two files share a stem).
    pub(super) fn name(&self, path: &Path) -> String {
        let mut names = self.names.lock().unwrap();
        if let Some(name) = names.get(path) {
            return name.clone();
        }
        let base = agentctl_test_support::cassette_model(path);
        let mut name = base.clone();
        let mut number = 1;
        while names.values().any(|taken| *taken == name) {
            number += 1;
            name = format!("{base}-{number}");
        }
        names.insert(path.to_path_buf(), name.clone());
        name
    }

    /// Points `command` at the server with a key of its own: the server replays each cassette
    /// for each key from its first turn (reading the file afresh), so every command is a new
    /// `scripted:` process, also while others run. Cassettes named so far that now exist are
    /// served.
    pub(super) fn point(&self, command: &mut std::process::Command) {
        for (path, name) in self.names.lock().unwrap().iter() {
            if path.is_file() && !self.model.server.serves_cassette(name) {
                self.model.server.add_cassette(name, path);
            }
        }
        let client = self
            .commands
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        self.model.point(command);
        command.env("OPENAI_API_KEY", format!("sk-test-cassettes-{client}"));
    }
}
