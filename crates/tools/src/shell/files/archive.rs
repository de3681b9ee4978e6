//! Archives: `tar`, `zip`, `unzip` and the compressors. Extracting writes whatever the archive
//! holds — in the project root that may be a `.git/` or `.agentctl/` replacing the real ones —
//! and creating one writes the archive file (`tar -cf .agentctl/sessions.db src`).

use super::{read, write};
use crate::shell::Env;
use crate::shell::opts::{any, split};
use crate::shell::words::Word;
use agentctl_core::RiskLevel::Medium;

/// tar's options that take a value, short letter and long name.
const TAR_VALUES: &[(Option<char>, &str)] = &[
    (Some('f'), "file"),
    (Some('C'), "directory"),
    (Some('T'), "files-from"),
    (Some('X'), "exclude-from"),
    (Some('b'), "blocking-factor"),
    (Some('g'), "listed-incremental"),
    (Some('K'), "starting-file"),
    (Some('N'), "newer"),
    (Some('V'), "label"),
    (Some('L'), "tape-length"),
    (Some('I'), "use-compress-program"),
    (Some('F'), "info-script"),
    (Some('H'), "format"),
    (None, "to-command"),
    (None, "checkpoint-action"),
    (None, "exclude"),
    (None, "transform"),
    (None, "xform"),
    (None, "owner"),
    (None, "group"),
    (None, "mode"),
    (None, "mtime"),
    (None, "strip-components"),
    (None, "suffix"),
    (None, "index-file"),
    (None, "rsh-command"),
    (None, "newer-mtime"),
];

/// Rates `tar`.
pub(crate) fn tar(env: &mut Env, args: &[Word]) {
    let args = old_style(args);
    let runs = any(
        &args,
        "IF",
        &[
            "to-command",
            "use-compress-program",
            "checkpoint-action",
            "info-script",
            "new-volume-script",
            "rsh-command",
        ],
    );
    if runs {
        env.note(
            Medium,
            "tar runs a command (--to-command, -I, --checkpoint-action)",
        );
    }
    env.note(Medium, "tar writes or extracts archives (files anywhere)");
    let values = split(&args, TAR_VALUES);
    let extracts = any(&args, "x", &["extract", "get"]) && !any(&args, "O", &["to-stdout"]);
    let creates = any(
        &args,
        "cruA",
        &[
            "create",
            "append",
            "update",
            "catenate",
            "concatenate",
            "delete",
        ],
    );
    for file in values.values("file") {
        if creates {
            write(env, "tar", file);
        } else {
            read(env, "tar", file);
        }
    }
    if extracts {
        let mut folders: Vec<Word> = values.values("directory").cloned().collect();
        if folders.is_empty() {
            folders.push(Word::literal("."));
        }
        for folder in &folders {
            extracts_into(env, "tar -x", folder);
        }
    }
}

/// `tar xzf a.tgz` (letters without a dash, their values following in order) as
/// `tar -x -z -f a.tgz`.
fn old_style(args: &[Word]) -> Vec<Word> {
    let Some((first, rest)) = args.split_first() else {
        return Vec::new();
    };
    let letters = first.as_str();
    if letters.starts_with('-')
        || letters.is_empty()
        || !letters.chars().all(|c| c.is_ascii_alphabetic())
    {
        return args.to_vec();
    }
    let mut out = Vec::new();
    let mut values = rest.iter();
    for letter in letters.chars() {
        out.push(Word::literal(format!("-{letter}")));
        if TAR_VALUES.iter().any(|(short, _)| *short == Some(letter)) {
            out.extend(values.next().cloned());
        }
    }
    out.extend(values.cloned());
    out
}

/// Rates `zip`, `unzip` and the compressors.
pub(crate) fn archive(env: &mut Env, program: &str, args: &[Word]) {
    match program {
        "zip" => {
            if any(args, "", &["unzip-command"]) || args.iter().any(|a| a.as_str() == "-TT") {
                env.note(Medium, "zip -TT runs a command");
            }
            env.note(Medium, "zip writes an archive");
            let values = split(
                args,
                &[
                    (Some('b'), "temp-path"),
                    (Some('n'), "suffixes"),
                    (Some('t'), "from-date"),
                    (Some('O'), "output-file"),
                    (Some('P'), "password"),
                    (Some('Z'), "compression-method"),
                    (Some('s'), "split-size"),
                ],
            );
            let written = values
                .values("output-file")
                .chain(values.operands.first().copied());
            for file in written.cloned().collect::<Vec<_>>() {
                write(env, "zip", &file);
            }
        }
        "unzip" => {
            env.note(Medium, "unzip replaces or extracts files");
            let lists = args.iter().any(|a| {
                let text = a.as_str();
                text.starts_with('-')
                    && !text.starts_with("--")
                    && text.contains(['l', 't', 'v', 'p', 'Z'])
            });
            let values = split(args, &[(Some('d'), "exdir"), (Some('x'), "exclude")]);
            if let Some(archive) = values.operands.first() {
                read(env, "unzip", archive);
            }
            if !lists {
                let mut folders: Vec<Word> = values.values("exdir").cloned().collect();
                if folders.is_empty() {
                    folders.push(Word::literal("."));
                }
                for folder in &folders {
                    extracts_into(env, "unzip", folder);
                }
            }
        }
        _ => {
            env.note(Medium, format!("{program} replaces or extracts files"));
            if !any(
                args,
                "cltk",
                &["stdout", "to-stdout", "list", "test", "keep"],
            ) {
                for file in split(args, &[(Some('S'), "suffix")]).operands {
                    write(env, program, file);
                }
            }
        }
    }
}

/// An archive extracted into `folder`: the folder is written, and if it is the project root
/// or holds a protected folder, the archive's own `.git/` or `.agentctl/` may replace it.
fn extracts_into(env: &mut Env, program: &str, folder: &Word) {
    write(env, program, folder);
    let found = env.paths.folder(folder);
    let child = found.protected_child.or(found.root.then_some(".agentctl"));
    if let Some(child) = child {
        super::copy::replaces(env, program, folder, child, "an archive extracted there");
    }
}
