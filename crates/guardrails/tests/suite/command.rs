//! `command:` validators as real child processes: stdin, stderr, environment, timeouts,
//! process groups, the sandbox, and programs that cannot start.

use super::support::{SECRET, answer, command, compile_in, read_pid, script, test_environment};
use agentctl_core::{Guardrail, GuardrailAction};
use agentctl_guardrails::CommandEnvironment;
use agentctl_test_support::process::wait_group_dead;
use std::path::Path;

/// The errors of checking `text` with `guardrail`, run in `root` with the tests' environment.
async fn run(root: &Path, guardrail: Guardrail, text: &str) -> Result<(), Vec<String>> {
    run_with(root, test_environment(), guardrail, text).await
}

async fn run_with(
    root: &Path,
    environment: CommandEnvironment,
    guardrail: Guardrail,
    text: &str,
) -> Result<(), Vec<String>> {
    let verdict = answer(&compile_in(root, environment, &[guardrail]), text, 0).await;
    let check = &verdict.checks[0];
    assert_eq!(check.passed, check.errors.is_empty(), "{check:?}");
    if check.passed {
        assert_eq!(verdict.action, GuardrailAction::Proceed);
        Ok(())
    } else {
        Err(check.errors.clone())
    }
}

#[tokio::test]
async fn exit_zero_passes_and_stderr_lines_are_the_errors() {
    let root = tempfile::tempdir().unwrap();
    script(root.path(), "ok.sh", "cat > /dev/null; exit 0");
    script(
        root.path(),
        "lint.sh",
        "cat > /dev/null\necho 'line 3: TODO left in the answer' >&2\necho >&2\necho '  line 9: trailing space  ' >&2\nexit 2",
    );
    script(root.path(), "quiet.sh", "exit 7");
    assert_eq!(
        run(root.path(), command("ok", &["./ok.sh"]), "text").await,
        Ok(())
    );
    assert_eq!(
        run(root.path(), command("lint", &["sh", "lint.sh"]), "text").await,
        Err(vec![
            "line 3: TODO left in the answer".to_owned(),
            "  line 9: trailing space".to_owned()
        ])
    );
    assert_eq!(
        run(root.path(), command("quiet", &["./quiet.sh"]), "text").await,
        Err(vec!["exited with status 7".to_owned()])
    );
}

#[tokio::test]
async fn the_text_arrives_on_stdin_byte_exact_and_is_never_run() {
    let root = tempfile::tempdir().unwrap();
    script(root.path(), "keep.sh", "cat > \"$1\"");
    let nasty = "$(touch pwned) `touch pwned2` ; rm -rf / && echo \"quoted\" 'single' \\ \n\
                 ${HOME} %s %n \u{0} é 🚀\r\n--flag -- | > out.txt\n";
    let big: String = (0..1024 * 1024)
        .map(|i| char::from(b'a' + (i % 26) as u8))
        .collect();
    for (name, text) in [("nasty.out", nasty.to_owned()), ("big.out", big)] {
        let guardrail = command("keep", &["./keep.sh", name]);
        assert_eq!(run(root.path(), guardrail, &text).await, Ok(()));
        assert_eq!(
            std::fs::read(root.path().join(name)).unwrap(),
            text.as_bytes()
        );
    }
    assert!(!root.path().join("pwned").exists() && !root.path().join("pwned2").exists());
}

#[tokio::test]
async fn a_validator_that_reads_nothing_of_a_big_text_does_not_deadlock() {
    let root = tempfile::tempdir().unwrap();
    script(
        root.path(),
        "early.sh",
        "echo 'refused without reading' >&2; exit 1",
    );
    let big = "x".repeat(4 * 1024 * 1024);
    assert_eq!(
        run(root.path(), command("early", &["./early.sh"]), &big).await,
        Err(vec!["refused without reading".to_owned()])
    );
    // And one that floods stdout and stderr while the text is still being written.
    script(
        root.path(),
        "flood.sh",
        "yes out | head -c 3000000; yes err | head -c 3000000 >&2; cat > /dev/null; exit 1",
    );
    let errors = run(root.path(), command("flood", &["./flood.sh"]), &big)
        .await
        .unwrap_err();
    assert_eq!(errors.len(), 21, "{errors:?}");
    assert!(
        errors.iter().take(20).all(|line| line == "err"),
        "{errors:?}"
    );
}

#[tokio::test]
async fn secrets_are_scrubbed_from_the_environment_and_tmpdir_is_its_own() {
    let root = tempfile::tempdir().unwrap();
    script(root.path(), "env.sh", "env >&2; exit 1");
    let errors = run(root.path(), command("env", &["./env.sh"]), "x")
        .await
        .unwrap_err();
    assert!(
        errors.iter().any(|line| line.starts_with("PATH=")),
        "{errors:?}"
    );
    assert!(
        errors
            .iter()
            .any(|line| line.starts_with("TMPDIR=") && line.contains("agentctl-validator-")),
        "{errors:?}"
    );
    for line in &errors {
        assert!(
            !line.contains(SECRET)
                && !line.contains("OPENAI_API_KEY")
                && !line.contains("DEPLOY_TOKEN"),
            "{line}"
        );
    }
}

#[tokio::test]
async fn a_hanging_validator_is_killed_with_its_whole_group() {
    let root = tempfile::tempdir().unwrap();
    script(root.path(), "hang.sh", "echo $$ > hang.pid\nsleep 600");
    script(
        root.path(),
        "spawner.sh",
        "echo $$ > spawner.pid\nsleep 600 &\nwait",
    );
    for (name, pid_file) in [("hang.sh", "hang.pid"), ("spawner.sh", "spawner.pid")] {
        let guardrail = Guardrail {
            timeout_seconds: Some(1),
            ..command("slow", &[&format!("./{name}")])
        };
        let errors = run(root.path(), guardrail, "x").await.unwrap_err();
        assert_eq!(
            errors,
            [format!(
                "the validator `./{name}` did not finish within 1 s and was killed (raise `timeoutSeconds` if it needs longer)"
            )]
        );
        let group = read_pid(&root.path().join(pid_file));
        assert_eq!(wait_group_dead(group).await, Vec::<u32>::new(), "{name}");
    }
}

#[tokio::test]
async fn background_jobs_of_a_finished_validator_are_killed() {
    let root = tempfile::tempdir().unwrap();
    script(
        root.path(),
        "leaves.sh",
        "echo $$ > leaves.pid\nsleep 600 &\nexit 0",
    );
    assert_eq!(
        run(root.path(), command("leaves", &["./leaves.sh"]), "x").await,
        Ok(())
    );
    let group = read_pid(&root.path().join("leaves.pid"));
    assert_eq!(wait_group_dead(group).await, Vec::<u32>::new());
}

#[tokio::test]
async fn a_program_that_cannot_start_fails_closed() {
    let root = tempfile::tempdir().unwrap();
    let missing = run(
        root.path(),
        command("gone", &["no-such-validator-xyz"]),
        "x",
    )
    .await
    .unwrap_err();
    assert_eq!(missing.len(), 1);
    assert!(
        missing[0].starts_with("cannot start `no-such-validator-xyz`: it is not in PATH ("),
        "{missing:?}"
    );
    let relative = run(root.path(), command("gone", &["./bin/check"]), "x")
        .await
        .unwrap_err();
    assert_eq!(
        relative,
        [format!(
            "cannot start `./bin/check`: there is no file {}",
            root.path().join("./bin/check").display()
        )]
    );
    let nowhere = root.path().join("gone");
    assert_eq!(
        run(&nowhere, command("gone", &["sh", "-c", "exit 0"]), "x").await,
        Err(vec![format!(
            "cannot start `sh`: its working directory {} is not a directory",
            nowhere.display()
        )])
    );
    std::fs::write(root.path().join("plain.sh"), "exit 0\n").unwrap();
    let not_executable = run(root.path(), command("plain", &["./plain.sh"]), "x")
        .await
        .unwrap_err();
    assert_eq!(
        not_executable,
        ["cannot start `./plain.sh`: Permission denied (os error 13)"]
    );
}

#[tokio::test]
async fn a_model_written_file_in_the_root_does_not_shadow_a_program_on_path() {
    // PATH with a relative entry: a shell would find ./sh first; the validator must not.
    let root = tempfile::tempdir().unwrap();
    let path = format!(".:{}", std::env::var("PATH").unwrap_or_default());
    let environment = CommandEnvironment::default().with_base_env([("PATH", path)]);
    script(
        root.path(),
        "fail.sh",
        "echo 'the real check ran' >&2; exit 1",
    );
    let guardrail = command("check", &["sh", "fail.sh"]);
    script(root.path(), "sh", "exit 0");
    assert_eq!(
        run_with(root.path(), environment, guardrail, "x").await,
        Err(vec!["the real check ran".to_owned()])
    );
}

#[tokio::test]
async fn under_workspace_write_a_validator_cannot_write_outside_the_root() {
    if !super::support::landlock_or_skip() {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    script(
        root.path(),
        "escape.sh",
        "echo inside > inside.txt || exit 3\n\
         echo scratch > \"$TMPDIR/scratch\" || exit 4\n\
         if (echo out > \"$1/escaped.txt\") 2>/dev/null; then exit 0; fi\n\
         echo 'write outside the root refused' >&2; exit 1",
    );
    let outside_dir = outside.path().to_str().unwrap();
    let errors = run(
        root.path(),
        command("escape", &["./escape.sh", outside_dir]),
        "x",
    )
    .await
    .unwrap_err();
    assert_eq!(errors, ["write outside the root refused"]);
    assert!(root.path().join("inside.txt").exists());
    assert!(!outside.path().join("escaped.txt").exists());
}

#[tokio::test]
async fn dropping_the_check_kills_the_validator_group() {
    let root = tempfile::tempdir().unwrap();
    script(
        root.path(),
        "stuck.sh",
        "sleep 600 &\necho $$ > stuck.pid\nwait",
    );
    let guardrails = compile_in(
        root.path(),
        test_environment(),
        &[command("stuck", &["./stuck.sh"])],
    );
    let pid_file = root.path().join("stuck.pid");
    // Boxed, so that `drop` below drops the future itself (not a pinned reference to it).
    let mut check = Box::pin(answer(&guardrails, "x", 0));
    // Poll the check until the validator has written its pid, then drop it.
    loop {
        tokio::select! {
            verdict = &mut check => panic!("the validator finished: {verdict:?}"),
            () = tokio::time::sleep(std::time::Duration::from_millis(20)) => {}
        }
        if std::fs::read_to_string(&pid_file).is_ok_and(|text| text.ends_with('\n')) {
            break;
        }
    }
    let group = read_pid(&pid_file);
    drop(check);
    assert_eq!(wait_group_dead(group).await, Vec::<u32>::new());
}
