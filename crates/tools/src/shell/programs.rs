//! The list of known programs and how each is rated.
//!
//! A program is `safe` only if it is listed here as one that reads and prints, with the
//! options that would make it write or run something ruled out, and with every path it is
//! given inside the project. `low` is for listed programs that change project files or build
//! and test the project. Programs that are not listed are `medium`; destructive ones are
//! `high` or `critical`.

use super::files::{self, read_args};
use super::info::{Info, short};
use super::opts::{self, any, is_long, operands};
use super::paths::Pattern;
use super::words::Word;
use super::{Env, build, find, git, runners, scripts};
use agentctl_core::RiskLevel::{Critical, High, Low, Medium, Safe};

/// Programs that only read files and print; every argument that may be a path is checked.
#[rustfmt::skip]
const READERS: &[&str] = &[
    "ls", "dir", "vdir", "cat", "head", "tail", "wc", "nl", "od", "hexdump", "strings", "stat",
    "du", "df", "realpath", "readlink", "cut", "fold", "fmt", "paste", "join", "tac", "rev",
    "column", "expand", "unexpand", "md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum",
    "sha512sum", "b2sum", "cksum", "sum", "comm", "cmp", "diff", "base64", "base32", "tsort",
    "look",
];

/// Programs that take no file arguments and only print.
#[rustfmt::skip]
const PRINTERS: &[&str] = &[
    "tr", "pwd", "true", "false", ":", "whoami", "id", "uname", "nproc", "arch", "tty", "groups",
    "uptime", "free", "locale", "sleep", "seq", "basename", "dirname", "numfmt",
];

/// Programs that download.
#[rustfmt::skip]
const DOWNLOADERS: &[&str] = &["curl", "wget", "fetch", "aria2c", "http", "https", "xh"];

/// Programs that reach the network.
#[rustfmt::skip]
const NETWORK: &[&str] = &[
    "ssh", "scp", "sftp", "ftp", "telnet", "nc", "ncat", "netcat", "socat", "rsync", "ping",
    "dig", "nslookup", "host", "whois", "traceroute", "mosh", "tftp", "rclone", "s3cmd",
];

/// Programs that change the system.
#[rustfmt::skip]
const SYSTEM_CHANGERS: &[&str] = &[
    "passwd", "chpasswd", "useradd", "userdel", "usermod", "groupadd", "groupdel", "visudo",
    "mount", "umount", "iptables", "ip6tables", "nft", "ufw", "modprobe", "insmod", "rmmod",
    "sysctl", "swapon", "swapoff", "chroot", "launchctl", "service", "update-rc.d", "setenforce",
    "ldconfig", "update-alternatives", "loginctl",
];

/// Programs that destroy a disk or a file system.
#[rustfmt::skip]
const DISK_TOOLS: &[&str] = &[
    "wipefs", "fdisk", "sfdisk", "gdisk", "sgdisk", "cfdisk", "parted", "mkswap", "mke2fs",
    "blkdiscard", "cryptsetup", "lvremove", "vgremove", "pvremove", "zpool", "diskutil",
];

/// Package managers that install software.
#[rustfmt::skip]
const INSTALLERS: &[&str] = &[
    "apt", "apt-get", "aptitude", "dpkg", "dnf", "yum", "rpm", "zypper", "pacman", "apk", "brew",
    "port", "snap", "flatpak", "nix", "nix-env", "pip", "pip3", "pipx", "uv", "poetry", "gem",
    "conda", "mamba", "composer", "npx", "bunx", "pnpx",
];

/// Pagers and viewers that run commands (`!cmd`, `LESSOPEN`).
#[rustfmt::skip]
const PAGERS: &[&str] = &[
    "less", "more", "most", "pg", "man", "info", "view", "bat", "batcat",
];

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
    option_globs(env, program, args);
    let before = env.notes;
    let info = rules(env, program, args);
    if env.notes == before {
        env.note(Medium, format!("`{program}` is not rated"));
    }
    env.shallower();
    info
}

/// Notes `medium` for an unquoted pattern that may expand to a file name the program takes
/// for an option: a committed file named `-Osh` turns `git grep -e x *` into a command
/// runner. Patterns after `--`, patterns that start with a fixed character (`./*`,
/// `src/*.rs`) and programs no option of which can do harm are left alone.
fn option_globs(env: &mut Env, program: &str, args: &[Word]) {
    if GLOB_SAFE.contains(&program) {
        return;
    }
    let found = args
        .iter()
        .take_while(|arg| arg.as_str() != "--")
        .find(|arg| {
            let first = arg.as_str().split('/').next().unwrap_or_default();
            arg.plain
                && Pattern::new(first, |at| arg.has_glob_in(at..at + 1))
                    .is_some_and(|pattern| pattern.may_start_with_dash())
        });
    if let Some(arg) = found {
        env.note(
            Medium,
            format!(
                "the pattern `{}` may expand to file names that `{program}` takes for options",
                short(arg.as_str())
            ),
        );
    }
}

/// Programs whose options, whatever file names a pattern turns into options, only change
/// what they print (no option runs, writes or reads by name elsewhere).
#[rustfmt::skip]
const GLOB_SAFE: &[&str] = &[
    "ls", "dir", "vdir", "cat", "head", "tail", "wc", "nl", "od", "strings", "stat", "du",
    "realpath", "readlink", "cut", "fold", "fmt", "paste", "tac", "rev", "column", "expand",
    "unexpand", "md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum",
    "b2sum", "cksum", "sum", "comm", "cmp", "base64", "base32", "echo", "basename", "dirname",
];

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
            // GNU diff follows the links it meets while it compares folders.
            if p == "diff" && any(args, "r", &["recursive"]) && !any(args, "", &["no-dereference"])
            {
                files::follows_links(env, p, &operands(args));
            }
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
        "grep" | "egrep" | "fgrep" | "rg" | "ag" | "fd" | "fdfind" => search(env, program, args),
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
            let split = opts::split(args, &[(Some('o'), "output")]);
            for target in split.values("output") {
                files::write(env, "tree -o", target);
            }
            read_args(env, program, &split.unknown());
            env.note(Safe, "tree only reads");
        }
        "file" => file(env, args),
        "date" => date(env, args),
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

// Kept whole: one arm per program family, the rating table in one place.
fn other(env: &mut Env, program: &str, args: &[Word], info: &mut Info) {
    if runners::rate(env, program, args, info) {
        return;
    }
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
        "printenv" | "set" | "export" | "declare" | "typeset" | "compgen" => env.note(
            Medium,
            format!("{program} prints environment variables, secrets included"),
        ),
        "let" => env.note(
            Medium,
            "let evaluates arithmetic, which can run commands through array subscripts",
        ),
        "fc" | "history" => env.note(Medium, format!("{program} reads or reruns shell history")),
        p if DOWNLOADERS.contains(&p) => download(env, p, args, info),
        p if NETWORK.contains(&p) => {
            env.note(Medium, format!("{p} uses the network"));
            if p == "rsync" {
                files::rsync(env, args);
            }
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
        other => {
            env.note(Medium, format!("`{}` is not a known program", short(other)));
            for arg in args {
                files::may_change(env, other, arg);
            }
        }
    }
}

fn file(env: &mut Env, args: &[Word]) {
    let split = opts::split(
        args,
        &[
            (Some('f'), "files-from"),
            (Some('m'), "magic-file"),
            (Some('F'), "separator"),
            (Some('e'), "exclude"),
            (Some('P'), "parameter"),
        ],
    );
    if split.has("C", &["compile"]) {
        env.note(Medium, "file -C writes a compiled magic file");
    }
    read_args(env, "file", args);
    env.note(Safe, "file only reads");
}

fn date(env: &mut Env, args: &[Word]) {
    let split = opts::split(
        args,
        &[
            (Some('f'), "file"),
            (Some('r'), "reference"),
            (Some('d'), "date"),
            (Some('s'), "set"),
        ],
    );
    if split.values("set").next().is_some() {
        env.note(High, "date -s sets the system clock");
    }
    read_args(env, "date", args);
    env.note(Safe, "date only prints");
}

/// Rates a program that downloads: the network, and the files it writes by option.
fn download(env: &mut Env, p: &str, args: &[Word], info: &mut Info) {
    info.download = true;
    env.note(Medium, format!("{p} uses the network"));
    let outputs: &[(Option<char>, &'static str)] = match p {
        "curl" => &[
            (Some('o'), "output"),
            (Some('c'), "cookie-jar"),
            (Some('D'), "dump-header"),
            (None, "output-dir"),
            (None, "trace"),
            (None, "trace-ascii"),
            (None, "stderr"),
            (None, "etag-save"),
            (None, "hsts"),
            (None, "alt-svc"),
            (None, "libcurl"),
        ],
        "wget" => &[
            (Some('O'), "output-document"),
            (Some('o'), "output-file"),
            (Some('a'), "append-output"),
            (Some('P'), "directory-prefix"),
            (None, "save-cookies"),
            (None, "warc-file"),
        ],
        _ => &[(Some('o'), "output"), (Some('d'), "dir")],
    };
    let split = opts::split(args, outputs);
    for (_, long) in outputs {
        for target in split.values(long) {
            files::write(env, p, target);
        }
    }
    files::read_args(env, p, args);
}

fn search(env: &mut Env, program: &str, args: &[Word]) {
    if program == "rg" && any(args, "", &["pre", "hostname-bin", "search-zip"]) {
        env.note(Medium, "rg --pre runs a program on every file");
    }
    if program.starts_with("fd") && any(args, "xX", &["exec", "exec-batch"]) {
        env.note(
            Medium,
            format!("{program} -x runs a command for every file found"),
        );
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
    let follows = match program {
        "grep" | "egrep" | "fgrep" => any(args, "R", &["dereference-recursive"]),
        "ag" => any(args, "f", &["follow"]),
        _ => any(args, "L", &["follow"]),
    };
    if follows {
        let folders: Vec<&Word> = opts::operands(&rest);
        files::follows_links(env, program, &folders);
    }
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
    for folder in split.values("temporary-directory") {
        files::write(env, "sort -T", folder);
    }
    if before_has_short(args, 'o') && split.values("output").next().is_none() {
        env.note(Medium, "sort -o writes a file");
    }
    read_args(env, "sort", &split.unknown());
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
    if args.iter().any(|a| a.as_str().contains('[')) {
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
        None => {
            env.note(Medium, "cd without a folder goes to the home folder");
            env.paths.cd_unknown();
        }
        Some(dir) if dir.as_str() == "-" => {
            env.note(Medium, "cd - goes back to an unknown folder");
            env.paths.cd_unknown();
        }
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
