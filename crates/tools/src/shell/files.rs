//! Reads, writes and deletes: where paths point, and the programs that change files.
//! Copies and archives, which can write whole folders, are in `files/`.

mod archive;
mod copy;
mod values;

use super::Env;
use super::info::short;
use super::opts::{any, operands, path_candidates, split};
use super::paths::{Kind, Protected};
use super::words::Word;
use agentctl_core::RiskLevel::{Critical, High, Low, Medium, Safe};
pub(crate) use copy::rsync;

/// Notes a read of `word` by `program` if it reaches outside the project.
pub(crate) fn read(env: &mut Env, program: &str, word: &Word) {
    let place = env.paths.place(word);
    let text = short(word.as_str());
    match place.kind {
        Kind::Sink | Kind::Inside | Kind::Dynamic => {}
        Kind::Home => env.note(
            Medium,
            format!("`{program}` reads in the home folder ({text})"),
        ),
        Kind::Unknown => env.note(
            Medium,
            format!("`{program}` reads a file the rater cannot locate ({text})"),
        ),
        Kind::Process => env.note(
            Medium,
            format!("`{program}` reads the files of a process, which may hold secrets ({text})"),
        ),
        Kind::Outside | Kind::System | Kind::Disk => env.note(
            Medium,
            format!("`{program}` reads outside the project ({text})"),
        ),
    }
}

/// Notes `medium` if `program`, following symbolic links as it walks `folders` (the current
/// folder if none), may read outside the project through a link below them.
pub(crate) fn follows_links(env: &mut Env, program: &str, folders: &[&Word]) {
    let here = Word::literal(".");
    let folders = if folders.is_empty() {
        vec![&here]
    } else {
        folders.to_vec()
    };
    for folder in folders {
        if let Some(found) = env.paths.link_out_below(folder) {
            env.note(
                Medium,
                format!(
                    "`{program}` follows symbolic links below {} ({}), which lead outside the project",
                    short(folder.as_str()),
                    short(&found)
                ),
            );
            return;
        }
    }
}

/// Checks every text in `args` that may name a file as a read by `program`: the values of
/// the options known to take a file, and every other word (and the values glued to options
/// not known, wherever they may start).
pub(crate) fn read_args(env: &mut Env, program: &str, args: &[Word]) {
    let Some(options) = values::options(program) else {
        guess(env, program, args);
        return;
    };
    let takes: Vec<(Option<char>, &'static str)> = options
        .iter()
        .map(|(letter, long, _)| (*letter, *long))
        .collect();
    let split = split(args, &takes);
    for (_, long, value) in options {
        if *value == values::Value::File {
            for file in split.values(long) {
                read(env, program, file);
            }
        }
    }
    guess(env, program, &split.unknown());
}

/// Reads every text in `args` that may name a file.
fn guess(env: &mut Env, program: &str, args: &[Word]) {
    for arg in args {
        for candidate in path_candidates(arg) {
            // `cut -d/`: a lone `/` glued to an option is a value, not the root folder.
            if candidate.as_str() == "/" && candidate.as_str() != arg.as_str() {
                continue;
            }
            read(env, program, &candidate);
        }
    }
}

/// Notes a write (or rename or delete) of `word` by `program`: `low` inside the project,
/// `medium` outside, `high` on system paths and protected folders (marked protected),
/// `critical` on disks and on the session database.
pub(crate) fn write(env: &mut Env, program: &str, word: &Word) {
    let place = env.paths.place(word);
    let text = short(word.as_str());
    env.descriptor_write |= place.descriptor;
    if place.kind == Kind::Sink {
        return;
    }
    if let Some(protected) = &place.protected {
        protected_write(env, program, protected);
    }
    match place.kind {
        Kind::Sink => {}
        Kind::Inside => env.note(Low, format!("`{program}` writes {text} in the project")),
        Kind::Outside | Kind::Home => env.note(
            Medium,
            format!("`{program}` writes outside the project ({text})"),
        ),
        Kind::Dynamic => env.note(
            Medium,
            format!("`{program}` writes to a path computed when the command runs ({text})"),
        ),
        Kind::Unknown => env.note(
            Medium,
            format!("`{program}` writes to a file the rater cannot locate ({text})"),
        ),
        Kind::Process => env.note(
            High,
            format!("`{program}` writes to the files of a process ({text})"),
        ),
        Kind::System => env.note(
            High,
            format!("`{program}` writes to the system path {text}"),
        ),
        Kind::Disk => env.note(
            Critical,
            format!("`{program}` writes to the device {text}, which can destroy a disk or stop the machine"),
        ),
    }
}

/// Notes `word` as a path that `program`, which the rater cannot follow, may change: only
/// when it is protected (`sqlite3 .agentctl/sessions.db`, `frob .git/config`).
pub(crate) fn may_change(env: &mut Env, program: &str, word: &Word) {
    for candidate in path_candidates(word) {
        if let Some(protected) = env.paths.place(&candidate).protected {
            let level = if protected.database { Critical } else { High };
            env.note_protected(
                level,
                format!(
                    "`{program}` is given {} ({}/: {}) and may change it",
                    short(&protected.path),
                    protected.name,
                    protected.why
                ),
                &protected.path,
            );
            return;
        }
    }
}

/// Notes a write of a protected path: `high`, `critical` for the session database, and
/// marked protected either way (asked every time).
pub(crate) fn protected_write(env: &mut Env, program: &str, protected: &Protected) {
    let path = short(&protected.path);
    if protected.database {
        env.note_protected(
            Critical,
            format!("`{program}` writes the session database or the memory store: {path}"),
            &protected.path,
        );
    } else {
        env.note_protected(
            High,
            format!(
                "`{program}` writes under {}/ ({}): {path}",
                protected.name, protected.why
            ),
            &protected.path,
        );
    }
}

/// Rates the programs that change files.
pub(crate) fn change(env: &mut Env, program: &str, args: &[Word]) {
    match program {
        "rm" => rm(env, args),
        "shred" | "wipe" | "srm" | "unlink" => {
            env.note(High, format!("{program} destroys files"));
            for target in split(args, &[(Some('n'), "iterations"), (Some('s'), "size")]).operands {
                write(env, program, target);
            }
        }
        "rmdir" | "touch" | "mkdir" | "truncate" | "tee" => {
            let takes_value: &[(Option<char>, &'static str)] = match program {
                "touch" => &[
                    (Some('d'), "date"),
                    (Some('t'), "t"),
                    (Some('r'), "reference"),
                ],
                "mkdir" => &[(Some('m'), "mode"), (None, "context")],
                "truncate" => &[(Some('s'), "size"), (Some('r'), "reference")],
                "tee" => &[(None, "output-error")],
                _ => &[],
            };
            let split = split(args, takes_value);
            if program == "tee" {
                // tee's own output is harmless; each file it writes is rated below.
                env.note(Safe, "tee only prints");
            } else {
                env.note(Low, format!("{program} changes files in the project"));
            }
            for target in &split.operands {
                write(env, program, target);
            }
            for reference in split.values("reference") {
                read(env, program, reference);
            }
            let others: Vec<Word> = split.others.iter().map(|w| (*w).clone()).collect();
            read_args(env, program, &others);
        }
        "cp" | "mv" | "ln" | "install" => copy::copy(env, program, args),
        "dd" => dd(env, args),
        "chmod" | "chown" | "chgrp" | "chattr" | "setfacl" => permissions(env, program, args),
        "mktemp" => env.note(Low, "mktemp creates a temporary file"),
        "tar" => archive::tar(env, args),
        "zip" | "unzip" | "gzip" | "gunzip" | "bzip2" | "xz" => {
            archive::archive(env, program, args);
        }
        "patch" => env.note(Medium, "patch changes the files named in the patch"),
        other => env.note(Medium, format!("{other} replaces or extracts files")),
    }
}

fn rm(env: &mut Env, args: &[Word]) {
    let recursive = any(args, "rR", &["recursive"]);
    let force = any(args, "f", &["force"]);
    let targets = operands(args);
    let catastrophic = any(args, "", &["no-preserve-root"])
        || targets.iter().any(|target| {
            let text = target.as_str();
            let trimmed = text.trim_end_matches('/');
            let top_level = trimmed.starts_with('/') && trimmed.matches('/').count() <= 1;
            let home = text.starts_with("$HOME") || text.starts_with("${HOME}") || target.tilde;
            let home_all = home
                && matches!(
                    text.trim_start_matches("${HOME}")
                        .trim_start_matches("$HOME")
                        .trim_start_matches('~'),
                    "" | "/" | "/*" | "/.*"
                );
            top_level
                || home_all
                || env.paths.is_top_level(target)
                || env.paths.is_root_or_above(target)
                || matches!(
                    text,
                    "/" | "*" | "." | "./" | "./*" | ".." | "../" | "../*" | ".*" | "/*"
                )
        });
    let name = match (recursive, force) {
        (true, true) => "rm -rf",
        (true, false) => "rm -r",
        _ => "rm",
    };
    if recursive && catastrophic {
        env.note(
            Critical,
            format!("{name} would wipe the system, the home folder or the whole project"),
        );
    } else if recursive {
        env.note(High, format!("{name} removes files recursively"));
    } else {
        env.note(High, "rm deletes files");
    }
    for target in &targets {
        write(env, name, target);
        if recursive {
            tree(env, name, target);
        }
    }
}

/// Notes a protected path below `folder`, which `program` changes as a whole tree.
pub(crate) fn tree(env: &mut Env, program: &str, folder: &Word) {
    if let Some(protected) = env.paths.protected_below(folder, &|_| true) {
        protected_write(env, program, &protected);
    }
}

fn dd(env: &mut Env, args: &[Word]) {
    env.note(High, "dd writes raw data");
    for arg in args {
        if arg.as_str().starts_with("of=") {
            write(env, "dd", &arg.tail(3));
        } else if arg.as_str().starts_with("if=") {
            read(env, "dd", &arg.tail(3));
        }
    }
}

fn permissions(env: &mut Env, program: &str, args: &[Word]) {
    let recursive = any(args, "R", &["recursive"]);
    let targets = operands(args);
    // The first operand of chmod/chown/chgrp is the mode or owner.
    let files = targets.get(1..).unwrap_or_default();
    let wide = files.iter().any(|target| {
        let text = target.as_str().trim_end_matches('/');
        text.is_empty()
            || (text.starts_with('/') && text.matches('/').count() <= 1)
            || target.tilde
            || env.paths.is_top_level(target)
            || env.paths.is_above_root(target)
            || (text.starts_with('/') && env.paths.is_root_or_above(target))
    });
    if recursive && wide {
        env.note(
            Critical,
            format!("{program} -R on the system or the home folder breaks the machine"),
        );
    } else if recursive {
        env.note(
            High,
            format!("{program} -R changes permissions recursively"),
        );
    } else {
        env.note(Medium, format!("{program} changes permissions"));
    }
    for file in files {
        if recursive {
            tree(env, program, file);
        }
        let place = env.paths.place(file);
        if let Some(protected) = &place.protected {
            let level = if protected.database { Critical } else { High };
            env.note_protected(
                level,
                format!(
                    "{program} changes a path under {}/ ({})",
                    protected.name,
                    short(&protected.path)
                ),
                &protected.path,
            );
        } else if matches!(place.kind, Kind::System | Kind::Disk | Kind::Process) {
            env.note(
                High,
                format!("{program} changes a system path ({})", short(file.as_str())),
            );
        }
    }
}
