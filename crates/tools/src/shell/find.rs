//! Rates `find`: an allow-list of its tests; actions that run, delete or write are rated.

use super::Env;
use super::files::{follows_links, protected_write, read, write};
use super::info::short;
use super::paths::Pattern;
use super::words::Word;
use agentctl_core::RiskLevel::{High, Medium, Safe};

/// Expressions without an argument.
#[rustfmt::skip]
const FLAGS: &[&str] = &[
    "-print", "-print0", "-ls", "-prune", "-quit", "-true", "-false", "-empty", "-executable",
    "-readable", "-writable", "-nouser", "-nogroup", "-depth", "-d", "-xdev", "-mount", "-noleaf",
    "-daystart", "-follow", "-ignore_readdir_race", "-noignore_readdir_race", "-not", "!", "-a",
    "-and", "-o", "-or", "(", ")", ",", "-help", "--help", "-version", "--version",
];

/// Expressions with one argument that is not a path.
#[rustfmt::skip]
const WITH_VALUE: &[&str] = &[
    "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex",
    "-regextype", "-type", "-xtype", "-size", "-mtime", "-mmin", "-atime", "-amin", "-ctime",
    "-cmin", "-used", "-perm", "-user", "-group", "-uid", "-gid", "-links", "-inum", "-lname",
    "-ilname", "-maxdepth", "-mindepth", "-printf", "-fstype", "-context",
];

/// Expressions whose argument is a file that is read.
#[rustfmt::skip]
const WITH_PATH: &[&str] = &["-newer", "-anewer", "-cnewer", "-samefile", "-files0-from"];

/// Rates `find`.
pub(crate) fn find(env: &mut Env, args: &[Word]) {
    let mut at = 0;
    let mut follows = args.iter().any(|a| a.as_str() == "-follow");
    while let Some(arg) = args.get(at) {
        match arg.as_str() {
            "-L" => {
                follows = true;
                at += 1;
            }
            "-H" | "-P" => at += 1,
            "-D" => at += 2,
            text if text.starts_with("-O") => at += 1,
            _ => break,
        }
    }
    let mut starts: Vec<&Word> = Vec::new();
    while let Some(arg) = args.get(at) {
        if is_expression(arg.as_str()) {
            break;
        }
        read(env, "find", arg);
        starts.push(arg);
        at += 1;
    }
    if follows {
        follows_links(env, "find -L", &starts);
    }
    let found = expression(env, &args[at..]);
    // What find hands to `-delete` and `-exec … {}` may be inside `.git/` or `.agentctl/`:
    // a protected file below a starting point that the name tests accept stands for `{}`.
    let here = Word::literal(".");
    if starts.is_empty() {
        starts.push(&here);
    }
    let wanted = |name: &str| {
        found.names.is_empty()
            || found.names.iter().any(|(pattern, case)| {
                if *case {
                    pattern.matches_any(name)
                } else {
                    pattern.matches_any(&name.to_lowercase())
                }
            })
    };
    let Some(protected) = starts
        .iter()
        .find_map(|start| env.paths.protected_below(start, &wanted))
    else {
        env.note(Safe, "find only lists files");
        return;
    };
    if found.deletes {
        protected_write(env, "find -delete", &protected);
    }
    if let Some(root) = env.paths.real_root() {
        let file = root.join(&protected.path).display().to_string();
        for command in found.commands {
            let words: Vec<Word> = command
                .iter()
                .map(|word| match word.globs.is_empty() {
                    true => Word {
                        text: word.text.replace("{}", &file),
                        ..word.clone()
                    },
                    false => word.clone(),
                })
                .collect();
            if words != command {
                env.rate_nested(&words);
            }
        }
    }
    env.note(Safe, "find only lists files");
}

/// What a find expression does, for the second look.
#[derive(Default)]
struct Found {
    /// `-name` and `-iname` patterns (`true`: case matters).
    names: Vec<(Pattern, bool)>,
    deletes: bool,
    /// The commands of `-exec` and friends.
    commands: Vec<Vec<Word>>,
}

/// Rates a find expression and returns what it does.
fn expression(env: &mut Env, args: &[Word]) -> Found {
    let mut found = Found::default();
    let mut at = 0;
    while let Some(arg) = args.get(at) {
        let text = arg.as_str();
        at += 1;
        match text {
            _ if FLAGS.contains(&text) => {}
            "-name" | "-iname" => {
                if let Some(value) = args.get(at) {
                    let case = text == "-name";
                    let pattern = if case {
                        value.text.clone()
                    } else {
                        value.text.to_lowercase()
                    };
                    let glob =
                        |at: usize| matches!(pattern.as_bytes().get(at), Some(b'*' | b'?' | b'['));
                    let compiled = Pattern::new(&pattern, glob)
                        .or_else(|| Pattern::new(&format!("{pattern}*"), |at| at == pattern.len()));
                    if let Some(compiled) = compiled {
                        found.names.push((compiled, case));
                    }
                }
                at += 1;
            }
            _ if WITH_VALUE.contains(&text) => at += 1,
            _ if WITH_PATH.contains(&text) || text.starts_with("-newer") => {
                if let Some(path) = args.get(at) {
                    read(env, "find", path);
                }
                at += 1;
            }
            "-exec" | "-execdir" | "-ok" | "-okdir" => {
                let end = args[at..]
                    .iter()
                    .position(|a| matches!(a.as_str(), ";" | "+"))
                    .map_or(args.len(), |end| at + end);
                env.note(
                    Medium,
                    format!("find {text} runs a command for every file found"),
                );
                env.rate_nested(&args[at..end]);
                found.commands.push(args[at..end].to_vec());
                at = end + 1;
            }
            "-delete" => {
                env.note(High, "find -delete removes files");
                found.deletes = true;
            }
            "-fprint" | "-fprint0" | "-fls" | "-fprintf" => {
                if let Some(file) = args.get(at) {
                    write(env, &format!("find {text}"), file);
                }
                at += if text == "-fprintf" { 2 } else { 1 };
            }
            _ => env.note(
                Medium,
                format!("find expression `{}` is not known", short(text)),
            ),
        }
    }
    found
}

fn is_expression(text: &str) -> bool {
    (text.starts_with('-') && text.len() > 1) || matches!(text, "(" | ")" | "!" | ",")
}
