//! Rates `git`: read-only subcommands are `safe` when no option makes them write a file or
//! run a program; everything that changes the repository is rated by what it can lose.

mod config;
mod options;
mod repo;

use super::Env;
use super::files::write;
use super::info::short;
use super::opts::{any, is_option, operands, split};
use super::words::Word;
use agentctl_core::RiskLevel::{Critical, High, Low, Medium, Safe};

/// Subcommands that only read the repository.
#[rustfmt::skip]
const READS: &[&str] = &[
    "status", "log", "diff", "show", "blame", "annotate", "grep", "ls-files", "ls-tree",
    "rev-parse", "describe", "shortlog", "cat-file", "show-ref", "rev-list", "merge-base",
    "name-rev", "whatchanged", "version", "count-objects", "diff-tree", "diff-files", "diff-index",
    "for-each-ref", "show-branch", "cherry", "range-diff", "check-ignore", "check-attr",
    "check-ref-format", "var", "fsck", "verify-pack",
];

/// Rates `git <args>`.
pub(crate) fn git(env: &mut Env, args: &[Word]) {
    let rest = options::global(env, args);
    let Some((sub, args)) = rest.split_first() else {
        env.note(Safe, "git without a subcommand only prints help");
        return;
    };
    let sub = sub.as_str();
    if !matches!(sub, "version" | "help" | "init" | "clone") {
        repository(env);
    }
    if any(args, "", &["upload-pack", "receive-pack", "exec"])
        && matches!(
            sub,
            "fetch" | "pull" | "push" | "clone" | "ls-remote" | "archive"
        )
    {
        env.note(
            Medium,
            format!("git {sub} --upload-pack/--exec runs a program"),
        );
    }
    options::files(env, sub, args);
    if READS.contains(&sub) {
        reads(env, sub, args);
        return;
    }
    changes(env, sub, args);
}

/// Notes `medium` if git, in any folder the shell may be in, would use a repository other
/// than the project's own or one whose configuration runs programs.
fn repository(env: &mut Env) {
    let Some(root) = env.paths.real_root().map(std::path::Path::to_path_buf) else {
        return;
    };
    let mut reasons: Vec<String> = Vec::new();
    for start in env.paths.cwd_dirs() {
        if let Some(why) = repo::risk(start.as_deref(), &root)
            && !reasons.contains(&why)
        {
            reasons.push(why);
        }
    }
    for why in reasons {
        env.note(Medium, why);
    }
}

fn reads(env: &mut Env, sub: &str, args: &[Word]) {
    if any(args, "", &["ext-diff"]) {
        env.note(Medium, format!("git {sub} --ext-diff runs a diff program"));
    }
    if any(args, "O", &["open-files-in-pager"]) {
        env.note(
            Medium,
            format!("git {sub} -O runs a pager or reads an order file"),
        );
    }
    if sub == "fsck" && any(args, "", &["lost-found"]) {
        env.note(Low, "git fsck --lost-found writes into .git/");
    }
    env.note(Safe, format!("git {sub} only reads"));
}

// Kept whole: one arm per git subcommand that changes things, the rating table in one place.
fn changes(env: &mut Env, sub: &str, args: &[Word]) {
    let action = operands(args).first().map_or("", |w| w.as_str()).to_owned();
    match sub {
        "branch" | "tag" => branch_or_tag(env, sub, args),
        "stash" => match action.as_str() {
            "list" | "show" => env.note(Safe, "git stash list only reads"),
            "" | "push" | "save" | "create" | "store" => {
                env.note(Low, "git stash puts changes aside");
            }
            "drop" | "clear" => env.note(
                High,
                format!("git stash {action} throws stashed changes away"),
            ),
            _ => env.note(
                Medium,
                format!("git stash {} changes the working tree", short(&action)),
            ),
        },
        "reflog" => match action.as_str() {
            "" | "show" | "exists" | "list" => env.note(Safe, "git reflog only reads"),
            _ => env.note(High, "git reflog expire/delete drops history"),
        },
        "remote" => match action.as_str() {
            "" | "get-url" => env.note(Safe, "git remote only reads"),
            "show" => env.note(Low, "git remote show asks the remote"),
            _ => env.note(Medium, "git remote changes the repository's remotes"),
        },
        "worktree" if action == "list" => env.note(Safe, "git worktree list only reads"),
        "notes" if matches!(action.as_str(), "" | "list" | "show") => {
            env.note(Safe, "git notes only reads");
        }
        "config" => config(env, &action, args),
        "ls-remote" => env.note(Low, "git ls-remote asks the remote"),
        "add" | "fetch" | "format-patch" | "archive" | "sparse-checkout" => {
            env.note(Low, format!("git {sub} changes the repository"));
        }
        "init" => {
            if any(args, "", &["template", "separate-git-dir"]) {
                env.note(
                    Medium,
                    "git init --template copies hooks, which run commands",
                );
            }
            env.note(Low, "git init creates a repository");
        }
        "mv" => {
            env.note(Low, "git mv renames files");
            for target in operands(args) {
                write(env, "git mv", target);
            }
        }
        "switch" => {
            if any(args, "f", &["force", "discard-changes"]) {
                env.note(
                    High,
                    "git switch --discard-changes throws uncommitted changes away",
                );
            } else if any(args, "C", &["force-create"]) {
                env.note(Medium, "git switch -C resets an existing branch");
            }
            env.note(Low, "git switch changes branches");
        }
        "checkout" => checkout(env, args),
        "restore" => {
            let staged_only = any(args, "S", &["staged"]) && !any(args, "W", &["worktree"]);
            if staged_only {
                env.note(Low, "git restore --staged unstages changes");
            } else {
                env.note(High, "git restore throws uncommitted changes away");
            }
        }
        "reset" => {
            if any(args, "", &["hard", "merge", "keep"]) {
                env.note(High, "git reset --hard throws uncommitted changes away");
            } else {
                env.note(Low, "git reset moves the branch or unstages changes");
            }
        }
        "clean" => clean(env, args),
        "rm" => {
            if any(args, "f", &["force"]) {
                env.note(
                    High,
                    "git rm -f deletes files with their uncommitted changes",
                );
            } else {
                env.note(Medium, "git rm deletes files");
            }
        }
        "push" => push(env, args),
        "commit" => env.note(Medium, "git commit records a commit (and runs hooks)"),
        "rebase" | "bisect" if any(args, "x", &["exec"]) || action == "run" => {
            env.note(Medium, format!("git {sub} runs a command"));
            let script: Vec<&str> = args
                .iter()
                .skip_while(|a| !matches!(a.as_str(), "-x" | "--exec" | "run"))
                .skip(1)
                .map(Word::as_str)
                .collect();
            env.script(&script.join(" "));
        }
        "submodule" if action == "foreach" => {
            env.note(Medium, "git submodule foreach runs a command");
            let script: Vec<&str> = args
                .iter()
                .skip_while(|a| a.as_str() != "foreach")
                .skip(1)
                .filter(|a| !is_option(a.as_str()))
                .map(Word::as_str)
                .collect();
            env.script(&script.join(" "));
        }
        "submodule" if matches!(action.as_str(), "status" | "summary") => {
            env.note(Safe, "git submodule status only reads");
        }
        "filter-branch" | "filter-repo" | "update-ref" | "replace" => {
            env.note(High, format!("git {sub} rewrites history"));
        }
        "help" => env.note(Medium, "git help opens a manual page or a browser"),
        _ => env.note(
            Medium,
            format!("git {} changes the repository or runs an alias", short(sub)),
        ),
    }
}

fn branch_or_tag(env: &mut Env, sub: &str, args: &[Word]) {
    let split = split(
        args,
        &[
            (None, "contains"),
            (None, "no-contains"),
            (None, "merged"),
            (None, "no-merged"),
            (None, "points-at"),
            (None, "sort"),
            (None, "format"),
            (None, "color"),
            (None, "column"),
            (None, "abbrev"),
        ],
    );
    let changes = if sub == "branch" {
        any(
            args,
            "dDmMcCfu",
            &[
                "delete",
                "move",
                "copy",
                "force",
                "set-upstream-to",
                "unset-upstream",
                "edit-description",
                "track",
            ],
        )
    } else {
        any(
            args,
            "dfsuam",
            &[
                "delete",
                "force",
                "sign",
                "local-user",
                "annotate",
                "message",
                "file",
            ],
        )
    };
    let listing = any(args, "l", &["list", "show-current"]);
    if any(args, "dD", &["delete"]) || (sub == "branch" && any(args, "mMf", &["move", "force"])) {
        env.note(
            Medium,
            format!("git {sub} deletes, moves or overwrites a {sub}"),
        );
    } else if changes || (!listing && !split.operands.is_empty()) {
        env.note(Low, format!("git {sub} creates or changes a {sub}"));
    } else {
        env.note(Safe, format!("git {sub} only lists"));
    }
}

fn config(env: &mut Env, action: &str, args: &[Word]) {
    let reading = any(
        args,
        "l",
        &[
            "get",
            "get-all",
            "get-regexp",
            "list",
            "get-urlmatch",
            "get-color",
            "get-colorbool",
        ],
    ) || matches!(action, "get" | "list")
        || (operands(args).len() == 1 && !args.iter().any(|a| a.as_str().starts_with("--unset")));
    if reading
        && !any(
            args,
            "e",
            &[
                "edit",
                "add",
                "unset",
                "unset-all",
                "replace-all",
                "rename-section",
                "remove-section",
            ],
        )
    {
        env.note(
            Low,
            "git config prints settings (credentials may be among them)",
        );
    } else {
        let values = split(args, &[(Some('f'), "file")]);
        let file = if let Some(file) = values.values("file").next() {
            file.text.clone()
        } else if values.has("", &["global"]) {
            "~/.gitconfig".to_owned()
        } else if values.has("", &["system"]) {
            "/etc/gitconfig".to_owned()
        } else {
            ".git/config".to_owned()
        };
        env.note_protected(
            High,
            format!(
                "git config changes {}, which can make later git commands run programs",
                short(&file)
            ),
            file,
        );
    }
}

/// `git clean`: with `-d` (and not a dry run) it deletes untracked folders, the session
/// database in `.agentctl/` among them unless git ignores it and `-x` is not given.
fn clean(env: &mut Env, args: &[Word]) {
    let dry_run = any(args, "n", &["dry-run"]);
    if !dry_run && any(args, "d", &[]) {
        env.note_protected(
            Critical,
            "git clean -d deletes untracked folders, the session database in .agentctl/ among them",
            ".agentctl/sessions.db",
        );
    } else {
        env.note(
            High,
            "git clean deletes untracked files (the session database in .agentctl/ too)",
        );
    }
}

fn checkout(env: &mut Env, args: &[Word]) {
    let given = operands(args);
    let discards = any(args, "fp", &["force", "patch", "theirs", "ours", "merge"])
        || args.iter().any(|a| a.as_str() == "--")
        || given.iter().any(|w| w.as_str() == ".");
    let creates = any(args, "bB", &["orphan"]);
    if discards {
        env.note(High, "git checkout -f/-- throws uncommitted changes away");
    } else if creates {
        env.note(Low, "git checkout -b creates a branch");
    } else if given.len() > 1 {
        env.note(
            High,
            "git checkout <branch> <file> overwrites files with their committed version",
        );
    } else {
        match given.first().map(|target| env.paths.exists(target)) {
            Some(Some(true)) => env.note(
                High,
                "git checkout of a file throws its uncommitted changes away",
            ),
            Some(Some(false)) | None => env.note(Low, "git checkout switches branches"),
            Some(None) => env.note(
                Medium,
                "git checkout switches branches or throws away changes to a file of that name",
            ),
        }
    }
}

fn push(env: &mut Env, args: &[Word]) {
    let forced = any(
        args,
        "fd",
        &[
            "force",
            "force-with-lease",
            "force-if-includes",
            "mirror",
            "delete",
            "prune",
        ],
    ) || operands(args).iter().any(|refspec| {
        let text = refspec.as_str();
        text.starts_with('+') || (text.starts_with(':') && text.len() > 1)
    });
    if forced {
        env.note(High, "git push --force rewrites or deletes remote history");
    } else {
        env.note(Medium, "git push publishes commits");
    }
}
