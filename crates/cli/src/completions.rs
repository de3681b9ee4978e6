//! `agentctl completions SHELL`.

use crate::args::{CompletionsArgs, PROJECTLESS, command};
use clap_complete::Shell;
use std::io::Write as _;
use std::process::ExitCode;

pub(crate) fn run(args: CompletionsArgs) -> anyhow::Result<ExitCode> {
    let script = script(args.shell);
    let mut out = std::io::stdout().lock();
    out.write_all(script.as_bytes())?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// The completion script for `shell`.
pub(crate) fn script(shell: Shell) -> String {
    let mut command = command();
    // Generated into memory first: clap_complete panics when its writer fails, and a reader
    // that stops early (`| head -1`) closes the pipe. `main` ends quietly on a broken pipe.
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, "agentctl", &mut script);
    let script = String::from_utf8_lossy(&script).into_owned();
    match shell {
        Shell::Bash => bash_without_idle_project_dir(&script),
        Shell::Fish => fish_without_idle_project_dir(&script),
        _ => script,
    }
}

/// Fish's generator offers hidden flags too: drop the `--project-dir` lines of the commands
/// that read no project.
fn fish_without_idle_project_dir(script: &str) -> String {
    script
        .split_inclusive('\n')
        .filter(|line| {
            !(line.contains(" -l project-dir")
                && PROJECTLESS
                    .iter()
                    .any(|name| line.contains(&format!("__fish_agentctl_using_subcommand {name}"))))
        })
        .collect()
}

/// Bash's generator offers hidden flags too: drop `--project-dir` from the option lists of
/// the commands that read no project.
fn bash_without_idle_project_dir(script: &str) -> String {
    let mut out = String::with_capacity(script.len());
    let mut projectless = false;
    for line in script.split_inclusive('\n') {
        let trimmed = line.trim();
        if let Some(case) = trimmed.strip_suffix(')') {
            projectless = PROJECTLESS
                .iter()
                .any(|name| case.starts_with(&format!("agentctl__subcmd__{name}")));
        }
        if projectless && trimmed.starts_with("opts=") {
            out.push_str(&line.replacen(" --project-dir", "", 1));
        } else {
            out.push_str(line);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The completion scripts offer `--project-dir` where it works, and only there.
    #[test]
    fn project_dir_is_offered_only_where_it_works() {
        for shell in [Shell::Zsh, Shell::Fish] {
            let script = script(shell);
            let offered = script
                .lines()
                .filter(|line| line.contains("project-dir"))
                .filter(|line| line.contains("schema") || line.contains("completions"));
            assert_eq!(offered.count(), 0, "{shell}");
            assert!(script.contains("project-dir"), "{shell}");
        }
        let script = script(Shell::Bash);
        let options = |case: &str| {
            let at = script.find(&format!("        {case})\n")).unwrap();
            script[at..].lines().nth(1).unwrap().to_owned()
        };
        for case in ["agentctl__subcmd__schema", "agentctl__subcmd__completions"] {
            let offered = options(case);
            assert!(
                offered.contains("opts=") && !offered.contains("--project-dir"),
                "{offered}"
            );
        }
        assert!(options("agentctl__subcmd__sessions").contains("--project-dir"));
    }
}
