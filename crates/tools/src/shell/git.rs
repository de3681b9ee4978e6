//! Rules for `git` and for build and test tools.

use super::RiskAssessment;
use agentctl_core::RiskLevel::{self, High, Low, Medium, Safe};

fn verdict(level: RiskLevel, reason: impl Into<String>) -> RiskAssessment {
    RiskAssessment::new(level, reason)
}

fn any(args: &[String], flags: &[&str]) -> bool {
    args.iter().any(|arg| {
        flags.contains(&arg.as_str())
            || flags
                .iter()
                .any(|flag| flag.starts_with("--") && arg.starts_with(&format!("{flag}=")))
    })
}

/// Rates `git <args>`.
pub(super) fn git_risk(args: &[String]) -> RiskAssessment {
    // Skip global options: `git -C dir --no-pager log`.
    let mut rest = args;
    while let Some(first) = rest.first() {
        match first.as_str() {
            "-C" | "-c" | "--git-dir" | "--work-tree" | "--namespace" => {
                rest = &rest[2.min(rest.len())..];
            }
            option if option.starts_with('-') => rest = &rest[1..],
            _ => break,
        }
    }
    let Some((sub, args)) = rest.split_first() else {
        return verdict(Safe, "git without a subcommand only prints help");
    };
    let sub = sub.as_str();
    let reads = |what: &str| verdict(Safe, format!("git {what} only reads"));
    let positional = args.iter().any(|arg| !arg.starts_with('-'));
    match sub {
        "status" | "diff" | "log" | "show" | "blame" | "grep" | "ls-files" | "ls-tree"
        | "rev-parse" | "describe" | "shortlog" | "cat-file" | "show-ref" | "whatchanged"
        | "version" | "--version" | "help" | "rev-list" | "merge-base" | "name-rev" => reads(sub),
        "branch" | "tag" => {
            if any(
                args,
                &[
                    "-d", "-D", "--delete", "-m", "-M", "--move", "-f", "--force",
                ],
            ) {
                verdict(Medium, format!("git {sub} deletes or moves a {sub}"))
            } else if !positional || any(args, &["-l", "--list", "--show-current"]) {
                reads(sub)
            } else {
                verdict(Low, format!("git {sub} creates a {sub}"))
            }
        }
        "remote" | "stash" | "reflog" | "worktree" | "notes" | "submodule" | "config" => {
            let action = args
                .iter()
                .find(|a| !a.starts_with('-'))
                .map(String::as_str);
            let listing = match sub {
                "config" => any(args, &["--get", "--list", "-l", "--get-all"]) || args.len() == 1,
                "stash" => matches!(action, Some("list" | "show")),
                _ => matches!(action, None | Some("list" | "show" | "get-url" | "status")),
            };
            if listing {
                reads(sub)
            } else if sub == "reflog" && action == Some("expire") {
                verdict(High, "git reflog expire drops history")
            } else {
                verdict(
                    Low,
                    format!("git {sub} changes repository settings or state"),
                )
            }
        }
        "add" | "mv" | "fetch" | "switch" | "init" | "format-patch" => {
            verdict(Low, format!("git {sub} changes the repository"))
        }
        "checkout" => {
            if any(args, &["-b", "-B", "--orphan"]) {
                verdict(Low, "git checkout -b creates a branch")
            } else if any(args, &["--", ".", "-f", "--force"]) {
                verdict(Medium, "git checkout discards working-tree changes")
            } else {
                verdict(Low, "git checkout switches branches")
            }
        }
        "commit" => verdict(Medium, "git commit records a commit"),
        "restore" | "rm" => verdict(Medium, format!("git {sub} discards or deletes files")),
        "reset" if any(args, &["--hard", "--merge", "--keep"]) => {
            verdict(High, "git reset --hard discards uncommitted changes")
        }
        "reset" => verdict(Low, "git reset moves the branch or unstages changes"),
        "clean" if any(args, &["-n", "--dry-run"]) => reads("clean --dry-run"),
        "clean" => verdict(High, "git clean deletes untracked files"),
        "push" => {
            let forced = any(
                args,
                &[
                    "-f",
                    "--force",
                    "--force-with-lease",
                    "--mirror",
                    "--delete",
                    "-d",
                    "--prune",
                ],
            ) || args
                .iter()
                .any(|a| a.starts_with('+') || (a.starts_with(':') && a.len() > 1));
            if forced {
                verdict(High, "git push --force rewrites or deletes remote history")
            } else {
                verdict(Medium, "git push publishes commits")
            }
        }
        "filter-branch" | "filter-repo" | "update-ref" | "replace" => {
            verdict(High, format!("git {sub} rewrites history"))
        }
        "gc" | "prune" => verdict(Medium, format!("git {sub} removes unreachable objects")),
        _ => verdict(Medium, format!("git {sub} changes the repository")),
    }
}

/// Rates build, test and lint tools.
pub(super) fn build_risk(program: &str, args: &[String]) -> RiskAssessment {
    let sub = args
        .iter()
        .find(|a| !a.starts_with('-') && !a.starts_with('+'))
        .map_or("", String::as_str);
    let version = args.len() == 1 && matches!(args[0].as_str(), "--version" | "-V" | "version");
    if version {
        return verdict(Safe, format!("{program} --version only reads"));
    }
    let builds = || {
        verdict(
            Low,
            format!("{program} builds, checks or tests the project"),
        )
    };
    match program {
        "cargo" => match sub {
            "tree" | "metadata" | "search" | "locate-project" | "pkgid" | "verify-project" => {
                verdict(Safe, format!("cargo {sub} only reads"))
            }
            "build" | "b" | "check" | "c" | "test" | "t" | "clippy" | "doc" | "d" | "bench"
            | "run" | "r" | "fmt" | "nextest" | "fix" | "clean" | "update"
            | "generate-lockfile" | "fetch" | "insta" | "deny" | "llvm-cov" | "miri" | "expand" => {
                builds()
            }
            "publish" | "yank" | "owner" | "login" => {
                verdict(High, format!("cargo {sub} changes a public registry"))
            }
            _ => verdict(
                Medium,
                format!("cargo {sub} may change things outside the project"),
            ),
        },
        "npm" | "pnpm" | "yarn" | "bun" => match sub {
            "test" | "t" | "run" | "run-script" | "build" | "lint" | "start" | "exec" | "x" => {
                builds()
            }
            "ls" | "list" | "view" | "info" | "outdated" | "why" | "audit" | "" => {
                verdict(Safe, format!("{program} {sub} only reads"))
            }
            "publish" | "unpublish" | "deprecate" => {
                verdict(High, format!("{program} {sub} changes a public registry"))
            }
            _ => verdict(
                Medium,
                format!("{program} {sub} installs or changes packages"),
            ),
        },
        "go" => match sub {
            "version" | "env" | "list" | "doc" => verdict(Safe, format!("go {sub} only reads")),
            "build" | "test" | "vet" | "fmt" | "run" | "generate" | "mod" => builds(),
            _ => verdict(Medium, format!("go {sub} may install programs")),
        },
        _ => builds(),
    }
}
