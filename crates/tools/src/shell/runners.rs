//! Programs that run other programs: wrappers (`sudo`, `env`, `timeout`, `xargs`), shells,
//! `eval`, `source` and interpreters. The command a wrapper runs is rated on its own, so that
//! `sudo rm -rf /` stays `critical`; the wrapper adds its own floor (`medium`, `high` for root).

use super::info::{Info, short};
use super::opts::{self, any, operands};
use super::paths::named_in_text;
use super::words::Word;
use super::{Env, build, files};
use agentctl_core::RiskLevel::{High, Medium, Safe};

/// Shells: `-c` runs its argument, no script file runs stdin.
#[rustfmt::skip]
const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "ash", "csh", "tcsh",
];

/// Interpreters of other languages.
#[rustfmt::skip]
const INTERPRETERS: &[&str] = &[
    "python", "python3", "python2", "pypy", "pypy3", "perl", "ruby", "node", "nodejs", "php",
    "deno", "lua", "luajit", "Rscript", "julia", "tclsh", "wish", "osascript", "pwsh", "powershell",
    "groovy", "scala", "kotlin", "jshell", "irb", "ghci", "runghc", "guile", "racket", "sbcl",
    "clisp", "gdb", "lldb", "expect", "vim", "vi", "nvim", "emacs", "ed", "ex",
];

/// Rates `program` if it runs other programs; `false` if it is not one of them.
// Kept whole: one arm per program that runs others, the rating table in one place.
pub(crate) fn rate(env: &mut Env, program: &str, args: &[Word], info: &mut Info) -> bool {
    match program {
        "sudo" | "doas" | "pkexec" | "run0" => {
            let inner = wrapped(
                env,
                args,
                &["-u", "-g", "-p", "-C", "-D", "-r", "-t", "-U", "-h"],
            );
            env.note(High, format!("{program} runs the command as root"));
            *info = inner;
        }
        "env" => env_command(env, args, info),
        "timeout" | "time" | "nice" => {
            let takes_value: &[&str] = match program {
                "timeout" => &["-s", "-k", "--signal", "--kill-after"],
                "nice" => &["-n", "--adjustment"],
                _ => &["-f", "-o"],
            };
            let mut rest = skip_options(args, takes_value);
            if program == "timeout" && !rest.is_empty() {
                rest = &rest[1..];
            }
            if program == "time" && (any(args, "fo", &["format", "output"])) {
                env.note(Medium, "time -o writes a file");
            }
            *info = env.rate_nested(rest);
        }
        "command"
            if args
                .first()
                .is_some_and(|a| matches!(a.as_str(), "-v" | "-V")) =>
        {
            env.note(Safe, "command -v only looks up programs");
        }
        "command" | "builtin" | "exec" | "nohup" | "setsid" | "stdbuf" | "ionice" | "chrt"
        | "taskset" | "unbuffer" | "watch" | "strace" | "ltrace" | "flock" | "caffeinate"
        | "systemd-run" | "firejail" | "unshare" | "nsenter" | "script" | "xvfb-run"
        | "busybox" | "su" | "runuser" => {
            *info = wrapper(env, program, args);
        }
        "xargs" => {
            env.note(
                Medium,
                "xargs builds a command from its input, which the rater cannot see",
            );
            let rest = skip_options(
                args,
                &[
                    "-I", "-i", "-n", "-P", "-L", "-l", "-d", "-s", "-E", "-e", "-a",
                ],
            );
            if rest.is_empty() {
                env.note(Medium, "xargs runs echo");
            } else {
                env.rate_nested(rest);
            }
        }
        "eval" => {
            env.note(Medium, "eval runs its arguments as a command");
            info.runs_code = true;
            let script: Vec<&str> = args.iter().map(Word::as_str).collect();
            env.script(&script.join(" "));
        }
        "source" | "." => {
            env.note(Medium, "source runs a script in the current shell");
            info.runs_code = true;
            if args.is_empty() {
                info.stdin_script = true;
            }
        }
        "alias" => {
            env.note(Medium, "alias redefines commands");
            for arg in args {
                if let Some((_, value)) = arg.as_str().split_once('=') {
                    env.script(value);
                }
            }
        }
        "trap" => {
            env.note(Medium, "trap runs a command when a signal arrives");
            if let Some(action) = args.first() {
                env.script(action.as_str());
            }
        }
        p if SHELLS.contains(&p) => shell(env, p, args, info),
        p if INTERPRETERS.contains(&p) => interpreter(env, p, args, info),
        _ => return false,
    }
    true
}

/// Rates a program that runs another one: `medium` at least, and the command it runs.
fn wrapper(env: &mut Env, program: &str, args: &[Word]) -> Info {
    // Options that take a value, so that the value is not taken for the command.
    let takes_value: &[&str] = match program {
        "exec" => &["-a"],
        "stdbuf" => &["-i", "-o", "-e"],
        "ionice" => &["-c", "-n", "-p", "-P", "-u"],
        "watch" => &["-n", "--interval", "-d"],
        "strace" | "ltrace" => &[
            "-e", "-o", "-p", "-s", "-u", "-E", "-P", "-I", "-a", "-b", "-O", "-S", "-X",
        ],
        "caffeinate" => &["-t", "-w"],
        "systemd-run" => &["-p", "-u", "-E", "--unit", "--property", "--setenv", "-M"],
        "su" | "runuser" => &["-g", "-G", "-s", "--shell", "--group", "-u"],
        "xvfb-run" => &["-n", "-s", "-f", "-e", "-a"],
        _ => &[],
    };
    match program {
        "su" | "runuser" => env.note(High, format!("{program} runs commands as another user")),
        "busybox" => env.note(Medium, "busybox runs one of its programs"),
        _ => env.note(
            Medium,
            format!("{program} runs another command (rated on its own too)"),
        ),
    }
    // `su -c 'cmd'`, `script -c 'cmd'`, `flock -c 'cmd' file`: the command is a shell string.
    if matches!(program, "su" | "runuser" | "script" | "flock" | "setsid") {
        let split = opts::split(args, &[(Some('c'), "command")]);
        let scripts: Vec<Word> = split.values("command").cloned().collect();
        if !scripts.is_empty() {
            for script in scripts {
                env.script(script.as_str());
            }
            return Info::named(program);
        }
    }
    let mut rest = skip_options(args, takes_value);
    // Positional arguments before the command: a priority, a CPU mask, a lock file, a user.
    if matches!(program, "chrt" | "taskset" | "flock" | "su" | "runuser") && !rest.is_empty() {
        rest = &rest[1..];
    }
    if program == "watch" {
        // watch joins its arguments and runs them with `sh -c`.
        let script: Vec<&str> = rest.iter().map(Word::as_str).collect();
        env.script(&script.join(" "));
        return Info::named(program);
    }
    wrapped(env, rest, &[])
}

/// Skips leading options (and the values of those in `takes_value`); the rest is a command.
fn skip_options<'a>(args: &'a [Word], takes_value: &[&str]) -> &'a [Word] {
    let mut rest = args;
    while let Some(first) = rest.first() {
        let text = first.as_str();
        if text == "--" {
            return &rest[1..];
        }
        if !opts::is_option(text) {
            break;
        }
        let skip = if takes_value.contains(&text) { 2 } else { 1 };
        rest = &rest[skip.min(rest.len())..];
    }
    rest
}

/// Rates the command a wrapper runs; returns its info.
fn wrapped(env: &mut Env, args: &[Word], takes_value: &[&str]) -> Info {
    let rest = skip_options(args, takes_value);
    // `sudo VAR=1 cmd`, `env VAR=1 cmd`: assignments come before the command.
    let start = rest
        .iter()
        .position(|w| !is_assignment(w.as_str()))
        .unwrap_or(rest.len());
    if start > 0 {
        env.note(Medium, "sets environment variables for the command");
    }
    env.rate_nested(&rest[start..])
}

fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

fn env_command(env: &mut Env, args: &[Word], info: &mut Info) {
    let split = opts::split(
        args,
        &[
            (Some('S'), "split-string"),
            (Some('u'), "unset"),
            (Some('C'), "chdir"),
        ],
    );
    let scripts: Vec<Word> = split.values("split-string").cloned().collect();
    if !scripts.is_empty() {
        env.note(Medium, "env -S splits a string into a command and runs it");
        for script in scripts {
            env.script(script.as_str());
        }
        return;
    }
    let rest = skip_options(args, &["-u", "-C", "--unset", "--chdir"]);
    if rest.iter().all(|w| is_assignment(w.as_str())) {
        env.note(Medium, "env prints environment variables, secrets included");
        return;
    }
    env.note(Medium, "env runs a command with a changed environment");
    *info = wrapped(env, rest, &[]);
}

fn shell(env: &mut Env, program: &str, args: &[Word], info: &mut Info) {
    if args.len() == 1 && args[0].as_str() == "--version" {
        env.note(Safe, format!("{program} --version only prints"));
        return;
    }
    info.runs_code = true;
    let command_string = args.iter().take_while(|a| a.as_str() != "--").any(|a| {
        let text = a.as_str();
        text.starts_with('-') && !text.starts_with("--") && text.contains('c')
    });
    if command_string {
        env.note(Medium, format!("{program} -c runs a script"));
        // The script is the first operand; option values (`-o pipefail`) and `$0` arguments
        // cannot be told apart from it here, so every operand is rated as a script.
        let given = operands(args);
        if given.is_empty() {
            env.note(Medium, format!("{program} -c without a script"));
        }
        for script in given {
            env.script(script.as_str());
        }
        return;
    }
    match operands(args).first() {
        Some(file) if file.as_str() != "-" => env.note(
            Medium,
            format!("{program} runs the script {}", short(file.as_str())),
        ),
        _ => {
            info.stdin_script = true;
            env.note(
                Medium,
                format!("{program} runs commands it reads from stdin"),
            );
        }
    }
}

fn interpreter(env: &mut Env, program: &str, args: &[Word], info: &mut Info) {
    // Only the flags: `python3 version` runs the file `./version`, `python3 -v` reads stdin.
    if args.len() == 1 && matches!(args[0].as_str(), "--version" | "-V") {
        env.note(Safe, format!("{program} --version only prints"));
        return;
    }
    if program.starts_with("python")
        && args.len() >= 2
        && args[0].as_str() == "-m"
        && args[1].as_str() == "pytest"
    {
        build::build(env, "pytest", &args[2..]);
        return;
    }
    info.runs_code = true;
    if operands(args).is_empty() || operands(args).first().is_some_and(|a| a.as_str() == "-") {
        info.stdin_script = !any(args, "ce", &[]);
    }
    env.note(Medium, format!("{program} runs a program"));
    interpreter_files(env, program, args);
}

/// Editors that write the files they are given.
const EDITORS: &[&str] = &["vim", "vi", "nvim", "emacs", "ed", "ex"];

/// The files an interpreter or editor may change: an editor's files and `perl -i` / `ruby -i`
/// files are written; any other protected path it is given, or that its inline program names
/// (`python3 -c 'open(".git/config", "w")'`), may be changed.
fn interpreter_files(env: &mut Env, program: &str, args: &[Word]) {
    let options: Vec<&str> = opts::before_dashes(args)
        .filter(|arg| opts::is_option(arg) && !arg.starts_with("--"))
        .collect();
    let letters = |arg: &&str| -> String {
        arg[1..]
            .chars()
            .take_while(char::is_ascii_alphabetic)
            .collect()
    };
    let in_place = EDITORS.contains(&program)
        || (matches!(program, "perl" | "ruby")
            && options.iter().any(|arg| letters(arg).contains('i')));
    let inline = options
        .iter()
        .any(|arg| letters(arg).contains(['c', 'e', 'E', 'r']));
    let given = operands(args);
    // Without inline code (`-e`), the first operand is the script and the rest its arguments.
    let skip = usize::from(!inline && !EDITORS.contains(&program));
    for file in given.iter().skip(skip) {
        if in_place && !file.as_str().starts_with('+') {
            files::write(env, program, file);
        } else {
            files::may_change(env, program, file);
        }
    }
    if let Some(name) = args.iter().find_map(|arg| named_in_text(arg.as_str())) {
        env.note_protected(
            High,
            format!("the program given to `{program}` names {name}/, which it may change"),
            name,
        );
    }
}
