//! The rules that rate one simple command.

use super::files::{find_risk, path_write_risk, rm_risk};
use super::parse::Simple;
use super::{RiskAssessment, classify_at};
use agentctl_core::RiskLevel::{self, Critical, High, Low, Medium, Safe};

fn verdict(level: RiskLevel, reason: impl Into<String>) -> RiskAssessment {
    RiskAssessment::new(level, reason)
}

/// Commands that only read or print.
const READ_ONLY: &[&str] = &[
    "ls",
    "ll",
    "dir",
    "cat",
    "head",
    "tail",
    "wc",
    "grep",
    "egrep",
    "fgrep",
    "rg",
    "ag",
    "ack",
    "pwd",
    "echo",
    "printf",
    "true",
    "false",
    ":",
    "which",
    "whereis",
    "type",
    "whoami",
    "id",
    "date",
    "uname",
    "hostname",
    "tree",
    "stat",
    "file",
    "du",
    "df",
    "basename",
    "dirname",
    "realpath",
    "readlink",
    "cut",
    "tr",
    "uniq",
    "sort",
    "diff",
    "cmp",
    "comm",
    "nl",
    "column",
    "seq",
    "sleep",
    "test",
    "[",
    "[[",
    "printenv",
    "ps",
    "jq",
    "less",
    "more",
    "md5sum",
    "sha1sum",
    "sha256sum",
    "sha512sum",
    "b2sum",
    "cksum",
    "od",
    "hexdump",
    "xxd",
    "strings",
    "cd",
    "pushd",
    "popd",
    "export",
    "unset",
    "set",
    "read",
    "locale",
    "free",
    "uptime",
    "fd",
    "bat",
    "tac",
    "rev",
    "fold",
    "fmt",
    "paste",
    "join",
    "expr",
    "let",
    "wait",
    "exit",
    "return",
    "shift",
    "local",
    "declare",
    "alias",
    "history",
    "help",
    "man",
    "nproc",
    "lscpu",
    "tty",
    "groups",
];

/// Shells and interpreters a downloaded script may be piped into.
const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "fish", "ash", "csh", "tcsh",
];
const INTERPRETERS: &[&str] = &[
    "python", "python3", "python2", "perl", "ruby", "node", "php", "deno", "bun", "lua",
];
const DOWNLOADERS: &[&str] = &["curl", "wget", "fetch", "aria2c", "http", "https", "xh"];

/// Keywords that can precede a command without changing what it does.
const LEADING_KEYWORDS: &[&str] = &[
    "if", "then", "else", "elif", "do", "while", "until", "!", "{", "}", "fi", "done", "esac",
];

/// Detects the classic `:(){ :|:& };:` and renamed variants.
pub(super) fn is_fork_bomb(command: &str) -> bool {
    let compact: String = command.chars().filter(|c| !c.is_whitespace()).collect();
    let mut rest = compact.as_str();
    while let Some(at) = rest.find("(){") {
        let before = &rest[..at];
        let name_start = before
            .rfind(|c: char| ";&|(){}".contains(c))
            .map_or(0, |i| i + 1);
        let name = before[name_start..].trim_start_matches("function");
        let body = &rest[at + 3..];
        if !name.is_empty() && body.starts_with(&format!("{name}|{name}")) {
            return true;
        }
        rest = body;
    }
    false
}

/// The command a simple command really runs once wrappers and prefixes are stripped.
pub(super) struct Unwrapped<'a> {
    /// Program name (basename) and its arguments.
    pub words: &'a [String],
    /// Whether `sudo`, `doas` or `su -c` runs it as another user.
    pub elevated: bool,
}

pub(super) fn unwrap(words: &[String]) -> Unwrapped<'_> {
    let mut words = words;
    let mut elevated = false;
    while let Some(first) = words.first() {
        let name = basename(first);
        let is_assignment = first
            .split_once('=')
            .is_some_and(|(var, _)| is_identifier(var));
        if is_assignment || LEADING_KEYWORDS.contains(&name) {
            words = &words[1..];
            continue;
        }
        let takes_value: &[&str] = match name {
            "sudo" | "doas" => {
                elevated = true;
                &["-u", "-g", "-p", "-C", "-D", "-r", "-t", "-U", "-h"]
            }
            "env" => &["-u", "-C", "-S"],
            "nice" => &["-n"],
            "ionice" => &["-c", "-n"],
            "timeout" => &["-s", "-k"],
            "xargs" => &["-I", "-n", "-P", "-L", "-d", "-s", "-E", "-a"],
            "nohup" | "time" | "command" | "builtin" | "exec" | "stdbuf" | "unbuffer" => &[],
            "watch" => &["-n", "-d"],
            _ => break,
        };
        let wrapper = name;
        words = &words[1..];
        while let Some(arg) = words.first() {
            if arg == "--" {
                words = &words[1..];
                break;
            }
            let is_option = arg.starts_with('-') && arg.len() > 1;
            let is_env_assignment = wrapper == "env" && arg.contains('=');
            if !(is_option || is_env_assignment) {
                break;
            }
            words = &words[if takes_value.contains(&arg.as_str()) {
                2
            } else {
                1
            }
            .min(words.len())..];
        }
        if wrapper == "timeout" && !words.is_empty() {
            words = &words[1..]; // the duration
        }
    }
    Unwrapped { words, elevated }
}

fn is_identifier(text: &str) -> bool {
    let mut chars = text.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn basename(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

/// Rates one simple command, with its redirections and wrappers.
pub(super) fn classify_simple(command: &Simple, depth: usize) -> RiskAssessment {
    let unwrapped = unwrap(&command.words);
    let mut result = match unwrapped.words.split_first() {
        None => verdict(Safe, "only sets variables"),
        Some((program, args)) => program_risk(basename(program), args, depth),
    };
    for (op, target) in &command.redirects {
        if op.starts_with('>')
            && let Some(risk) = path_write_risk(target)
        {
            result = result.max(risk);
        }
    }
    if unwrapped.elevated {
        let name = command
            .words
            .iter()
            .find(|w| matches!(basename(w), "sudo" | "doas"));
        let name = name.map_or("sudo", |w| basename(w));
        result = result.max(verdict(High, format!("{name} runs the command as root")));
    }
    if let Some(program) = unwrapped.words.first() {
        let program = basename(program);
        let runs_code = SHELLS.contains(&program)
            || INTERPRETERS.contains(&program)
            || matches!(program, "eval" | "source" | ".");
        if runs_code && command.substitutions.iter().any(|s| mentions_download(s)) {
            result = result.max(verdict(High, "runs a script downloaded from the network"));
        }
    }
    result
}

fn mentions_download(text: &str) -> bool {
    super::parse::parse(text)
        .pipelines
        .iter()
        .flatten()
        .any(|command| {
            unwrap(&command.words)
                .words
                .first()
                .is_some_and(|program| DOWNLOADERS.contains(&basename(program)))
        })
}

/// `curl … | sh`: a download piped into a shell or interpreter.
pub(super) fn download_piped_to_shell(pipeline: &[Simple]) -> Option<RiskAssessment> {
    let names: Vec<&str> = pipeline
        .iter()
        .map(|command| {
            unwrap(&command.words)
                .words
                .first()
                .map_or("", |w| basename(w))
        })
        .collect();
    let download = names.iter().position(|name| DOWNLOADERS.contains(name))?;
    let shell = names[download + 1..]
        .iter()
        .find(|name| SHELLS.contains(name) || INTERPRETERS.contains(name))?;
    Some(verdict(
        High,
        format!(
            "{} output is piped into {shell}: runs a downloaded script",
            names[download]
        ),
    ))
}

pub(super) fn operands(args: &[String]) -> impl Iterator<Item = &String> {
    let mut after_dashes = false;
    args.iter().filter(move |arg| {
        if after_dashes {
            return true;
        }
        if *arg == "--" {
            after_dashes = true;
            return false;
        }
        !arg.starts_with('-')
    })
}

pub(super) fn has_flag(args: &[String], long: &[&str], short: char) -> bool {
    args.iter().any(|arg| {
        long.contains(&arg.as_str())
            || (arg.starts_with('-') && !arg.starts_with("--") && arg[1..].contains(short))
    })
}

fn program_risk(program: &str, args: &[String], depth: usize) -> RiskAssessment {
    if program.ends_with("()") {
        return verdict(Safe, "defines a shell function");
    }
    if READ_ONLY.contains(&program) {
        return verdict(Safe, format!("{program} only reads"));
    }
    if program.starts_with("mkfs") {
        return verdict(Critical, format!("{program} formats a file system"));
    }
    match program {
        "for" | "case" | "select" | "function" | "in" => verdict(Safe, "shell control flow"),
        "rm" => rm_risk(args),
        "sed" if has_flag(args, &["--in-place"], 'i') => {
            verdict(Low, "sed -i edits files in place")
        }
        "sed" => verdict(Safe, "sed only prints"),
        "awk" | "gawk" | "mawk" => {
            let program_text = args
                .iter()
                .any(|a| a.contains("system(") || a.contains('>') || a.contains('|'));
            if program_text {
                verdict(Medium, "the awk program may run commands or write files")
            } else {
                verdict(Safe, "awk only prints")
            }
        }
        "find" => find_risk(args, depth),
        "tee" => operands(args)
            .filter_map(|target| path_write_risk(target))
            .fold(verdict(Safe, "tee only prints"), RiskAssessment::max),
        "git" => super::git::git_risk(args),
        "cargo" | "npm" | "pnpm" | "yarn" | "bun" | "go" | "make" | "gmake" | "ninja" | "just"
        | "pytest" | "tox" | "mvn" | "gradle" | "gradlew" | "tsc" | "eslint" | "prettier"
        | "rustfmt" | "black" | "ruff" | "mypy" | "jest" | "vitest" | "rustc" | "gcc" | "cc"
        | "clang" | "cmake" => super::git::build_risk(program, args),
        "touch" | "mkdir" | "cp" | "mv" | "ln" | "rmdir" | "install" => {
            let all: Vec<&String> = operands(args).collect();
            // cp, ln and install only write their last operand; mv also removes its sources.
            let written = if matches!(program, "cp" | "ln" | "install") {
                &all[all.len().saturating_sub(1)..]
            } else {
                &all[..]
            };
            written
                .iter()
                .filter_map(|target| path_write_risk(target))
                .fold(
                    verdict(Low, format!("{program} changes files")),
                    RiskAssessment::max,
                )
        }
        "chmod" | "chown" | "chgrp" => {
            if has_flag(args, &["--recursive"], 'R') {
                verdict(
                    High,
                    format!("{program} -R changes permissions recursively"),
                )
            } else {
                verdict(Medium, format!("{program} changes permissions"))
            }
        }
        "dd" => {
            let out = args.iter().find_map(|a| a.strip_prefix("of="));
            match out.and_then(path_write_risk) {
                Some(risk) if risk.level == Critical => {
                    verdict(Critical, "dd overwrites a disk device")
                }
                _ => verdict(High, "dd writes raw data"),
            }
        }
        "shutdown" | "reboot" | "halt" | "poweroff" | "kexec" => {
            verdict(Critical, format!("{program} stops the machine"))
        }
        "init" | "telinit" if args.iter().any(|a| a == "0" || a == "6") => {
            verdict(Critical, "init 0/6 stops the machine")
        }
        "systemctl" => match args
            .iter()
            .find(|a| !a.starts_with('-'))
            .map(String::as_str)
        {
            Some("poweroff" | "reboot" | "halt" | "kexec") => {
                verdict(Critical, "systemctl stops the machine")
            }
            Some("status" | "list-units" | "list-unit-files" | "is-active" | "show" | "cat")
            | None => verdict(Safe, "systemctl only reads"),
            Some(_) => verdict(High, "systemctl changes system services"),
        },
        "wipefs" | "fdisk" | "sfdisk" | "gdisk" | "parted" | "mkswap" | "mke2fs" => {
            verdict(Critical, format!("{program} changes disk partitions"))
        }
        "shred" | "wipe" | "srm" | "unlink" => verdict(High, format!("{program} destroys files")),
        "su" | "passwd" | "useradd" | "userdel" | "usermod" | "visudo" | "mount" | "umount"
        | "iptables" | "nft" | "modprobe" | "insmod" | "rmmod" | "sysctl" | "crontab" => {
            verdict(High, format!("{program} changes the system"))
        }
        "sudo" | "doas" => verdict(High, format!("{program} runs commands as root")),
        "kill" | "pkill" | "killall" => verdict(Medium, format!("{program} stops processes")),
        "curl" | "wget" | "fetch" | "aria2c" | "ssh" | "scp" | "rsync" | "nc" | "ftp" => {
            verdict(Medium, format!("{program} uses the network"))
        }
        "eval" => classify_at(&args.join(" "), depth + 1),
        "source" | "." => verdict(Medium, "runs a script in the current shell"),
        "terraform" if args.first().is_some_and(|a| a == "destroy") => {
            verdict(High, "terraform destroy deletes infrastructure")
        }
        "kubectl" if args.first().is_some_and(|a| a == "delete") => {
            verdict(High, "kubectl delete deletes cluster resources")
        }
        shell if SHELLS.contains(&shell) => {
            match args.iter().position(|a| {
                a == "-c" || (a.starts_with('-') && !a.starts_with("--") && a.ends_with('c'))
            }) {
                Some(at) => match args.get(at + 1) {
                    Some(script) => classify_at(script, depth + 1),
                    None => verdict(Medium, format!("{shell} -c without a command")),
                },
                None => verdict(Medium, format!("{shell} runs a script")),
            }
        }
        interpreter if INTERPRETERS.contains(&interpreter) => {
            if args.len() == 1 && matches!(args[0].as_str(), "--version" | "-V") {
                verdict(Safe, format!("{interpreter} --version only reads"))
            } else if args.windows(2).any(|w| w[0] == "-m" && w[1] == "pytest") {
                verdict(Low, "runs the tests")
            } else {
                verdict(Medium, format!("{interpreter} runs a program"))
            }
        }
        other => verdict(Medium, format!("unknown command `{other}`")),
    }
}
