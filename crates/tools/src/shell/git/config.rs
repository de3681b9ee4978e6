//! Reads a repository's git configuration for the keys that make git run a program
//! (`core.fsmonitor`, `core.pager`, `diff.<driver>.textconv`, `filter.<driver>.clean`,
//! `alias.x = !cmd`, …), following `include.path` and `includeIf.<condition>.path` — whatever
//! their condition, since the rater does not evaluate it. Files are read up to a size cap;
//! a file that cannot be read, or a line that is not understood, is a reason too.

use std::io::Read;
use std::path::{Path, PathBuf};

/// Largest configuration file read.
const MAX_CONFIG_BYTES: u64 = 1024 * 1024;
/// Most files read through includes.
const MAX_FILES: usize = 16;

/// `Err(why)` if any of `files` (those that exist) sets a key that runs a program.
pub(crate) fn check(files: &[PathBuf]) -> Result<(), String> {
    let mut queue: Vec<PathBuf> = files.to_vec();
    let mut read = 0;
    while let Some(file) = queue.pop() {
        let Some(text) = read_config(&file)? else {
            continue;
        };
        read += 1;
        if read > MAX_FILES {
            return Err("the repository's configuration includes too many files to check".into());
        }
        queue.extend(scan(&text, &file)?);
    }
    Ok(())
}

/// The text of a configuration file; `None` if it does not exist (git skips it too).
fn read_config(file: &Path) -> Result<Option<String>, String> {
    let shown = file.display();
    let meta = match file.metadata() {
        Ok(meta) => meta,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => {
            return Err(format!(
                "the git configuration {shown} cannot be read ({error})"
            ));
        }
    };
    if !meta.is_file() {
        return Err(format!("the git configuration {shown} is not a file"));
    }
    let mut bytes = Vec::new();
    std::fs::File::open(file)
        .and_then(|handle| handle.take(MAX_CONFIG_BYTES + 1).read_to_end(&mut bytes))
        .map_err(|error| format!("the git configuration {shown} cannot be read ({error})"))?;
    if bytes.len() as u64 > MAX_CONFIG_BYTES {
        return Err(format!(
            "the git configuration {shown} is too large to check"
        ));
    }
    Ok(Some(String::from_utf8_lossy(&bytes).into_owned()))
}

/// Checks one file's text; returns the files it includes.
fn scan(text: &str, file: &Path) -> Result<Vec<PathBuf>, String> {
    let mut includes = Vec::new();
    let mut section = String::new();
    let mut subsection: Option<String> = None;
    let mut lines = text.lines().enumerate();
    while let Some((index, raw)) = lines.next() {
        let bad = || {
            format!(
                "{}:{}: a line git reads is not understood",
                file.display(),
                index + 1
            )
        };
        let mut line = raw.trim_start().to_owned();
        // A value continued on the next line.
        while line.ends_with('\\') && !line.ends_with("\\\\") {
            line.pop();
            match lines.next() {
                Some((_, next)) => line.push_str(next),
                None => break,
            }
        }
        let mut rest = line.as_str();
        if rest.starts_with('[') {
            let end = header_end(rest).ok_or_else(bad)?;
            let (name, sub) = header(&rest[1..end]).ok_or_else(bad)?;
            section = name;
            subsection = sub;
            rest = rest[end + 1..].trim_start();
        }
        if rest.is_empty() || rest.starts_with('#') || rest.starts_with(';') {
            continue;
        }
        let (key, value) = entry(rest).ok_or_else(bad)?;
        if section.is_empty() {
            return Err(bad());
        }
        if key == "path" && matches!(section.as_str(), "include" | "includeif") {
            includes.push(included(&value, file));
            continue;
        }
        if runs_program(&section, subsection.as_deref(), &key, &value) {
            let name = match &subsection {
                Some(sub) => format!("{section}.{sub}.{key}"),
                None => format!("{section}.{key}"),
            };
            return Err(format!(
                "the repository's configuration sets {name}, which makes git run a program"
            ));
        }
    }
    Ok(includes)
}

/// Where a section header's `]` is (quotes may hold one).
fn header_end(line: &str) -> Option<usize> {
    let mut quoted = false;
    let mut escaped = false;
    for (at, c) in line.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '"' => quoted = !quoted,
            ']' if !quoted => return Some(at),
            _ => {}
        }
    }
    None
}

/// `core`, `remote "origin"`, `branch.main`: the section (lower case) and its subsection.
fn header(inside: &str) -> Option<(String, Option<String>)> {
    let inside = inside.trim();
    if let Some((name, rest)) = inside.split_once(char::is_whitespace) {
        let sub = rest.trim().strip_prefix('"')?.strip_suffix('"')?;
        let sub = sub.replace("\\\"", "\"").replace("\\\\", "\\");
        return valid_name(name).then(|| (name.to_ascii_lowercase(), Some(sub)));
    }
    match inside.split_once('.') {
        Some((name, sub)) => {
            valid_name(name).then(|| (name.to_ascii_lowercase(), Some(sub.to_ascii_lowercase())))
        }
        None => valid_name(inside).then(|| (inside.to_ascii_lowercase(), None)),
    }
}

fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.')
}

/// `key = value` (or a lone `key`, which is `true`): the key in lower case and the value
/// with quotes, escapes and comments resolved.
fn entry(line: &str) -> Option<(String, String)> {
    let end = line
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .unwrap_or(line.len());
    let key = &line[..end];
    if key.is_empty() || !key.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return None;
    }
    let rest = line[end..].trim_start();
    let value = if rest.is_empty() || rest.starts_with('#') || rest.starts_with(';') {
        "true".to_owned()
    } else {
        value(rest.strip_prefix('=')?)
    };
    Some((key.to_ascii_lowercase(), value))
}

fn value(raw: &str) -> String {
    let mut out = String::new();
    let mut quoted = false;
    let mut chars = raw.trim().chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => quoted = !quoted,
            '\\' => match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some(other) => out.push(other),
                None => {}
            },
            '#' | ';' if !quoted => break,
            other => out.push(other),
        }
    }
    out.trim_end().to_owned()
}

/// The file an include names: `~/` is the home folder, a relative path is relative to the
/// including file's folder.
fn included(value: &str, file: &Path) -> PathBuf {
    if let Some(rest) = value.strip_prefix("~/")
        && let Some(home) = std::env::var_os("HOME")
    {
        return PathBuf::from(home).join(rest);
    }
    let path = Path::new(value);
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        file.parent().unwrap_or(Path::new("/")).join(path)
    }
}

fn is_false(value: &str) -> bool {
    matches!(
        value.to_ascii_lowercase().as_str(),
        "" | "false" | "no" | "off" | "0"
    )
}

fn is_boolean(value: &str) -> bool {
    is_false(value)
        || matches!(
            value.to_ascii_lowercase().as_str(),
            "true" | "yes" | "on" | "1"
        )
}

/// Whether a key makes git run a program (or write where the rater cannot see).
fn runs_program(section: &str, sub: Option<&str>, key: &str, value: &str) -> bool {
    let named = sub.is_some();
    match (section, key) {
        ("core", "fsmonitor") => !is_false(value),
        (
            "core",
            "hookspath"
            | "pager"
            | "editor"
            | "sshcommand"
            | "askpass"
            | "gitproxy"
            | "worktree"
            | "alternaterefscommand",
        ) => true,
        ("pager", _) => !is_boolean(value),
        ("diff", "external") => !named,
        ("diff", "textconv" | "command") => named,
        ("filter", _) => named,
        ("merge", "driver") => named,
        ("gpg", "program") => true,
        ("credential", "helper") => true,
        ("alias", _) => value.trim_start().starts_with('!'),
        ("uploadpack", "packobjectshook") => true,
        ("sequence", "editor") | ("web", "browser") | ("interactive", "difffilter") => true,
        ("browser" | "man" | "difftool" | "mergetool", "cmd" | "path") => named,
        ("hook", "command") => named,
        ("trace2", "normaltarget" | "perftarget" | "eventtarget") => true,
        ("remote", "uploadpack" | "receivepack" | "vcs") => named,
        ("submodule", "update") => value.trim_start().starts_with('!'),
        ("imap", "tunnel") => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_text(text: &str) -> Result<(), String> {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("config");
        std::fs::write(&file, text).unwrap();
        check(&[file])
    }

    #[test]
    fn ordinary_configurations_pass() {
        let plain = "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\
                     [remote \"origin\"]\n\turl = git@x:y.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n\
                     [branch \"main\"]\n\tremote = origin ; comment\n[alias]\n\tst = status\n\
                     [pager]\n\tlog = false\n[core]\n\tfsmonitor = false\n";
        assert_eq!(check_text(plain), Ok(()));
        assert_eq!(check(&[PathBuf::from("/nonexistent/config")]), Ok(()));
    }

    #[test]
    fn keys_that_run_programs_are_named() {
        for (text, key) in [
            ("[core]\n\tfsmonitor = rm -rf x\n", "core.fsmonitor"),
            ("[CORE]\n\tFSMonitor = x\n", "core.fsmonitor"),
            ("[core] pager = less\n", "core.pager"),
            ("[core]\n\thooksPath = /tmp/h\n", "core.hookspath"),
            ("[diff \"x\"]\n\ttextconv = sh\n", "diff.x.textconv"),
            ("[diff]\n\texternal = ./d\n", "diff.external"),
            ("[filter \"lfs\"]\n\tclean = x\n", "filter.lfs.clean"),
            ("[alias]\n\tl = !sh -c id\n", "alias.l"),
            ("[alias]\n\tl = \"!id\"\n", "alias.l"),
            ("[pager]\n\tlog = sh -c id\n", "pager.log"),
            ("[core.x]\n[gpg]\n\tprogram = x\n", "gpg.program"),
            (
                "[credential \"https://x\"]\n\thelper = store\n",
                "credential.https://x.helper",
            ),
            ("[core]\n\tpager = a\\\n b\n", "core.pager"),
        ] {
            let why = check_text(text).unwrap_err();
            assert!(why.contains(key), "{text:?}: {why}");
        }
    }

    #[test]
    fn includes_are_followed_and_bad_lines_are_reasons() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("extra"), "[core]\n\tsshCommand = x\n").unwrap();
        let file = dir.path().join("config");
        std::fs::write(&file, "[includeIf \"gitdir:/never/\"]\n\tpath = extra\n").unwrap();
        assert!(
            check(std::slice::from_ref(&file))
                .unwrap_err()
                .contains("core.sshcommand")
        );
        std::fs::write(&file, "[include]\n\tpath = missing\n").unwrap();
        assert_eq!(check(std::slice::from_ref(&file)), Ok(()));
        std::fs::write(&file, "[include]\n\tpath = config\n").unwrap();
        assert!(
            check(std::slice::from_ref(&file))
                .unwrap_err()
                .contains("too many")
        );
        assert!(check_text("[core\n").unwrap_err().contains(":1:"));
        assert!(check_text("fsmonitor = x\n").is_err());
        std::fs::create_dir(dir.path().join("dir")).unwrap();
        std::fs::write(&file, "[include]\n\tpath = dir\n").unwrap();
        assert!(check(&[file]).unwrap_err().contains("not a file"));
    }
}
