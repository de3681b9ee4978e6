//! Build, test and lint tools: `low`, because they run the project's own code (build scripts,
//! tests, package scripts) — as long as no option points them at other code or outside the
//! project. Installing, publishing and running packages from a registry rate higher.

use super::Env;
use super::info::short;
use super::opts::{any, is_option, operands, path_candidates};
use super::paths::Kind;
use super::words::Word;
use agentctl_core::RiskLevel::{High, Low, Medium, Safe};

const TOOLS: &[&str] = &[
    "cargo", "make", "gmake", "npm", "pnpm", "yarn", "bun", "go", "pytest", "just", "tsc",
    "eslint", "prettier", "ruff", "black", "mypy", "rustfmt", "jest", "vitest", "rustc",
];

/// Whether `program` is rated here.
pub(crate) fn is_build_tool(program: &str) -> bool {
    TOOLS.contains(&program)
}

/// Rates a build, test or lint tool.
pub(crate) fn build(env: &mut Env, program: &str, args: &[Word]) {
    // Only the flags: `make version` builds a target and `pytest version` runs tests there.
    let only_version = args.len() == 1 && matches!(args[0].as_str(), "--version" | "-V");
    if only_version {
        env.note(Safe, format!("{program} --version only prints"));
        return;
    }
    tool_paths(env, program, args);
    // `cargo +nightly test`: a toolchain comes before the subcommand.
    let sub = operands(args)
        .into_iter()
        .map(Word::as_str)
        .find(|w| !w.starts_with('+'))
        .unwrap_or_default()
        .to_owned();
    match program {
        "cargo" => cargo(env, &sub, args),
        "make" | "gmake" => make(env, program, args),
        "npm" | "pnpm" | "yarn" | "bun" => node(env, program, &sub, args),
        "go" => go(env, &sub, args),
        "just" => {
            let known = [
                "-l",
                "--list",
                "-n",
                "--dry-run",
                "--summary",
                "-s",
                "--show",
            ];
            let odd = args.iter().any(|a| {
                (is_option(a.as_str()) && !known.contains(&a.as_str())) || a.as_str().contains('=')
            });
            if odd {
                env.note(
                    Medium,
                    "just options and variable overrides can change the shell or the recipes",
                );
            }
            env.note(Low, "just runs the project's recipes");
        }
        "rustc" => env.note(
            Medium,
            "rustc options can run other programs (`-C linker=…`)",
        ),
        _ => env.note(
            Low,
            format!("{program} builds, checks or tests the project"),
        ),
    }
}

/// Every path-like argument: outside the project `medium`, in a protected folder `high`
/// (these tools write: build output, caches, `--basetemp`).
fn tool_paths(env: &mut Env, program: &str, args: &[Word]) {
    for arg in args {
        for candidate in path_candidates(arg) {
            let place = env.paths.place(&candidate);
            let text = short(candidate.as_str());
            if let Some(protected) = &place.protected {
                env.note_protected(
                    High,
                    format!(
                        "`{program}` may write under {}/ ({}): {text}",
                        protected.name, protected.why
                    ),
                    &protected.path,
                );
            }
            if place.kind > Kind::Inside && place.kind != Kind::Dynamic {
                env.note(
                    Medium,
                    format!("`{program}` is given a path outside the project ({text})"),
                );
            }
        }
    }
}

fn cargo(env: &mut Env, sub: &str, args: &[Word]) {
    if any(args, "Z", &["config"]) {
        env.note(
            Medium,
            "cargo --config and -Z can make cargo run other programs",
        );
    }
    match sub {
        "" => env.note(Safe, "cargo only prints"),
        "build" | "b" | "check" | "c" | "test" | "t" | "clippy" | "doc" | "d" | "bench" | "run"
        | "r" | "fmt" | "nextest" | "fix" | "clean" | "update" | "generate-lockfile" | "fetch"
        | "tree" | "metadata" | "pkgid" | "locate-project" | "verify-project" | "insta"
        | "deny" | "llvm-cov" | "miri" | "expand" | "package" | "vendor" | "machete" | "udeps"
        | "outdated" | "audit" | "hack" | "semver-checks" => env.note(
            Low,
            format!("cargo {sub} builds, checks or runs the project's code"),
        ),
        "publish" | "yank" | "owner" | "login" | "logout" => env.note(
            High,
            format!("cargo {sub} changes a public registry or its credentials"),
        ),
        "install" | "uninstall" | "binstall" => {
            env.note(Medium, format!("cargo {sub} installs programs"));
        }
        other => env.note(
            Medium,
            format!("cargo {} is not a known subcommand", short(other)),
        ),
    }
}

fn make(env: &mut Env, program: &str, args: &[Word]) {
    if any(args, "fE", &["file", "makefile", "eval"]) {
        env.note(
            Medium,
            format!("{program} -f/--eval runs a makefile the rater cannot see"),
        );
    }
    if operands(args).iter().any(|w| w.as_str().contains('=')) {
        env.note(
            Medium,
            format!("{program} VAR=… overrides variables, which can change the commands it runs"),
        );
    }
    env.note(Low, format!("{program} builds the project"));
}

fn node(env: &mut Env, program: &str, sub: &str, args: &[Word]) {
    const QUIET: &[&str] = &[
        "-s",
        "--silent",
        "-q",
        "--quiet",
        "--if-present",
        "--workspaces",
        "-ws",
    ];
    let options = args
        .iter()
        .take_while(|a| a.as_str() != "--")
        .filter(|a| is_option(a.as_str()) && !QUIET.contains(&a.as_str()))
        .count();
    if options > 0 {
        env.note(
            Medium,
            format!("{program} options can change the shell or the registry it uses"),
        );
    }
    match sub {
        "test" | "t" | "run" | "run-script" | "build" | "lint" | "start" | "typecheck"
        | "check" | "format" | "fmt" => {
            env.note(Low, format!("{program} {sub} runs the project's scripts"))
        }
        "ls" | "list" | "outdated" | "why" | "explain" | "view" | "info" => {
            env.note(Low, format!("{program} {sub} reads package data"));
        }
        "publish" | "unpublish" | "deprecate" | "owner" | "login" | "adduser" | "logout"
        | "token" | "dist-tag" => env.note(
            High,
            format!("{program} {sub} changes a public registry or its credentials"),
        ),
        "exec" | "x" | "dlx" | "create" | "init" => env.note(
            Medium,
            format!("{program} {sub} runs a package from the registry"),
        ),
        "install" | "i" | "ci" | "add" | "remove" | "rm" | "uninstall" | "update" | "up"
        | "upgrade" | "audit" | "link" | "rebuild" | "dedupe" | "prune" => env.note(
            Medium,
            format!("{program} {sub} installs packages (their install scripts run)"),
        ),
        "" => env.note(
            Medium,
            format!("{program} without a subcommand installs packages"),
        ),
        other if program == "yarn" || program == "pnpm" => env.note(
            Low,
            format!("{program} {} runs the project's scripts", short(other)),
        ),
        other => env.note(
            Medium,
            format!("{program} {} is not a known subcommand", short(other)),
        ),
    }
}

fn go(env: &mut Env, sub: &str, args: &[Word]) {
    let runs = args.iter().any(|a| {
        let text = a.as_str().trim_start_matches('-');
        a.as_str().starts_with('-') && (text.starts_with("exec") || text.starts_with("toolexec"))
    });
    if runs {
        env.note(Medium, "go -exec/-toolexec runs another program");
    }
    match sub {
        "version" => env.note(Safe, "go version only prints"),
        "env" if args.iter().any(|a| matches!(a.as_str(), "-w" | "-u")) => {
            env.note(Medium, "go env -w changes go settings");
        }
        "build" | "test" | "vet" | "fmt" | "run" | "generate" | "list" | "doc" | "mod" | "env"
        | "clean" | "work" => env.note(
            Low,
            format!("go {sub} builds, checks or runs the project's code"),
        ),
        "install" | "get" => env.note(Medium, format!("go {sub} installs programs")),
        other => env.note(
            Medium,
            format!("go {} is not a known subcommand", short(other)),
        ),
    }
}
