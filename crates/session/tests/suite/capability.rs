//! Capability pool, table, Markdown and stop reports.

use agentctl_session::{Executor, ExecutorStatus, ResourcePool, TaskSpec};

fn pool() -> ResourcePool {
    ResourcePool::new(vec![
        Executor::new("reader", ["read_file", "grep"]),
        Executor::new("writer", ["read_*", "write_file", "edit_file"]),
        Executor::new("ops", ["bash", "mcp.github.create_issue"]),
    ])
}

#[test]
fn capabilities_from_tools_and_patterns() {
    let pool = pool();
    let caps: Vec<_> = pool
        .executors()
        .iter()
        .map(|e| e.capabilities().into_iter().collect::<Vec<_>>())
        .collect();
    assert_eq!(caps[0], ["read_code", "search_code"]);
    assert_eq!(caps[1], ["read_code", "write_code"]);
    assert_eq!(caps[2], ["mcp:github", "run_commands"]);
}

#[test]
fn dispatch_and_stop_reports() {
    let mut pool = pool();
    let task = |caps: &[&str]| TaskSpec {
        description: "fix".into(),
        required_capabilities: caps.iter().map(|c| (*c).to_owned()).collect(),
    };
    assert_eq!(
        pool.dispatch(&task(&["write_code"])).unwrap().name,
        "writer"
    );
    pool.set_status("writer", ExecutorStatus::Busy);
    let stop = pool
        .dispatch(&task(&["write_code", "read_code"]))
        .unwrap_err();
    assert_eq!(stop.missing_capabilities, ["write_code"]);
    assert_eq!(stop.unavailable_executors, ["writer (busy)"]);
    assert!(stop.reason.contains("write_code"));
    let stop = pool
        .dispatch(&task(&["search_code", "run_commands"]))
        .unwrap_err();
    assert!(stop.missing_capabilities.is_empty());
    assert!(stop.reason.contains("no single available executor"));
    assert!(!pool.set_status("nobody", ExecutorStatus::Error));
}

#[test]
fn markdown_section() {
    let mut pool = pool();
    pool.set_status("ops", ExecutorStatus::Error);
    let task = TaskSpec {
        description: "open an issue".into(),
        required_capabilities: vec!["mcp:github".into()],
    };
    let context = pool.build_agent_context(Some(&task));
    let markdown = context.render_markdown();
    assert!(
        markdown.contains("| ops | error | mcp:github, run_commands |"),
        "{markdown}"
    );
    assert!(
        markdown.contains("| mcp:github | mcp.github.* | ops |"),
        "{markdown}"
    );
    assert!(
        markdown.contains("## Current task\n\nopen an issue"),
        "{markdown}"
    );
    assert!(markdown.contains("Do not dispatch this task"), "{markdown}");
    let idle = pool.build_agent_context(None).render_markdown();
    assert!(idle.contains("## Current task\n\nNone."));
}
