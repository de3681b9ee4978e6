//! Fingerprints: SHA-256 of the project's policy files and of the files a project MCP server
//! runs (its *scripts*), found among the words of its command line.

use crate::input::{InputFileError, InputLimit, InputProblem, open_input};
use sha2::{Digest, Sha256};
use std::io::Read;
use std::path::{Component, Path, PathBuf};

/// SHA-256 of `bytes`, in lowercase hex.
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

fn hex(digest: &[u8]) -> String {
    digest.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// SHA-256 of a regular file, streamed (never more than [`InputLimit::SCRIPT`] bytes).
fn hash_file(path: &Path) -> Result<String, InputFileError> {
    let limit = InputLimit::SCRIPT;
    let mut file = open_input(path, limit)?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0_u8; 64 * 1024];
    let mut total: u64 = 0;
    loop {
        let read = file.read(&mut buffer).map_err(|error| InputFileError {
            path: path.to_path_buf(),
            problem: InputProblem::Io(error),
        })?;
        if read == 0 {
            break;
        }
        total = total.saturating_add(read as u64);
        if total > limit.max_bytes {
            return Err(InputFileError {
                path: path.to_path_buf(),
                problem: InputProblem::TooLarge {
                    size: None,
                    max_bytes: limit.max_bytes,
                    what: limit.what,
                },
            });
        }
        hasher.update(&buffer[..read]);
    }
    Ok(hex(&hasher.finalize()))
}

/// A file of the project that an MCP server runs or reads as code: named by a word of its
/// command line (`python3 tools/server.py`, `node --require=./hook.js x`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerScript {
    /// The file, as the server will open it.
    pub path: PathBuf,
    /// The file relative to the project root, `/`-separated: how the trust store names it.
    pub relative: String,
    /// SHA-256 of its contents, in hex.
    pub sha256: String,
}

/// The scripts among `words` (a server's command and arguments): every word, and every value
/// attached to an option (`--opt=FILE`), that names an existing regular file inside
/// `project_root` once resolved against `cwd`. Inside means the path as written (after `.`
/// and `..`) or the file it leads to through symlinks lies under the root. Words that name
/// nothing, folders, FIFOs and devices are not scripts; a script that cannot be read is an
/// error (the server would run something nobody can vouch for).
///
/// ```
/// let dir = tempfile::tempdir()?;
/// std::fs::create_dir(dir.path().join("tools"))?;
/// std::fs::write(dir.path().join("tools/server.py"), "print('hi')")?;
/// let scripts = agentctl_config::server_scripts(
///     dir.path(),
///     dir.path(),
///     &["python3", "tools/server.py", "--port=8080"],
/// )?;
/// assert_eq!(scripts.len(), 1);
/// assert_eq!(scripts[0].relative, "tools/server.py");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn server_scripts(
    project_root: &Path,
    cwd: &Path,
    words: &[&str],
) -> Result<Vec<ServerScript>, InputFileError> {
    let root = project_root
        .canonicalize()
        .unwrap_or_else(|_| project_root.to_path_buf());
    let cwd = if cwd.is_absolute() {
        cwd.to_path_buf()
    } else {
        root.join(cwd)
    };
    let mut scripts: Vec<ServerScript> = Vec::new();
    for candidate in words.iter().flat_map(|word| candidates(word)) {
        // `/proc/self/…` and `/dev/fd/…` name the server's own process, not agentctl's.
        let Some(path) = as_server_sees(&cwd.join(candidate), &cwd) else {
            return Err(InputFileError {
                path: PathBuf::from(candidate),
                problem: InputProblem::Io(std::io::Error::other(
                    "names a file through the server's own process (/proc/self, /dev/fd), \
                     which cannot be checked before it starts",
                )),
            });
        };
        let lexical = normalise(&path);
        let Ok(metadata) = std::fs::metadata(&path) else {
            continue;
        };
        if !metadata.is_file() {
            continue;
        }
        let real = path.canonicalize().unwrap_or_else(|_| lexical.clone());
        let relative = match (lexical.strip_prefix(&root), real.strip_prefix(&root)) {
            (Ok(inside), _) | (Err(_), Ok(inside)) => slash_path(inside),
            (Err(_), Err(_)) => continue,
        };
        if scripts.iter().any(|script| script.relative == relative) {
            continue;
        }
        let sha256 = hash_file(&path)?;
        scripts.push(ServerScript {
            path,
            relative,
            sha256,
        });
    }
    Ok(scripts)
}

/// The paths a word may name: itself, the value of `--opt=VALUE` / `-o=VALUE`, and of a
/// short option with its value attached (`-rFILE`).
fn candidates(word: &str) -> Vec<&str> {
    let mut out = Vec::new();
    if !word.is_empty() {
        out.push(word);
    }
    if word.starts_with('-')
        && let Some((_, value)) = word.split_once('=')
        && !value.is_empty()
    {
        out.push(value);
    }
    if let Some(attached) = word.strip_prefix('-').filter(|rest| !rest.starts_with('-'))
        && let Some((at, _)) = attached.char_indices().nth(1)
    {
        out.push(&attached[at..]);
    }
    out
}

/// `path` as the server process will resolve it: its own `/proc/self/cwd` is `cwd`, its
/// `/proc/self/root` is `/`, `/dev/fd` is `/proc/self/fd`. `None` for anything else reached
/// through the server's own process (an open file descriptor, its executable).
fn as_server_sees(path: &Path, cwd: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    let mut components = path.components();
    while let Some(component) = components.next() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
        if out == Path::new("/dev/fd") {
            out = PathBuf::from("/proc/self/fd");
        }
        if ["/dev/stdin", "/dev/stdout", "/dev/stderr"]
            .iter()
            .any(|special| out == Path::new(special))
            || out.parent() == Some(Path::new("/proc/self/fd"))
        {
            return None;
        }
        // Inside the server's own `/proc` entry only `cwd`, `root` and `fd/..` are known.
        while out == Path::new("/proc/self") || out == Path::new("/proc/thread-self") {
            match components.next()? {
                Component::Normal(name) if name == "cwd" => out = cwd.to_path_buf(),
                Component::Normal(name) if name == "root" => out = PathBuf::from("/"),
                Component::Normal(name) if name == "fd" => {
                    if components.next()? != Component::ParentDir {
                        return None;
                    }
                }
                Component::ParentDir => {
                    out.pop();
                }
                _ => return None,
            }
        }
    }
    Some(out)
}

/// `path` with `.` and `..` resolved as text (no file system access).
fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

fn slash_path(path: &Path) -> String {
    path.components()
        .map(|component| component.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_are_project_files_named_by_words_or_option_values() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("project");
        let outside = dir.path().join("outside.py");
        std::fs::create_dir_all(root.join("tools/sub")).unwrap();
        std::fs::write(root.join("tools/server.py"), "a").unwrap();
        std::fs::write(root.join("tools/hook.js"), "b").unwrap();
        std::fs::write(&outside, "c").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(&outside, root.join("tools/link.py")).unwrap();
        let words = [
            "python3",
            "./tools/../tools/server.py",
            "--require=tools/hook.js",
            "tools/sub",
            "../outside.py",
            "tools/link.py",
            "missing.py",
            "tools/server.py",
        ];
        let scripts = server_scripts(&root, &root, &words).unwrap();
        let names: Vec<_> = scripts
            .iter()
            .map(|script| script.relative.as_str())
            .collect();
        let mut expected = vec!["tools/server.py", "tools/hook.js"];
        if cfg!(unix) {
            expected.push("tools/link.py");
        }
        assert_eq!(names, expected);
        assert_eq!(scripts[0].sha256, sha256_hex(b"a"));
        // A relative cwd is the project's; the word is resolved against it.
        let scripts = server_scripts(&root, Path::new("tools"), &["node", "hook.js"]).unwrap();
        assert_eq!(scripts[0].relative, "tools/hook.js");
    }

    #[test]
    fn the_servers_own_process_paths_are_its_cwd_and_root() {
        let cwd = Path::new("/work/p");
        let sees = |path: &str| as_server_sees(Path::new(path), cwd);
        assert_eq!(
            sees("/proc/self/cwd/tools/s.py"),
            Some("/work/p/tools/s.py".into())
        );
        assert_eq!(
            sees("/dev/fd/../cwd/tools/s.py"),
            Some("/work/p/tools/s.py".into())
        );
        assert_eq!(
            sees("/proc/thread-self/root/work/p/s.py"),
            Some("/work/p/s.py".into())
        );
        assert_eq!(
            sees("/proc/self/fd/../cwd/./a/../s.py"),
            Some("/work/p/s.py".into())
        );
        assert_eq!(sees("/work/p/./tools/../s.py"), Some("/work/p/s.py".into()));
        assert_eq!(sees("/proc/self/fd/3"), None);
        assert_eq!(sees("/dev/fd/3"), None);
        assert_eq!(sees("/dev/stdin"), None);
        assert_eq!(sees("/proc/self/exe"), None);
    }

    #[test]
    fn process_paths_and_attached_values_reach_the_same_script() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir(root.join("tools")).unwrap();
        std::fs::write(root.join("tools/s.py"), "x").unwrap();
        for word in [
            "/proc/self/cwd/tools/s.py",
            "/dev/fd/../cwd/tools/s.py",
            "-rtools/s.py",
            "--require=./tools/s.py",
        ] {
            let scripts = server_scripts(&root, &root, &["node", word]).unwrap();
            assert_eq!(scripts.len(), 1, "{word}");
            assert_eq!(scripts[0].relative, "tools/s.py", "{word}");
        }
        let error = server_scripts(&root, &root, &["node", "/proc/self/fd/0"]).unwrap_err();
        assert!(error.to_string().contains("cannot be checked"), "{error}");
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_not_a_script_and_is_never_opened() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        rustix::fs::mkfifoat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR,
        )
        .unwrap();
        assert!(
            server_scripts(dir.path(), dir.path(), &["pipe"])
                .unwrap()
                .is_empty()
        );
    }
}
