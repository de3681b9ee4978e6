//! Path patterns of `Read(…)` / `Edit(…)` rules, and every spelling of a path a call names.
//!
//! A pattern is gitignore-style, as Claude Code writes it: `//abs/**` is absolute, `~/x` is
//! under the home folder, `/x`, `./x` and `x/y` are relative to the project root, and a
//! pattern without a `/` inside (`.env`, `*.pem`) matches a name at any depth. `*` stays within
//! a folder, `**` crosses folders, and a pattern also covers everything below what it names.
//!
//! A path is judged by each of its spellings: the name made absolute and cleaned of `.` and
//! `..` (`./secrets/../secrets/x` is `secrets/x`), and the file it reaches once symbolic links
//! are followed. A `deny` rule matches when any spelling matches; an `allow` rule only when
//! all do.

pub(crate) use agentctl_sandbox::PathPattern;
use std::path::{Component, Path, PathBuf};

/// Every spelling of `given` as a call in `root` names it: cleaned, and with links followed.
pub(crate) fn spellings(given: &str, root: &Path, home: Option<&Path>) -> Vec<PathBuf> {
    let expanded = match (given.strip_prefix("~/"), home) {
        (Some(rest), Some(home)) => home.join(rest),
        _ => PathBuf::from(given),
    };
    let joined = if expanded.is_absolute() {
        expanded
    } else {
        root.join(expanded)
    };
    let cleaned = clean(&joined);
    let mut out = vec![cleaned.clone()];
    if let Some(real) = resolved(&cleaned)
        && real != cleaned
    {
        out.push(real);
    }
    // `/proc/self/cwd/…` (`/proc/thread-self/cwd`, `/dev/fd/../cwd`, `/proc/<pid>/cwd`) is
    // the calling process's folder: for the tools, the project root — whatever folder agentctl
    // itself was started in, which is what resolving it here reads.
    if let Some(rest) = under_process_cwd(&joined) {
        let spelled = clean(&root.join(rest));
        if !out.contains(&spelled) {
            out.push(spelled);
        }
    }
    out
}

/// What follows a process's `cwd` link in `path` (`/proc/self/cwd/a/b` → `a/b`), when one of
/// its components is `cwd` in a folder under `/proc` (by every spelling of that folder).
fn under_process_cwd(path: &Path) -> Option<PathBuf> {
    let parts: Vec<Component<'_>> = path.components().collect();
    let at = parts.iter().rposition(|part| part.as_os_str() == "cwd")?;
    let folder: PathBuf = parts[..at].iter().collect();
    let in_proc = |folder: &Path| {
        let mut names = folder.components().skip(1);
        names.next().is_some_and(|name| name.as_os_str() == "proc") && names.next().is_some()
    };
    let real = folder.canonicalize().ok();
    if !in_proc(&clean(&folder)) && !real.as_deref().is_some_and(in_proc) {
        return None;
    }
    Some(parts[at + 1..].iter().collect())
}

/// `path` without `.` and with each `..` taking off the component before it.
pub(crate) fn clean(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// The path with symbolic links followed: its longest existing ancestor resolved, the rest
/// appended (a file about to be written does not exist yet).
fn resolved(path: &Path) -> Option<PathBuf> {
    let mut rest = Vec::new();
    let mut current = path;
    loop {
        if let Ok(real) = current.canonicalize() {
            let mut out = real;
            for part in rest.iter().rev() {
                out.push(part);
            }
            return Some(clean(&out));
        }
        rest.push(current.file_name()?.to_owned());
        current = current.parent()?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(pattern: &str, root: &Path, given: &str) -> bool {
        let patterns = PathPattern::new(pattern, &[root.to_path_buf()], Some(Path::new("/h")));
        spellings(given, root, Some(Path::new("/h")))
            .iter()
            .any(|path| patterns.iter().any(|pattern| pattern.matches(path)))
    }

    #[test]
    fn other_spellings_of_a_path_are_the_same_path() {
        let root = Path::new("/p");
        for given in [
            "secrets/x",
            "./secrets/x",
            "./secrets/../secrets/x",
            "src/../secrets/deep/y",
            "/p/secrets/x",
        ] {
            assert!(matches("./secrets/**", root, given), "{given}");
            assert!(matches("/secrets", root, given), "{given}");
        }
        assert!(matches("/secrets", root, "secrets"));
        assert!(!matches("./secrets/**", root, "src/secrets.rs"));
        assert!(matches(".env", root, "deep/down/.env"));
        assert!(matches("*.pem", root, "certs/a.pem"));
        assert!(matches("//etc/**", root, "/etc/passwd"));
        assert!(matches("//etc/**", root, "../../etc/passwd"));
        assert!(matches("~/.ssh/**", root, "~/.ssh/id_ed25519"));
        assert!(matches("src/*.rs", root, "src/a.rs"));
        assert!(!matches("src/*.rs", root, "src/a/b.rs"));
    }

    #[test]
    fn a_process_cwd_link_is_the_project_root() {
        // Whatever folder this process runs in, the tools run in the root.
        let root = Path::new("/p");
        for given in [
            "/proc/self/cwd/secrets/x",
            "/proc/self/cwd/./secrets//x",
            "/proc/thread-self/cwd/secrets/x",
            "/dev/fd/../cwd/secrets/x",
            "/proc/self/root/proc/self/cwd/secrets/x",
            "/proc/1/cwd/secrets/x",
            "//p//secrets///x",
        ] {
            assert!(matches("./secrets/**", root, given), "{given}");
        }
        assert!(!matches("./secrets/**", root, "/proc/self/cwd/src/x"));
        assert!(!matches("./secrets/**", root, "/srv/cwd/secrets/x"));
    }

    #[test]
    fn a_symlink_into_a_denied_folder_is_the_folder() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("secrets")).unwrap();
        std::fs::write(root.join("secrets/key"), "k").unwrap();
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(root.join("secrets"), root.join("innocent")).unwrap();
            assert!(matches("./secrets/**", &root, "innocent/key"));
            assert!(matches("./secrets/**", &root, "innocent/new-file"));
        }
    }
}
