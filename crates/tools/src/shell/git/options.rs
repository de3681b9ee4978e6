//! git's own options (before the subcommand) and the files a subcommand is given by option:
//! `--output`, `archive -o`, `format-patch -o`, `blame -S`, `bundle create`.

use crate::shell::Env;
use crate::shell::files::{read, read_args, write};
use crate::shell::info::short;
use crate::shell::opts::split;
use crate::shell::words::Word;
use agentctl_core::RiskLevel::{Medium, Safe};

/// Rates git's options before the subcommand; returns the subcommand and what follows.
pub(super) fn global<'a>(env: &mut Env, args: &'a [Word]) -> &'a [Word] {
    let mut rest = args;
    while let Some(first) = rest.first() {
        let text = first.as_str();
        let value = || rest.get(1);
        let mut skip = 1;
        match text {
            "-C" => {
                skip = 2;
                if let Some(dir) = value() {
                    git_dir(env, dir);
                }
            }
            "-c" => {
                skip = 2;
                env.note(
                    Medium,
                    "git -c sets configuration, which can run programs (core.fsmonitor, alias.x=!cmd)",
                );
                if let Some(setting) = value()
                    && let Some((_, command)) = setting.as_str().split_once('=')
                {
                    env.script(command.trim_start_matches('!'));
                }
            }
            "-P"
            | "--no-pager"
            | "--no-replace-objects"
            | "--literal-pathspecs"
            | "--glob-pathspecs"
            | "--noglob-pathspecs"
            | "--icase-pathspecs"
            | "--no-optional-locks"
            | "--no-advice"
            | "--no-lazy-fetch" => {}
            "--version" | "--exec-path" | "--html-path" | "--man-path" | "--info-path" => {
                env.note(Safe, "git only prints");
            }
            "-p" | "--paginate" => env.note(Medium, "git -p runs a pager"),
            _ if text.starts_with("--config-env") => {
                env.note(
                    Medium,
                    "git --config-env sets configuration, which can run programs",
                );
            }
            _ if text.starts_with("--exec-path=") => env.note(
                Medium,
                "git --exec-path runs git's programs from another folder",
            ),
            _ if [
                "--git-dir",
                "--work-tree",
                "--namespace",
                "--bare",
                "--super-prefix",
                "--attr-source",
            ]
            .iter()
            .any(|option| text.starts_with(option)) =>
            {
                if !text.contains('=') && text != "--bare" {
                    skip = 2;
                }
                env.note(
                    Medium,
                    "git --git-dir/--work-tree points git at another repository, whose config can run programs",
                );
            }
            _ if text.starts_with('-') => {
                env.note(Medium, format!("git option `{}` is not known", short(text)));
            }
            _ => break,
        }
        rest = rest.get(skip..).unwrap_or_default();
    }
    rest
}

/// Rates the files a subcommand reads or writes by option, and reads its other words.
pub(super) fn files(env: &mut Env, sub: &str, args: &[Word]) {
    // `--output` of the diff family; `-o` of archive and format-patch (elsewhere it is
    // another option: `git grep -o`).
    let outputs: &[(Option<char>, &'static str)] = match sub {
        "archive" => &[(Some('o'), "output")],
        "format-patch" => &[(Some('o'), "output-directory"), (None, "output")],
        "blame" | "annotate" => &[
            (None, "output"),
            (Some('S'), "revs-file"),
            (None, "contents"),
            (None, "ignore-revs-file"),
        ],
        _ => &[(None, "output")],
    };
    let values = split(args, outputs);
    read_args(env, "git", &values.unknown());
    for file in ["revs-file", "contents", "ignore-revs-file"]
        .iter()
        .flat_map(|name| values.values(name))
    {
        read(env, "git", file);
    }
    for file in values
        .values("output")
        .chain(values.values("output-directory"))
    {
        write(env, &format!("git {sub} --output"), file);
    }
    if sub == "bundle"
        && let [action, file, ..] = values.operands.as_slice()
        && action.as_str() == "create"
    {
        write(env, "git bundle create", file);
    }
}

/// `git -C dir`: the folder must be inside the project; later paths may be relative to it.
fn git_dir(env: &mut Env, dir: &Word) {
    let place = env.paths.place(dir);
    if place.kind > crate::shell::paths::Kind::Inside {
        env.note(
            Medium,
            format!("git -C works outside the project ({})", short(dir.as_str())),
        );
    }
    if let Some(protected) = place.protected {
        env.note(Medium, format!("git -C works inside {}/", protected.name));
    }
    env.paths.cd(dir);
}
