//! The paths a `bash` line names, for `Read(…)`/`Edit(…)` deny rules: [`named_paths`].
//!
//! Best effort, before anything runs (the sandbox holds the files that exist for every
//! command, whatever its words): each argument and redirection target as written, and where a
//! literal `cd DIR` / `pushd DIR` came first, also relative to `DIR`. A word the shell computes
//! (`$X`, `$(…)`) is given by the folder before its first computed part, a glob as written, so
//! that the caller can ask when a denied path may lie there.

use crate::shell::{CommandList, Word};
use std::path::Path;

/// What a line names.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct NamedPaths {
    /// Paths as the program receives them (and as they read after an earlier `cd`).
    pub literal: Vec<String>,
    /// The folders words computed by the shell (`$X`, `$(…)`) start in (`.` for `$X/key`).
    pub computed: Vec<String>,
    /// Words with unquoted glob characters and nothing else computed, as written
    /// (`sec*/key.txt`).
    pub globs: Vec<String>,
}

/// Commands that change the folder the following ones run in.
const CHANGE_DIR: [&str; 2] = ["cd", "pushd"];

/// Commands that open none of their arguments: what they print of a computed word names no
/// file (their redirections still count).
const PRINTERS: [&str; 3] = ["echo", "printf", "true"];

/// The paths `list` names.
pub(crate) fn named_paths(list: &CommandList) -> NamedPaths {
    let mut named = NamedPaths::default();
    // The folders an earlier literal `cd` may have moved to, relative to the start.
    let mut folders: Vec<String> = Vec::new();
    for command in &list.commands {
        let name = command.words.first().map_or("", Word::as_str);
        let arguments = command.words.iter().skip(1);
        for word in arguments.clone() {
            if PRINTERS.contains(&name) && !(word.plain && word.globs.is_empty()) {
                continue;
            }
            add(&mut named, word, &folders);
        }
        let changes = CHANGE_DIR.contains(&name);
        if let Some(target) = arguments
            .filter(|word| changes && !word.text.starts_with('-'))
            .find(|_| true)
            .filter(|word| word.plain && word.globs.is_empty())
        {
            let joined: Vec<String> = folders
                .iter()
                .map(|folder| relative_to(folder, &target.text))
                .collect();
            folders.push(target.text.clone());
            folders.extend(joined);
        }
    }
    // Redirections are not ordered among the commands: each counts from every folder.
    for word in &list.redirects {
        add(&mut named, word, &folders);
    }
    named
}

fn add(named: &mut NamedPaths, word: &Word, folders: &[String]) {
    let text = match word.text.split_once('=') {
        Some((_, value)) if word.text.starts_with('-') => value,
        _ if word.text.starts_with('-') || word.text.is_empty() => return,
        _ => word.text.as_str(),
    };
    let substituted = text.find(['$', '`']).filter(|_| !word.plain);
    let (list, path) = match substituted {
        Some(at) => {
            let fixed = text.get(..at).unwrap_or_default();
            let folder = fixed.rfind('/').map_or(".", |slash| &fixed[..slash.max(1)]);
            (&mut named.computed, folder.to_owned())
        }
        None if !word.globs.is_empty() => (&mut named.globs, text.to_owned()),
        None if word.plain => (&mut named.literal, text.to_owned()),
        None => return,
    };
    for folder in folders {
        list.push(relative_to(folder, &path));
    }
    list.push(path);
}

/// Whether the glob `pattern` (an absolute path with glob characters) may match `path`, a
/// folder above it or a path below it: each component pair matches as far as both go (a `**`
/// matches whatever follows).
pub(crate) fn glob_may_meet(pattern: &Path, path: &Path) -> bool {
    for (glob, name) in pattern.components().zip(path.components()) {
        let glob = glob.as_os_str().to_string_lossy();
        let name = name.as_os_str().to_string_lossy();
        if glob.contains("**") {
            return true;
        }
        if !glob.contains(['*', '?', '[']) {
            if glob != name {
                return false;
            }
            continue;
        }
        match globset::Glob::new(&glob) {
            Ok(matcher) if !matcher.compile_matcher().is_match(name.as_ref()) => return false,
            Ok(_) => {}
            Err(_) => return true,
        }
    }
    true
}

/// `path` as named in `folder`: itself when absolute or under the home.
fn relative_to(folder: &str, path: &str) -> String {
    if path.starts_with('/') || path.starts_with('~') {
        path.to_owned()
    } else {
        format!("{}/{path}", folder.trim_end_matches('/'))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shell::simple_commands;

    fn named(line: &str) -> NamedPaths {
        named_paths(&simple_commands(line))
    }

    #[test]
    fn a_literal_cd_makes_later_paths_relative_to_its_folder() {
        let paths = named("cd secrets && cat key.txt").literal;
        assert!(paths.contains(&"secrets/key.txt".to_owned()), "{paths:?}");
        let paths = named("pushd a; cd b; cat f > /tmp/o").literal;
        assert!(paths.contains(&"a/b/f".to_owned()), "{paths:?}");
        assert!(paths.contains(&"/tmp/o".to_owned()), "{paths:?}");
        let paths = named("cd locked; echo x > f").literal;
        assert!(paths.contains(&"locked/f".to_owned()), "{paths:?}");
        // A file read before the `cd` is not read from its folder.
        let paths = named("cat key.txt; cd secrets").literal;
        assert!(!paths.contains(&"secrets/key.txt".to_owned()), "{paths:?}");
        assert!(named("cd -P src").literal.contains(&"src".to_owned()));
    }

    #[test]
    fn a_glob_meets_a_path_when_every_component_it_shares_matches() {
        let secrets = Path::new("/p/secrets");
        for glob in [
            "/p/sec*/key.txt",
            "/p/*",
            "/p/s?crets",
            "/p/**/x",
            "/p/[s]ecrets/a/b",
        ] {
            assert!(glob_may_meet(Path::new(glob), secrets), "{glob}");
        }
        for glob in ["/p/*.rs", "/p/src/*", "/q/*/x", "/p/sec*.txt"] {
            assert!(!glob_may_meet(Path::new(glob), secrets), "{glob}");
        }
    }

    #[test]
    fn computed_words_give_the_folder_they_start_in() {
        assert_eq!(named("cat $(printf secrets)/key.txt").computed, ["."]);
        assert_eq!(named("cat sec*/key.txt").globs, ["sec*/key.txt"]);
        assert_eq!(named("cat src/*.rs $X*").globs, ["src/*.rs"]);
        assert_eq!(named("cat /etc/$X").computed, ["/etc"]);
        assert_eq!(named("cat /$X").computed, ["/"]);
        assert_eq!(named("grep --file=$F x").computed, ["."]);
        assert_eq!(named("cd src && cat *.rs").globs, ["src/*.rs", "*.rs"]);
        assert!(
            named("echo $(printf secrets)/key.txt *")
                .computed
                .is_empty()
        );
        assert_eq!(named("echo x > $F").computed, ["."]);
        // Quoted glob characters are literal.
        assert_eq!(named("cat 'a*b'").literal, ["a*b"]);
        assert!(named("cat 'a*b'").globs.is_empty());
    }
}
