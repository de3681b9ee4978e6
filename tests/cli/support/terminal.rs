//! agentctl on a pseudo-terminal (`script`): prompts read as they are drawn and answered.

use super::{TestProject, spawn_piped, wait_for};
use std::io::{Read as _, Write as _};
use std::sync::{Arc, Mutex};

/// How long a terminal test waits for a prompt or for agentctl to end.
const TERMINAL_WAIT: std::time::Duration = std::time::Duration::from_secs(60);

/// Whether `script` can give agentctl a terminal (a failure under CI, a skip elsewhere).
pub fn has_script() -> bool {
    let check = if std::path::Path::new("/usr/bin/script").exists() {
        Ok(())
    } else {
        Err("no `script` (util-linux) to give agentctl a terminal".to_owned())
    };
    agentctl_test_support::requirement(check)
}

/// agentctl on a pseudo-terminal (`script`), read as it draws and answered prompt by prompt.
pub struct Terminal {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    screen: Arc<Mutex<Vec<u8>>>,
    reader: std::thread::JoinHandle<()>,
    /// How much of the screen the answers so far have consumed.
    read: usize,
}

impl Terminal {
    pub fn start(project: &TestProject, args: &[&str]) -> Self {
        Self::start_command(project.terminal_command(args))
    }

    /// [`start`](Self::start) with a `terminal_command` the caller set up further (a model
    /// pointed at a fake server).
    pub fn start_command(mut command: std::process::Command) -> Self {
        command.env_remove("CI").env("TERM", "xterm-256color");
        let mut child = spawn_piped(command);
        let stdin = child.stdin.take().unwrap();
        let mut stdout = child.stdout.take().unwrap();
        let screen = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&screen);
        let reader = std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = stdout.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        });
        Self {
            child,
            stdin,
            screen,
            reader,
            read: 0,
        }
    }

    /// Waits for `prompt` to be drawn after the last answer, then types `keys`.
    pub fn answer(&mut self, prompt: &str, keys: &str) {
        let needle = prompt.as_bytes();
        let found = wait_for(TERMINAL_WAIT, || {
            let screen = self.screen.lock().unwrap();
            screen[self.read..]
                .windows(needle.len())
                .position(|w| w == needle)
                .map(|at| self.read + at + needle.len())
        });
        let Some(end) = found else {
            let _ = self.child.kill();
            panic!("no prompt `{prompt}` on the screen:\n{}", self.text());
        };
        self.read = end;
        self.stdin.write_all(keys.as_bytes()).unwrap();
        self.stdin.flush().unwrap();
    }

    /// Waits for the command to end; its exit status and the screen without escape codes.
    pub fn finish(mut self) -> (std::process::ExitStatus, String) {
        let status = wait_for(TERMINAL_WAIT, || self.child.try_wait().unwrap());
        let Some(status) = status else {
            let _ = self.child.kill();
            panic!("agentctl did not finish:\n{}", self.text());
        };
        // The reader ends with the pipe, once it has the last bytes.
        let screen = Arc::clone(&self.screen);
        self.reader.join().unwrap();
        let text = strip_escapes(&String::from_utf8_lossy(&screen.lock().unwrap()));
        (status, text.replace('\r', ""))
    }

    pub fn text(&self) -> String {
        strip_escapes(&String::from_utf8_lossy(&self.screen.lock().unwrap())).replace('\r', "")
    }
}

/// The screen's text without ANSI escape sequences.
fn strip_escapes(screen: &str) -> String {
    let mut out = String::new();
    let mut chars = screen.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\x1b' {
            out.push(c);
            continue;
        }
        if chars.peek() == Some(&'[') {
            chars.next();
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() || c == '~' {
                    break;
                }
            }
        }
    }
    out
}
