//! Rates `find`: an allow-list of its tests; actions that run, delete or write are rated.

use super::Env;
use super::files::{follows_links, read, write};
use super::info::short;
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
    let mut starts = Vec::new();
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
    while let Some(arg) = args.get(at) {
        let text = arg.as_str();
        at += 1;
        match text {
            _ if FLAGS.contains(&text) => {}
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
                at = end + 1;
            }
            "-delete" => env.note(High, "find -delete removes files"),
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
    env.note(Safe, "find only lists files");
}

fn is_expression(text: &str) -> bool {
    (text.starts_with('-') && text.len() > 1) || matches!(text, "(" | ")" | "!" | ",")
}
