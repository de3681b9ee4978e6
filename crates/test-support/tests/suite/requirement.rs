//! `requirement`: a missing requirement fails the test, names how to install it, and is a
//! visible skip only outside CI when skips are allowed. Each case runs this test binary again
//! with its own environment (environment variables are process-wide).

use agentctl_test_support::{ALLOW_SKIPS_VAR, requirement};
use std::process::{Command, Output};

const PROBE: &str = "AGENTCTL_REQUIREMENT_PROBE";
const NAME: &str = "suite::requirement::a_missing_requirement_fails_unless_skips_are_allowed";

fn run(env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .args(["--exact", NAME, "--test-threads", "1"])
        .env(PROBE, "1")
        .env_remove("CI")
        .env_remove(ALLOW_SKIPS_VAR);
    for (name, value) in env {
        command.env(name, value);
    }
    command.output().unwrap()
}

fn both(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

#[test]
fn a_missing_requirement_fails_unless_skips_are_allowed() {
    if std::env::var_os(PROBE).is_some() {
        if !requirement(Err(
            "probe-tool is missing: run `apt install probe`".to_owned()
        )) {
            return;
        }
        unreachable!("a missing requirement never lets the test go on");
    }
    let failed = run(&[]);
    assert!(!failed.status.success());
    assert!(
        both(&failed).contains(
            "probe-tool is missing: run `apt install probe` (or set AGENTCTL_TEST_ALLOW_SKIPS=1"
        ),
        "{}",
        both(&failed)
    );

    let skipped = run(&[(ALLOW_SKIPS_VAR, "1")]);
    assert!(skipped.status.success(), "{}", both(&skipped));
    assert!(
        String::from_utf8_lossy(&skipped.stderr)
            .contains("SKIPPED: probe-tool is missing: run `apt install probe`"),
        "{}",
        both(&skipped)
    );

    let ci = run(&[(ALLOW_SKIPS_VAR, "1"), ("CI", "true")]);
    assert!(!ci.status.success());
    assert!(both(&ci).contains("(CI must provide it)"), "{}", both(&ci));
}
