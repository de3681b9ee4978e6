//! Reading huge files: bounded memory and work, every byte of a long line reachable.

use super::support::{call, write};
use agentctl_tools::MAX_READ_BYTES;
use serde_json::json;
use std::path::Path;

/// Set in the child process that `sparse_file_child` runs in.
const CHILD_ENV: &str = "AGENTCTL_TOOLS_SPARSE_CHILD";
/// Lines of text before the hole of the sparse file.
const HEAD_LINES: usize = 20_000;

/// The trailer's `byte_offset=N`, if the line continues.
fn next_byte_offset(out: &str) -> Option<u64> {
    let tail = out.rsplit_once("byte_offset=")?.1;
    tail.split(' ').next()?.parse().ok()
}

#[tokio::test]
async fn a_long_line_is_reachable_chunk_by_chunk_without_splitting_characters() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    // About 1 MB on one line: 1-, 2-, 3- and 4-byte characters, so chunk ends fall everywhere.
    let line = "a€é😀".repeat(1_000_000 / 10);
    let file = format!("{line}\nafter\n");
    write(root, "min.js", &file);
    let mut rebuilt = String::new();
    let mut offset = 0;
    let mut calls = 0;
    loop {
        calls += 1;
        let out = call(
            root,
            "read_file",
            json!({"path": "min.js", "offset": 1, "byte_offset": offset}),
        )
        .await
        .unwrap();
        let Some(next) = next_byte_offset(&out) else {
            rebuilt.push_str(&out);
            break;
        };
        let (chunk, trailer) = out.rsplit_once('\n').unwrap();
        assert_eq!(
            trailer,
            format!(
                "[line 1 continues: showing its bytes {offset}-{next} of a {}-byte file; pass \
                 offset=1 byte_offset={next} to read more]",
                file.len()
            )
        );
        assert!(chunk.len() <= MAX_READ_BYTES && !chunk.contains('\u{FFFD}'));
        assert_eq!(chunk.len() as u64, next - offset);
        rebuilt.push_str(chunk);
        offset = next;
    }
    assert_eq!(rebuilt, file);
    assert_eq!(calls, file.len().div_ceil(MAX_READ_BYTES));
    let past = call(
        root,
        "read_file",
        json!({"path": "min.js", "offset": 2, "byte_offset": 9}),
    )
    .await
    .unwrap_err();
    assert_eq!(
        past.to_string(),
        "line 2 of min.js has only 5 bytes; byte_offset 9 is past its end"
    );
}

#[tokio::test]
async fn invalid_utf8_is_shown_lossily_and_said() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("latin1.txt"), b"caf\xe9\nok\n").unwrap();
    let out = call(root, "read_file", json!({"path": "latin1.txt"}))
        .await
        .unwrap();
    assert_eq!(
        out,
        "caf\u{FFFD}\nok\n[latin1.txt is not valid UTF-8 here: invalid bytes are shown as U+FFFD]"
    );
}

#[tokio::test]
async fn grep_clips_long_lines() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "min.js",
        &format!("{}needle\n", "x".repeat(1_000_000)),
    );
    let out = call(root, "grep", json!({"pattern": "needle"}))
        .await
        .unwrap();
    assert_eq!(out, format!("min.js:1: {} […]\n", "x".repeat(300)));
}

/// Runs `sparse_file_child` in a fresh process and checks its peak memory and how much it read:
/// the test process's own RSS is shared with every other test running in parallel.
#[cfg(target_os = "linux")]
#[test]
fn a_sparse_2_gib_file_costs_bounded_memory_and_reading() {
    let dir = tempfile::tempdir().unwrap();
    let head: String = (1..=HEAD_LINES).map(|n| format!("line {n:>8}\n")).collect();
    let big = dir.path().join("big.txt");
    std::fs::write(&big, &head).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&big)
        .unwrap()
        .set_len(2 << 30)
        .unwrap();
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "suite::files_big::sparse_file_child",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_ENV, dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // The harness prints `test … ... ` on the same line, so look for the keys anywhere.
    let number = |key: &str| -> u64 {
        let (_, rest) = stdout.split_once(key).unwrap();
        rest.split_whitespace().next().unwrap().parse().unwrap()
    };
    let peak_kib = number("peak_rss_kib=");
    let read_bytes = number("read_bytes=");
    assert!(peak_kib < 50 * 1024, "peak RSS {peak_kib} KiB\n{stdout}");
    assert!(read_bytes < 16 << 20, "read {read_bytes} bytes\n{stdout}");
}

/// The child half of the test above; does nothing in a normal test run.
#[cfg(target_os = "linux")]
#[test]
#[ignore = "a child process: its parent test runs it with --ignored"]
fn sparse_file_child() {
    let Some(root) = std::env::var_os(CHILD_ENV) else {
        return;
    };
    let root = Path::new(&root);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let first = call(root, "read_file", json!({"path": "big.txt", "limit": 1}))
            .await
            .unwrap();
        assert_eq!(
            first,
            "line        1\n[truncated: showing lines 1-1 of a 2147483648-byte file; pass \
             offset=2 to read more]"
        );
        let hole = HEAD_LINES + 1;
        let zeros = call(
            root,
            "read_file",
            json!({"path": "big.txt", "offset": hole, "limit": 1}),
        )
        .await
        .unwrap();
        assert_eq!(
            zeros,
            format!(
                "[line {hole} holds binary data (NUL bytes) and is not shown; pass offset={} to \
                 read past it]",
                hole + 1
            )
        );
        let many = call(root, "read_many_files", json!({"patterns": ["big.txt"]}))
            .await
            .unwrap();
        assert_eq!(
            many,
            "[skipped: big.txt: 2147483648 bytes, over the remaining 524288-byte budget]\n"
        );
        let grep = call(root, "grep", json!({"pattern": "line"}))
            .await
            .unwrap();
        assert_eq!(
            grep,
            "no matches\n[skipped 1 file(s) over 2097152 bytes; use read_file on them]"
        );
    });
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let peak = status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .unwrap()
        .trim()
        .trim_end_matches(" kB");
    let io = std::fs::read_to_string("/proc/self/io").unwrap();
    let read = io
        .lines()
        .find_map(|line| line.strip_prefix("rchar:"))
        .unwrap()
        .trim();
    println!("peak_rss_kib={peak} read_bytes={read}");
}
