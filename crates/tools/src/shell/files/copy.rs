//! `cp`, `mv`, `ln`, `install` and local `rsync`: the destination is written, and so is
//! every file it receives when it is a folder — `dest/<name of the source>`, or, for a copy
//! of a folder's contents (`cp -r payload/. .`, `rsync -a payload/ .`), whatever the source
//! holds, which may replace the destination's `.git/` or `.agentctl/` wholesale.

use super::{read_args, write};
use crate::shell::Env;
use crate::shell::info::short;
use crate::shell::opts::split;
use crate::shell::words::Word;
use agentctl_core::RiskLevel::{High, Low, Medium};

/// Rates `cp`, `mv`, `ln` and `install`.
pub(crate) fn copy(env: &mut Env, program: &str, args: &[Word]) {
    let mut takes_value = vec![(Some('t'), "target-directory"), (Some('S'), "suffix")];
    if program == "install" {
        takes_value.extend([
            (Some('m'), "mode"),
            (Some('o'), "owner"),
            (Some('g'), "group"),
        ]);
    }
    let split = split(args, &takes_value);
    let symbolic = match program {
        "ln" => split.has("s", &["symbolic"]),
        "cp" => split.has("s", &["symbolic-link"]),
        _ => false,
    };
    if symbolic {
        env.note(
            Medium,
            format!("{program} -s creates a symbolic link, which can point outside the project"),
        );
    }
    // A hard link lets later edits of the link change the source; mv removes its sources.
    let sources_written = (program == "ln" && !symbolic)
        || program == "mv"
        || (program == "cp" && split.has("l", &["link"]));
    let directories = program == "install" && split.has("d", &["directory"]);
    let mut given = split.operands.clone();
    let mut destinations: Vec<Word> = split.values("target-directory").cloned().collect();
    let folder_given = !destinations.is_empty();
    if directories {
        destinations.extend(given.drain(..).cloned());
    } else if destinations.is_empty() {
        destinations.extend(given.pop().cloned());
    }
    env.note(Low, format!("{program} changes files in the project"));
    let recursive = program == "mv" || split.has("rRa", &["recursive", "archive"]);
    for destination in &destinations {
        write(env, program, destination);
        into_folder(env, program, destination, &given, recursive, folder_given);
    }
    if sources_written {
        for source in &given {
            write(env, program, source);
            if program == "mv" {
                super::tree(env, program, source);
            }
        }
    }
    if symbolic {
        for source in &given {
            links_to_protected(env, program, source);
        }
    }
    if recursive && split.has("L", &["dereference"]) {
        super::follows_links(env, program, &given);
    }
    let read: Vec<Word> = given
        .iter()
        .chain(&split.others)
        .map(|word| (*word).clone())
        .collect();
    read_args(env, program, &read);
}

/// Rates a local `rsync` (the network is rated by the caller): it copies into its last
/// operand like `cp -r`, and a source ending in `/` copies that folder's contents.
pub(crate) fn rsync(env: &mut Env, args: &[Word]) {
    let split = split(args, RSYNC_VALUES);
    let mut given = split.operands.clone();
    let Some(destination) = given.pop() else {
        return;
    };
    if is_remote(destination.as_str()) {
        return;
    }
    write(env, "rsync", destination);
    into_folder(env, "rsync", destination, &given, true, true);
}

/// rsync's options that take a value (so that the value is not taken for an operand).
const RSYNC_VALUES: &[(Option<char>, &str)] = &[
    (Some('e'), "rsh"),
    (Some('f'), "filter"),
    (Some('T'), "temp-dir"),
    (Some('B'), "block-size"),
    (Some('M'), "remote-option"),
    (None, "exclude"),
    (None, "include"),
    (None, "exclude-from"),
    (None, "include-from"),
    (None, "files-from"),
    (None, "rsync-path"),
    (None, "log-file"),
    (None, "log-file-format"),
    (None, "partial-dir"),
    (None, "compare-dest"),
    (None, "copy-dest"),
    (None, "link-dest"),
    (None, "backup-dir"),
    (None, "suffix"),
    (None, "chmod"),
    (None, "chown"),
    (None, "usermap"),
    (None, "groupmap"),
    (None, "password-file"),
    (None, "out-format"),
    (None, "max-size"),
    (None, "min-size"),
    (None, "timeout"),
    (None, "port"),
    (None, "bwlimit"),
    (None, "info"),
    (None, "debug"),
    (None, "iconv"),
    (None, "write-batch"),
    (None, "read-batch"),
    (None, "only-write-batch"),
];

/// `host:path` or `rsync://…`: not a local path.
fn is_remote(text: &str) -> bool {
    text.contains("://")
        || text
            .split_once(':')
            .is_some_and(|(host, _)| !host.is_empty() && !host.contains('/'))
}

/// Rates what a copy writes inside `destination` when it is a folder: `destination/<name>`
/// for each source, and for a copy of a folder's contents, any protected folder the
/// destination holds (the project root's `.git/`, `.agentctl/`, …).
fn into_folder(
    env: &mut Env,
    program: &str,
    destination: &Word,
    sources: &[&Word],
    recursive: bool,
    folder_given: bool,
) {
    let folder = env.paths.folder(destination);
    if !(folder.exists || folder_given || destination.as_str().ends_with('/')) {
        return;
    }
    for source in sources {
        let text = source.as_str();
        let contents = recursive
            && (text == "." || text.ends_with("/.") || (text.ends_with('/') && text != "/"));
        if contents {
            // The contents of another folder may hold a `.git/` or `.agentctl/` of its own.
            let child = folder
                .protected_child
                .or(env.paths.folder(source).protected_child)
                .or(folder.root.then_some(".agentctl"));
            if let Some(child) = child {
                replaces(
                    env,
                    program,
                    destination,
                    child,
                    "a copy of a folder's contents",
                );
            }
            continue;
        }
        write(env, program, &joined(destination, source));
    }
}

/// Notes that `what` may replace the protected folder `child` of `folder` wholesale.
pub(super) fn replaces(env: &mut Env, program: &str, folder: &Word, child: &str, what: &str) {
    let base = folder.as_str().trim_end_matches('/');
    let inner = Word {
        text: format!("{base}/{child}"),
        globs: folder
            .globs
            .iter()
            .copied()
            .filter(|at| *at < base.len())
            .collect(),
        ..folder.clone()
    };
    let place = env.paths.place(&inner);
    let path = place
        .protected
        .map_or_else(|| inner.text.clone(), |protected| protected.path);
    env.note_protected(
        High,
        format!("`{program}`: {what} may replace {} wholesale", short(&path)),
        path,
    );
}

/// `destination/<last component of source>`, as a word (patterns in the name kept).
fn joined(destination: &Word, source: &Word) -> Word {
    let trimmed = source.as_str().trim_end_matches('/');
    let start = trimmed.rfind('/').map_or(0, |at| at + 1);
    let name = source.tail(start);
    let name_text = name.text.trim_end_matches('/');
    let base = destination.as_str().trim_end_matches('/');
    let prefix = format!("{base}/");
    Word {
        text: format!("{prefix}{name_text}"),
        plain: destination.plain && source.plain,
        globs: destination
            .globs
            .iter()
            .copied()
            .filter(|at| *at < base.len())
            .chain(
                name.globs
                    .iter()
                    .filter(|at| **at < name_text.len())
                    .map(|at| at + prefix.len()),
            )
            .collect(),
        tilde: destination.tilde,
    }
}

/// `ln -s .git g`: a link to a protected folder lets a later write reach it unseen.
fn links_to_protected(env: &mut Env, program: &str, target: &Word) {
    if let Some(protected) = env.paths.place(target).protected {
        env.note_protected(
            High,
            format!(
                "{program} -s links to {} ({}), so later writes through the link change it",
                short(&protected.path),
                protected.why
            ),
            &protected.path,
        );
    }
}
