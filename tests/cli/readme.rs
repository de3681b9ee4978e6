//! The README's first commands, run as a newcomer would, twice in a row: the main job, then the
//! review-then-fix walkthrough on a fresh copy (issue 18).

use super::support::{copy_example, text};
use std::path::Path;
use std::process::Command;

/// The body of the first ```` ```sh ```` block after `marker` in the README.
fn sh_block_after(readme: &str, marker: &str) -> String {
    let start = readme
        .find(marker)
        .unwrap_or_else(|| panic!("no `{marker}` in the README"));
    let rest = &readme[start..];
    let open = rest.find("```sh\n").unwrap() + "```sh\n".len();
    let close = rest[open..].find("```").unwrap();
    rest[open..open + close].to_owned()
}

/// Runs a README block with bash in `dir`: `cargo run -q --` is the built binary, `cargo
/// install` is skipped (the binary is on PATH), `/tmp/review-fix` is a folder of the test's.
fn run_block(block: &str, dir: &Path, home: &Path, scratch: &Path) -> std::process::Output {
    let bin = Path::new(env!("CARGO_BIN_EXE_agentctl"));
    let script: Vec<String> = block
        .lines()
        .filter(|line| !line.trim_start().starts_with("cargo install"))
        .map(|line| {
            line.replace("cargo run -q -- ", "agentctl ")
                .replace("/tmp/review-fix", &scratch.display().to_string())
        })
        .collect();
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut command = Command::new("bash");
    command
        .args(["-euo", "pipefail", "-c", &script.join("\n")])
        .current_dir(dir)
        .env("PATH", path)
        .env("HOME", home)
        .env("AGENTCTL_HOME", home.join(".agentctl"))
        .stdin(std::process::Stdio::null());
    for name in [
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "GEMINI_API_KEY",
        "OPENAI_BASE_URL",
    ] {
        command.env_remove(name);
    }
    command.output().unwrap()
}

#[test]
fn the_readme_first_commands_work_as_written_twice() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let main_job = sh_block_after(&readme, "## Two commands");
    assert!(main_job.contains("run code-reviewer"), "{main_job}");
    let walkthrough = sh_block_after(&readme, "<!-- walkthrough -->");

    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    copy_example("review-fix", &repo.join("examples/review-fix"));
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let scratch = tmp.path().join("review-fix");

    for round in 1..=2 {
        // The main job: the review on stdout, as JSON.
        let review = run_block(&main_job, &repo, &home, &scratch);
        assert!(
            review.status.success(),
            "round {round}: {}",
            text(&review.stderr)
        );
        let answer: serde_json::Value = serde_json::from_slice(&review.stdout)
            .unwrap_or_else(|error| panic!("round {round}: {error}: {}", text(&review.stdout)));
        assert_eq!(answer["verdict"], "request-changes");
        assert!(text(&review.stderr).contains("✓ Guardrail passed: findings-are-structured"));

        // The walkthrough: review, fix on a fresh copy, then the session's listing.
        let walk = run_block(&walkthrough, &repo, &home, &scratch);
        let stdout = text(&walk.stdout);
        assert!(
            walk.status.success(),
            "round {round}:\n{stdout}\n{}",
            text(&walk.stderr)
        );
        let stats = std::fs::read_to_string(scratch.join("src/stats.py")).unwrap();
        assert!(
            stats.contains("return sum(values) / len(values)"),
            "{stats}"
        );
        // `sessions show --all` shows both agents' work; the copy holds one session, nothing
        // carried over from the runs inside examples/ or from the previous round.
        assert!(stdout.contains("bug-fixer"), "{stdout}");
        assert!(stdout.contains("code-reviewer"), "{stdout}");
        let store =
            agentctl_store_sqlite::SqliteStore::open(&scratch.join(".agentctl/sessions.db"))
                .unwrap();
        use agentctl_store::SessionLog as _;
        assert_eq!(store.list_sessions().unwrap().len(), 1, "round {round}");
    }
}

#[test]
fn the_readme_error_example_is_the_real_message() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let example = readme
        .lines()
        .find(|line| line.starts_with(".agentctl/agents/broken.md:"))
        .unwrap();
    let project = super::support::TestProject::new();
    project.write(
        ".agentctl/agents/broken.md",
        "---\nname: broken\ntitle: Broken\nmaxTurns: many\n---\nPrompt\n",
    );
    let output = project.output(&["agents", "validate", "broken"]);
    assert!(
        text(&output.stdout).contains(example),
        "{example}\nnot in\n{}",
        text(&output.stdout)
    );
}
