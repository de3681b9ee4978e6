//! `Bash(…)` patterns against the words of one simple command.
//!
//! A `deny` or `ask` rule is matched against every way the command could run a program: as
//! written, with the program's folder left off (`/bin/rm` is `rm`), and with the wrappers that
//! run another command taken off (`sudo`, `env`, `nice`, `timeout 5`, `xargs`, `find -exec`,
//! …). An `allow` rule is matched against the command as written only: `sudo npm test` is not
//! `npm test`.

use crate::shell::basename;
use agentctl_core::CommandPattern;

/// Whether the command's `words` match `pattern` exactly as written.
pub(super) fn matches(pattern: &CommandPattern, words: &[String]) -> bool {
    match pattern {
        CommandPattern::Prefix(prefix) => words.len() >= prefix.len() && words.starts_with(prefix),
        CommandPattern::Exact(exact) => words == exact.as_slice(),
        CommandPattern::Wildcard(pattern) => wildcard(pattern, &words.join(" ")),
    }
}

/// Whether any way the command could run a program matches `pattern`.
pub(super) fn matches_any_view(pattern: &CommandPattern, words: &[String]) -> bool {
    views(words).iter().any(|view| matches(pattern, view))
}

/// The command as written, by the program's base name, and with each wrapper taken off.
fn views(words: &[String]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut pending = vec![words.to_vec()];
    while let Some(view) = pending.pop() {
        if view.is_empty() || out.len() > 64 {
            continue;
        }
        let mut by_name = view.clone();
        if let Some(first) = by_name.first_mut() {
            *first = basename(first).to_owned();
        }
        pending.extend(inner_commands(&by_name));
        if by_name != view {
            out.push(view);
        }
        out.push(by_name);
    }
    out
}

/// The commands a wrapper runs: `sudo -u x rm y` → `rm y`; `find . -exec rm {} ;` → `rm {}`.
fn inner_commands(words: &[String]) -> Vec<Vec<String>> {
    let Some(program) = words.first().map(String::as_str) else {
        return Vec::new();
    };
    let rest = &words[1..];
    let after = |valued: &[&str], skip_first_plain: usize| {
        skip_options(rest, valued, skip_first_plain).map(<[String]>::to_vec)
    };
    let inner = match program {
        "sudo" | "doas" => after(&["-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U"], 0),
        "env" => skip_options(rest, &["-u", "-C", "-S"], 0).map(|rest| {
            rest.iter()
                .skip_while(|word| word.contains('='))
                .cloned()
                .collect()
        }),
        "nice" | "ionice" | "chrt" => after(&["-n", "-c", "-p"], 0),
        "nohup" | "time" | "command" | "builtin" | "exec" | "setsid" | "unbuffer" => {
            after(&["-a"], 0)
        }
        "timeout" => after(&["-s", "-k", "--signal", "--kill-after"], 1),
        "stdbuf" => after(&["-i", "-o", "-e"], 0),
        "xargs" => after(&["-I", "-n", "-L", "-P", "-d", "-s", "-E", "-a"], 0),
        "flock" => after(&["-w", "-E"], 1),
        "watch" => after(&["-n", "-d"], 0),
        "find" => return find_exec(rest),
        _ => None,
    };
    inner
        .into_iter()
        .filter(|inner| !inner.is_empty())
        .collect()
}

/// `rest` after its options (those in `valued` take the next word) and `skip_plain` more
/// words (the duration of `timeout`, the lock file of `flock`).
fn skip_options<'w>(
    rest: &'w [String],
    valued: &[&str],
    skip_plain: usize,
) -> Option<&'w [String]> {
    let mut index = 0;
    while let Some(word) = rest.get(index) {
        if word == "--" {
            index += 1;
            break;
        }
        if !word.starts_with('-') || word == "-" {
            break;
        }
        index += if valued.contains(&word.as_str()) {
            2
        } else {
            1
        };
    }
    rest.get(index + skip_plain..)
}

/// The commands of `find`'s `-exec`, `-execdir`, `-ok` and `-okdir`.
fn find_exec(rest: &[String]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut words = rest.iter();
    while let Some(word) = words.next() {
        if matches!(word.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir") {
            let command: Vec<String> = words
                .by_ref()
                .take_while(|word| *word != ";" && *word != "+")
                .cloned()
                .collect();
            out.push(command);
        }
    }
    out
}

/// `*` matches any text; a pattern ending in ` *` also matches without what follows.
fn wildcard(pattern: &str, text: &str) -> bool {
    if let Some(head) = pattern.strip_suffix(" *")
        && !head.contains('*')
        && text == head
    {
        return true;
    }
    let parts: Vec<&str> = pattern.split('*').collect();
    let [first, middle @ .., last] = parts.as_slice() else {
        return text == pattern;
    };
    let Some(mut rest) = text.strip_prefix(first) else {
        return false;
    };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_owned).collect()
    }

    fn prefix(text: &str) -> CommandPattern {
        CommandPattern::Prefix(words(text))
    }

    #[test]
    fn prefixes_match_whole_words() {
        assert!(matches(&prefix("npm test"), &words("npm test")));
        assert!(matches(&prefix("npm test"), &words("npm test --watch")));
        assert!(!matches(&prefix("npm test"), &words("npm testx")));
        assert!(!matches(&prefix("npm test"), &words("npm")));
        assert!(matches(
            &CommandPattern::Exact(words("npm test")),
            &words("npm test")
        ));
        assert!(!matches(
            &CommandPattern::Exact(words("npm test")),
            &words("npm test x")
        ));
    }

    #[test]
    fn wrappers_and_paths_do_not_hide_a_denied_program() {
        for line in [
            "/bin/rm -rf /",
            "sudo -u root rm x",
            "env FOO=1 rm x",
            "nice -n 5 nohup rm x",
            "timeout -s KILL 5 rm x",
            "xargs -I {} rm {}",
            "find . -name x -exec rm {} ;",
            "command rm x",
            "sudo env /usr/bin/rm x",
        ] {
            assert!(matches_any_view(&prefix("rm"), &words(line)), "{line}");
        }
        assert!(!matches_any_view(&prefix("rm"), &words("echo rm")));
        assert!(!matches_any_view(&prefix("rm"), &words("grep rm file")));
        assert!(!matches(&prefix("npm test"), &words("sudo npm test")));
    }

    #[test]
    fn wildcards_match_any_text() {
        let pattern = CommandPattern::Wildcard("git * main".into());
        assert!(matches(&pattern, &words("git push origin main")));
        assert!(!matches(&pattern, &words("git push origin dev")));
        let pattern = CommandPattern::Wildcard("npm run *".into());
        assert!(matches(&pattern, &words("npm run")));
        assert!(matches(&pattern, &words("npm run build")));
        assert!(!matches(&pattern, &words("npm runx")));
        assert!(matches(&CommandPattern::Wildcard("*".into()), &words("x")));
    }
}
