//! The PostgreSQL test server: `AGENTCTL_TEST_DATABASE_URL` names one
//! (`postgres://USER@HOST:PORT/postgres`, a user that may create databases; `.ci/postgres start`
//! starts a throwaway one). Without the variable the PostgreSQL half of a test is skipped —
//! with a message on stderr that `cargo test` shows — except under CI (`CI` set to anything
//! but `false`/`0`), where a missing server fails the test instead of silently testing half.

use std::io::Write;
use std::sync::Once;

/// The variable naming the test server.
pub const TEST_DATABASE_URL: &str = "AGENTCTL_TEST_DATABASE_URL";

/// The test server's URL; `None` (after saying so once on stderr) when there is none and this
/// is not CI. Panics under CI without one.
pub fn postgres_url() -> Option<String> {
    if let Some(url) = std::env::var(TEST_DATABASE_URL)
        .ok()
        .filter(|url| !url.trim().is_empty())
    {
        return Some(url);
    }
    let ci = std::env::var("CI").is_ok_and(|value| !matches!(value.as_str(), "" | "false" | "0"));
    assert!(
        !ci,
        "{TEST_DATABASE_URL} is not set under CI: the PostgreSQL half of the store tests cannot \
         be skipped there. Start a server with `eval \"$(bash .ci/postgres start)\"` (what \
         .ci/run does)"
    );
    static SAID: Once = Once::new();
    SAID.call_once(|| {
        // Straight to stderr: the test harness captures `eprintln!` of passing tests.
        let _ = writeln!(
            std::io::stderr().lock(),
            "SKIPPED: {TEST_DATABASE_URL} is not set: skipping the PostgreSQL half of the store \
             tests (start a server with `eval \"$(bash .ci/postgres start)\"`)"
        );
    });
    None
}
