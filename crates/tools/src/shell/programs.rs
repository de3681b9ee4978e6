//! The list of known programs and how each is rated.
//!
//! A program is `safe` only if it is listed here as one that reads and prints, with the
//! options that would make it write or run something ruled out, and with every path it is
//! given inside the project. `low` is for listed programs that change project files or build
//! and test the project. Programs that are not listed are `medium`; destructive ones are
//! `high` or `critical`.

use super::files::{self, read_args};
use super::opts::{self, any, is_long, operands};
use super::words::Word;
use super::{Env, build, find, git, scripts};
use agentctl_runtime::RiskLevel::{Critical, High, Low, Medium, Safe};

/// What a command runs, for the rules that look at more than one command.
#[derive(Debug, Clone, Default)]
pub(crate) struct Info {
    /// The program, after wrappers such as `sudo` or `env` (basename).
    pub program: String,
    /// It runs what it reads on stdin as code (`sh`, `python -`).
    pub stdin_script: bool,
    /// It runs its arguments as code (`sh -c`, `eval`, `source`, `python`).
    pub runs_code: bool,
    /// It downloads (`curl`, `wget`).
    pub download: bool,
    /// What it prints, if that is known (`echo` of plain words), for `echo … | sh`.
    pub printed: Option<String>,
}

impl Info {
    fn named(program: &str) -> Self {
        Self {
            program: program.to_owned(),
            ..Self::default()
        }
    }
}

/// Programs that only read files and print; every argument that may be a path is checked.
const READERS: &[&str] = &[
    "ls",
    "dir",
    "vdir",
    "cat",
    "head",
    "tail",
    "wc",
    "nl",
    "od",
    "hexdump",
    "strings",
    "stat",
    "du",
    "df",
    "realpath",
    "readlink",
    "cut",
    "fold",
    "fmt",
    "paste",
    "join",
    "tac",
    "rev",
    "column",
    "expand",
    "unexpand",
    "md5sum",
    "sha1sum",
    "sha224sum",
    "sha256sum",
    "sha384sum",
    "sha512sum",
    "b2sum",
    "cksum",
    "sum",
    "comm",
    "cmp",
    "diff",
    "base64",
    "base32",
    "tsort",
    "look",
];

/// Programs that take no file arguments and only print.
const PRINTERS: &[&str] = &[
    "tr", "pwd", "true", "false", ":", "whoami", "id", "uname", "nproc", "arch", "tty", "groups",
    "uptime", "free", "locale", "sleep", "seq", "basename", "dirname", "numfmt",
];

/// Shells: `-c` runs its argument, no script file runs stdin.
const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "ash", "csh", "tcsh",
];

/// Interpreters of other languages.
const INTERPRETERS: &[&str] = &[
    "python",
    "python3",
    "python2",
    "pypy",
    "pypy3",
    "perl",
    "ruby",
    "node",
    "nodejs",
    "php",
    "deno",
    "lua",
    "luajit",
    "Rscript",
    "julia",
    "tclsh",
    "wish",
    "osascript",
    "pwsh",
    "powershell",
    "groovy",
    "scala",
    "kotlin",
    "jshell",
    "irb",
    "ghci",
    "runghc",
    "guile",
    "racket",
    "sbcl",
    "clisp",
    "gdb",
    "lldb",
    "expect",
    "vim",
    "vi",
    "nvim",
    "emacs",
    "ed",
    "ex",
];

/// Programs that download.
const DOWNLOADERS: &[&str] = &["curl", "wget", "fetch", "aria2c", "http", "https", "xh"];

/// Programs that reach the network.
const NETWORK: &[&str] = &[
    "ssh",
    "scp",
    "sftp",
    "ftp",
    "telnet",
    "nc",
    "ncat",
    "netcat",
    "socat",
    "rsync",
    "ping",
    "dig",
    "nslookup",
    "host",
    "whois",
    "traceroute",
    "mosh",
    "tftp",
    "rclone",
    "s3cmd",
];

/// Programs that change the system.
const SYSTEM_CHANGERS: &[&str] = &[
    "passwd",
    "chpasswd",
    "useradd",
    "userdel",
    "usermod",
    "groupadd",
    "groupdel",
    "visudo",
    "mount",
    "umount",
    "iptables",
    "ip6tables",
    "nft",
    "ufw",
    "modprobe",
    "insmod",
    "rmmod",
    "sysctl",
    "swapon",
    "swapoff",
    "chroot",
    "launchctl",
    "service",
    "update-rc.d",
    "setenforce",
    "ldconfig",
    "update-alternatives",
    "loginctl",
];

/// Programs that destroy a disk or a file system.
const DISK_TOOLS: &[&str] = &[
    "wipefs",
    "fdisk",
    "sfdisk",
    "gdisk",
    "sgdisk",
    "cfdisk",
    "parted",
    "mkswap",
    "mke2fs",
    "blkdiscard",
    "cryptsetup",
    "lvremove",
    "vgremove",
    "pvremove",
    "zpool",
    "diskutil",
];

/// Package managers that install software.
const INSTALLERS: &[&str] = &[
    "apt", "apt-get", "aptitude", "dpkg", "dnf", "yum", "rpm", "zypper", "pacman", "apk", "brew",
    "port", "snap", "flatpak", "nix", "nix-env", "pip", "pip3", "pipx", "uv", "poetry", "gem",
    "conda", "mamba", "composer", "npx", "bunx", "pnpx",
];

/// Pagers and viewers that run commands (`!cmd`, `LESSOPEN`).
const PAGERS: &[&str] = &[
    "less", "more", "most", "pg", "man", "info", "view", "bat", "batcat",
];

/// Shortens a text for a reason.
pub(crate) fn short(text: &str) -> String {
    const MAX: usize = 60;
    if text.chars().count() <= MAX {
        return text.replace('\n', " ");
    }
    let head: String = text.chars().take(MAX).collect();
    format!("{}…", head.replace('\n', " "))
}

/// Rates one command: its program name and arguments.
pub(crate) fn rate(env: &mut Env, name: &Word, args: &[Word]) -> Info {
    let (program, trusted) = resolve(name.as_str());
    if !name.plain {
        env.note(Medium, "the program name is computed when the command runs");
    } else if !name.globs.is_empty() {
        env.note(
            Medium,
            format!("the program name `{}` is a pattern", short(&name.text)),
        );
    } else if !trusted {
        env.note(
            Medium,
            format!("runs the program at `{}`", short(&name.text)),
        );
    }
    if !env.deeper() {
        return Info::named(program);
    }
    let before = env.notes;
    let info = rules(env, program, args);
    if env.notes == before {
        env.note(Medium, format!("`{program}` is not rated"));
    }
    env.shallower();
    info
}

/// The program a name runs and whether it comes from the usual places (`ls`, `/bin/ls`).
fn resolve(name: &str) -> (&str, bool) {
    match name.rsplit_once('/') {
        None => (name, true),
        Some((dir, base)) => (
            base,
            matches!(dir, "/bin" | "/usr/bin" | "/sbin" | "/usr/sbin"),
        ),
    }
}

/// Rates `args` as a command of their own (after a wrapper such as `sudo` or `xargs`).
pub(crate) fn rate_words(env: &mut Env, words: &[Word]) -> Info {
    match words.split_first() {
        Some((name, args)) => rate(env, name, args),
        None => Info::default(),
    }
}

fn rules(env: &mut Env, program: &str, args: &[Word]) -> Info {
    let mut info = Info::named(program);
    match program {
        p if READERS.contains(&p) => {
            read_args(env, p, args);
            env.note(Safe, format!("{p} only reads"));
        }
        p if PRINTERS.contains(&p) => env.note(Safe, format!("{p} only prints")),
        "printf" if args.first().is_some_and(|a| a.as_str().starts_with("-v")) => {
            env.note(
                Medium,
                "printf -v assigns a variable, whose array subscript can run commands",
            );
        }
        "echo" | "printf" => {
            env.note(Safe, format!("{program} only prints"));
            if args.iter().all(|a| a.plain) {
                let skip = usize::from(program == "printf");
                let words: Vec<&str> = args.iter().skip(skip).map(Word::as_str).collect();
                info.printed = Some(words.join(" "));
            }
        }
        "which" | "type" | "whereis" => env.note(Safe, format!("{program} only looks up programs")),
        "grep" | "egrep" | "fgrep" | "rg" | "ag" => search(env, program, args),
        "sort" => sort(env, args),
        "uniq" | "xxd" => {
            let given = operands(args);
            if given.len() > 1 {
                files::write(env, program, given[given.len() - 1]);
            }
            if program == "xxd" && any(args, "", &["revert"]) {
                env.note(Low, "xxd -r writes binary data");
            }
            read_args(env, program, args);
            env.note(Safe, format!("{program} only reads"));
        }
        "tree" => {
            for target in opts::split(args, &[(Some('o'), "output")]).values("output") {
                files::write(env, "tree -o", target);
            }
            read_args(env, program, args);
            env.note(Safe, "tree only reads");
        }
        "file" => {
            if any(args, "C", &["compile"]) {
                env.note(Medium, "file -C writes a compiled magic file");
            }
            read_args(env, program, args);
            env.note(Safe, "file only reads");
        }
        "date" => {
            if any(args, "s", &["set"]) {
                env.note(High, "date -s sets the system clock");
            }
            read_args(env, program, args);
            env.note(Safe, "date only prints");
        }
        "hostname" => {
            if !operands(args).is_empty() || any(args, "Fb", &["file", "boot"]) {
                env.note(High, "hostname sets the host name");
            }
            env.note(Safe, "hostname only prints");
        }
        "test" | "[" => test(env, program, args),
        "cd" => cd(env, args),
        "sed" => scripts::sed(env, args),
        "awk" | "gawk" | "mawk" | "nawk" | "busybox-awk" => scripts::awk(env, program, args),
        "jq" | "yq" | "gojq" => scripts::jq(env, program, args),
        "find" => find::find(env, args),
        "git" => git::git(env, args),
        "rm" | "shred" | "wipe" | "srm" | "unlink" | "rmdir" | "touch" | "mkdir" | "cp" | "mv"
        | "ln" | "install" | "tee" | "truncate" | "dd" | "chmod" | "chown" | "chgrp" | "chattr"
        | "setfacl" | "mktemp" | "tar" | "zip" | "unzip" | "gzip" | "gunzip" | "bzip2" | "xz"
        | "7z" | "patch" => files::change(env, program, args),
        p if build::is_build_tool(p) => build::build(env, p, args),
        _ => other(env, program, args, &mut info),
    }
    info
}

fn other(env: &mut Env, program: &str, args: &[Word], info: &mut Info) {
    match program {
        p if p.starts_with("mkfs") || DISK_TOOLS.contains(&p) => {
            env.note(Critical, format!("{p} erases disks or partitions"));
        }
        "shutdown" | "reboot" | "halt" | "poweroff" | "kexec" => {
            env.note(Critical, format!("{program} stops the machine"));
        }
        "init" | "telinit" if args.iter().any(|a| a.as_str() == "0" || a.as_str() == "6") => {
            env.note(Critical, "init 0/6 stops the machine");
        }
        "systemctl" => {
            let action = operands(args).first().map_or("", |w| w.as_str());
            if matches!(
                action,
                "poweroff" | "reboot" | "halt" | "kexec" | "suspend" | "hibernate"
            ) {
                env.note(Critical, "systemctl stops the machine");
            } else if matches!(
                action,
                "" | "status"
                    | "list-units"
                    | "list-unit-files"
                    | "is-active"
                    | "is-enabled"
                    | "show"
                    | "cat"
                    | "list-timers"
            ) {
                env.note(Medium, "systemctl reads the state of system services");
            } else {
                env.note(High, "systemctl changes system services");
            }
        }
        "sudo" | "doas" | "pkexec" | "run0" => {
            let inner = wrapped(
                env,
                args,
                &["-u", "-g", "-p", "-C", "-D", "-r", "-t", "-U", "-h"],
            );
            env.note(High, format!("{program} runs the command as root"));
            *info = inner;
        }
        "crontab" => {
            if args.len() == 1 && args[0].as_str() == "-l" {
                env.note(Medium, "crontab -l lists scheduled commands");
            } else {
                env.note(High, "crontab schedules commands to run later");
            }
        }
        "at" | "batch" => env.note(High, format!("{program} schedules commands to run later")),
        p if SYSTEM_CHANGERS.contains(&p) => env.note(High, format!("{p} changes the system")),
        "kill" | "pkill" | "killall" => env.note(Medium, format!("{program} stops processes")),
        "ps" | "top" | "htop" | "pgrep" | "lsof" => env.note(
            Medium,
            format!("{program} shows other processes (their command lines may hold secrets)"),
        ),
        "env" => env_command(env, args, info),
        "printenv" | "set" | "export" | "declare" | "typeset" | "compgen" => env.note(
            Medium,
            format!("{program} prints environment variables, secrets included"),
        ),
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
            *info = rate_words(env, rest);
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
                rate_words(env, rest);
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
        "let" => env.note(
            Medium,
            "let evaluates arithmetic, which can run commands through array subscripts",
        ),
        "fc" | "history" => env.note(Medium, format!("{program} reads or reruns shell history")),
        p if SHELLS.contains(&p) => shell(env, p, args, info),
        p if INTERPRETERS.contains(&p) => interpreter(env, p, args, info),
        p if DOWNLOADERS.contains(&p) => {
            info.download = true;
            env.note(Medium, format!("{p} uses the network"));
            let outputs = [
                "-o",
                "-O",
                "--output",
                "--output-document",
                "--output-file",
                "-P",
            ];
            for (at, arg) in args.iter().enumerate() {
                if outputs.contains(&arg.as_str())
                    && let Some(target) = args.get(at + 1)
                {
                    files::write(env, p, target);
                }
            }
            files::read_args(env, p, args);
        }
        p if NETWORK.contains(&p) => {
            env.note(Medium, format!("{p} uses the network"));
            if p == "rsync"
                && args.iter().any(|a| {
                    a.as_str().starts_with("--delete") || is_long(a.as_str(), "remove-source-files")
                })
            {
                env.note(High, "rsync --delete removes files");
            }
        }
        p if INSTALLERS.contains(&p) => {
            env.note(Medium, format!("{p} installs or changes packages"));
        }
        p if PAGERS.contains(&p) => env.note(
            Medium,
            format!("{p} can run commands (`!cmd`, LESSOPEN, a configured pager)"),
        ),
        "terraform" | "tofu" if args.first().is_some_and(|a| a.as_str() == "destroy") => {
            env.note(High, format!("{program} destroy deletes infrastructure"));
        }
        "kubectl" if args.first().is_some_and(|a| a.as_str() == "delete") => {
            env.note(High, "kubectl delete deletes cluster resources");
        }
        other => env.note(Medium, format!("`{}` is not a known program", short(other))),
    }
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
    rate_words(env, &rest[start..])
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
    let script = args.iter().position(|a| {
        let text = a.as_str();
        text == "-c" || (text.starts_with('-') && !text.starts_with("--") && text.contains('c'))
    });
    match script {
        Some(at) => {
            env.note(Medium, format!("{program} -c runs a script"));
            match args.get(at + 1) {
                Some(script) => env.script(script.as_str()),
                None => env.note(Medium, format!("{program} -c without a script")),
            }
        }
        None => {
            let file = operands(args).into_iter().next();
            match file {
                Some(file) if file.as_str() != "-" => {
                    env.note(
                        Medium,
                        format!("{program} runs the script {}", short(file.as_str())),
                    );
                }
                _ => {
                    info.stdin_script = true;
                    env.note(
                        Medium,
                        format!("{program} runs commands it reads from stdin"),
                    );
                }
            }
        }
    }
}

fn interpreter(env: &mut Env, program: &str, args: &[Word], info: &mut Info) {
    if args.len() == 1 && matches!(args[0].as_str(), "--version" | "-V" | "-v" | "version") {
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
}

fn search(env: &mut Env, program: &str, args: &[Word]) {
    if program == "rg" && any(args, "", &["pre", "hostname-bin", "search-zip"]) {
        env.note(Medium, "rg --pre runs a program on every file");
    }
    if program == "ag" && any(args, "", &["pager"]) {
        env.note(Medium, "ag --pager runs a program");
    }
    // The pattern is the first operand, unless it is given with -e/-f (or rg lists files).
    let pattern_given = any(args, "ef", &["regexp", "file", "files", "type-list"]);
    let mut skipped = pattern_given;
    let mut rest = Vec::new();
    let mut after_dashes = false;
    for arg in args {
        let operand = after_dashes || !opts::is_option(arg.as_str());
        if arg.as_str() == "--" && !after_dashes {
            after_dashes = true;
            continue;
        }
        if operand && !skipped {
            skipped = true;
            continue;
        }
        rest.push(arg.clone());
    }
    read_args(env, program, &rest);
    env.note(Safe, format!("{program} only reads"));
}

fn sort(env: &mut Env, args: &[Word]) {
    if any(args, "", &["compress-program"]) {
        env.note(Medium, "sort --compress-program runs a program");
    }
    let split = opts::split(
        args,
        &[(Some('o'), "output"), (Some('T'), "temporary-directory")],
    );
    for target in split.values("output") {
        files::write(env, "sort -o", target);
    }
    if before_has_short(args, 'o') && split.values("output").next().is_none() {
        env.note(Medium, "sort -o writes a file");
    }
    read_args(env, "sort", args);
    env.note(Safe, "sort only reads");
}

/// Whether a short-option cluster holds `letter` anywhere (`-uo file`).
fn before_has_short(args: &[Word], letter: char) -> bool {
    opts::before_dashes(args).any(|arg| opts::short_has(arg, letter))
}

fn test(env: &mut Env, program: &str, args: &[Word]) {
    if args.iter().any(|a| matches!(a.as_str(), "-v" | "-R")) {
        env.note(
            Medium,
            format!("{program} -v evaluates array subscripts, which can run commands"),
        );
    }
    let body = if program == "[" { args } else { args };
    if body.iter().any(|a| a.as_str().contains('[')) {
        env.note(
            Medium,
            format!("{program} with `[` in an operand may evaluate array subscripts"),
        );
    }
    read_args(env, program, args);
    env.note(Safe, format!("{program} only compares"));
}

fn cd(env: &mut Env, args: &[Word]) {
    let operands = operands(args);
    match operands.first() {
        None => env.note(Medium, "cd without a folder goes to the home folder"),
        Some(dir) if dir.as_str() == "-" => env.note(Medium, "cd - goes back to an unknown folder"),
        Some(dir) => {
            let place = env.paths.place(dir);
            if place.kind > super::paths::Kind::Inside {
                env.note(
                    Medium,
                    format!("cd leaves the project ({})", short(dir.as_str())),
                );
            }
            env.paths.cd(dir);
            env.note(Safe, "cd only changes the folder");
        }
    }
}
