//! The `agents create` wizard driven through a real pseudo-terminal (`script`): every question
//! of seed 002 §3 and §4.2.1 answered key by key, as a person would.

use super::create::{REVIEWER, project, read};
use super::support::{Terminal, has_script};

const DOWN: &str = "j";
const ENTER: &str = "\r";

/// The whole wizard, as seed 002 §3 and §4.2.1 show it: every question answered at the
/// terminal, the file checked, and the next steps printed.
#[test]
fn the_wizard_asks_everything_and_ends_with_the_next_steps() {
    if !has_script() {
        return;
    }
    let project = project();
    let mut term = Terminal::start(&project, &["agents", "create", "--extended"]);
    term.answer("Name (kebab-case)", "debug-analyzer\r");
    term.answer("Title", ENTER); // the default, Debug Analyzer
    term.answer("Description", "Specialized in analyzing and fixing bugs\r");
    // default (sonnet), fast → ollama:qwen3, another…
    term.answer("Model", &format!("{DOWN}{ENTER}"));
    term.answer("Scope", ENTER); // project
    // every tool, read_file ✔, read_many_files ✔, grep ✔, glob ✔, write_file, edit_file,
    // bash, delete_file, web_fetch, web_search, mcp.github.*: tick bash and mcp.github.*.
    term.answer(
        "Allowed tools",
        &format!("{} {} {ENTER}", DOWN.repeat(7), DOWN.repeat(4)),
    );
    // write_file, edit_file, delete_file: tick write_file and delete_file.
    term.answer("Denied tools", &format!(" {DOWN}{DOWN} {ENTER}"));
    term.answer("MCP servers", ENTER); // github, ticked for mcp.github.*
    term.answer("Context mode", &format!("{DOWN}{ENTER}")); // shared
    term.answer("Trigger keywords", "bug,error,crash\r");
    term.answer("Regex pattern", "fix.*test\r");
    term.answer("Priority", "8\r");
    // (no more handoffs), code-fixer, code-reviewer, another agent…
    term.answer("Hand off to", &format!("{DOWN}{DOWN}{ENTER}"));
    term.answer("When condition", "task.status == 'need-review'\r");
    term.answer("Payload schema", "{\"type\": \"object\"}\r");
    term.answer("Hand off to", ENTER); // no more
    term.answer("Add a check of the agent's answers?", "y");
    term.answer("Check", &format!("{DOWN}{DOWN}{ENTER}")); // no-secrets
    term.answer("Policy", &format!("{DOWN}{DOWN}{ENTER}")); // warn
    term.answer("Add another check?", "y");
    term.answer("Check", ENTER); // schema
    term.answer("Schema (JSON)", "{\"required\": [\"analysis\"]}\r");
    term.answer("Policy", &format!("{DOWN}{ENTER}")); // repair
    term.answer("Add another check?", "n");
    term.answer("Enable session memory", "y");
    term.answer("Session keys", "current_task,analyzed_files\r");
    term.answer("Enable long-term memory", "y");
    term.answer("Backend", ENTER); // sqlite
    term.answer("Define a graph", "n");
    term.answer("Enable tracing?", "y");
    term.answer("Events to trace", ENTER); // llm, tool, handoff, guardrail
    term.answer("Backend", &format!("{DOWN}{ENTER}")); // console
    let (status, screen) = term.finish();
    assert!(status.success(), "{screen}");
    for shown in [
        "✦ Create Extended Agent",
        "🔧 Tools",
        "🔌 MCP Servers",
        "🎯 Triggers (auto-routing)",
        "🔄 Handoffs",
        "🛡️ Guardrails",
        "💾 Memory",
        "📊 Graph (multi-agent orchestration)",
        "🔍 Tracing",
        "default: sonnet (settings agents.defaultModel)",
        "fast → ollama:qwen3",
        "Created .agentctl/agents/debug-analyzer.md",
        "Validation: 8/8 passed",
        "Next steps:",
        "Edit the system prompt: agentctl agents edit debug-analyzer",
        "Validate it:            agentctl agents validate debug-analyzer",
        "Run it:                 agentctl agents run debug-analyzer -p \"your request\"",
    ] {
        assert!(screen.contains(shown), "no `{shown}` in:\n{screen}");
    }
    let file = project.root.join(".agentctl/agents/debug-analyzer.md");
    insta::assert_snapshot!("wizard_file", read(&file));
    project.agentctl(&["agents", "validate", "debug-analyzer"]);
}

/// The graph questions, with the rest of the wizard answered by flags or left empty.
#[test]
fn the_wizard_builds_a_graph_from_the_agents_found() {
    if !has_script() {
        return;
    }
    let project = project();
    let mut term = Terminal::start(
        &project,
        &[
            "agents",
            "create",
            "review-flow",
            "--extended",
            "--title",
            "Review Flow",
            "--description",
            "Fixes, then reviews",
            "--model",
            "sonnet",
            "--scope",
            "project",
            "--allow",
            "read_file",
            "--deny",
            "bash",
            "--mcp-server",
            "github",
            "--context-mode",
            "isolated",
            "--trigger",
            "review",
            "--trigger-priority",
            "1",
            "--handoff",
            "code-reviewer",
            "--guardrail",
            "json",
            "--memory",
            "attempts",
            "--tracing",
        ],
    );
    term.answer("Define a graph", "y");
    term.answer("Node name", "fixer\r");
    // (cancel this node), code-fixer, code-reviewer, another agent…
    term.answer("Agent it runs", &format!("{DOWN}{ENTER}"));
    term.answer("State key of its answer", "fix\r");
    term.answer("Node name", "reviewer\r");
    term.answer("Agent it runs", &format!("{DOWN}{DOWN}{ENTER}"));
    term.answer("State key of its answer", ENTER);
    term.answer("Node name", ENTER);
    term.answer("Entry node", ENTER); // fixer
    term.answer("Edge from", &format!("{DOWN}{ENTER}")); // fixer
    term.answer("Edge to", &format!("{DOWN}{DOWN}{ENTER}")); // from END, the default, to reviewer
    term.answer("Condition", "fix.applied\r");
    term.answer("Edge from", &format!("{DOWN}{DOWN}{ENTER}")); // reviewer
    term.answer("Edge to", ENTER); // END, the default
    term.answer("Condition", ENTER);
    term.answer("Edge from", ENTER); // no more edges
    let (status, screen) = term.finish();
    assert!(status.success(), "{screen}");
    assert!(
        !screen.contains("Trigger keywords"),
        "flags skip their questions:\n{screen}"
    );
    let shown = project.json(&["agents", "show", "review-flow", "--format", "json"]);
    assert_eq!(
        shown["graph"],
        serde_json::json!({
            "entry": "fixer",
            "nodes": [
                {"name": "fixer", "agent": "code-fixer", "output": "fix"},
                {"name": "reviewer", "agent": "code-reviewer"}
            ],
            "edges": [
                {"from": "fixer", "to": "reviewer", "condition": "fix.applied"},
                {"from": "reviewer", "to": "END"}
            ]
        })
    );
    project.agentctl(&["agents", "validate", "review-flow"]);
}

/// On a terminal an existing agent is not an error at once: the wizard asks, and only a yes
/// replaces it.
#[test]
fn on_a_terminal_an_existing_agent_is_replaced_only_after_a_yes() {
    if !has_script() {
        return;
    }
    let project = project();
    let reviewer = project.root.join(".agentctl/agents/code-reviewer.md");
    let args = [
        "agents",
        "create",
        "code-reviewer",
        "--title",
        "Reviewer",
        "--description",
        "Reviews again",
        "--model",
        "sonnet",
        "--scope",
        "project",
        "--allow",
        "read_file",
        "--deny",
        "bash",
        "--mcp-server",
        "github",
        "--context-mode",
        "isolated",
    ];
    let mut term = Terminal::start(&project, &args);
    term.answer("already exists. Replace it?", "n");
    let (status, screen) = term.finish();
    assert_eq!(status.code(), Some(1), "{screen}");
    assert!(
        screen.contains("already exists: pass --force to replace it"),
        "{screen}"
    );
    assert_eq!(read(&reviewer), REVIEWER);

    let mut term = Terminal::start(&project, &args);
    term.answer("already exists. Replace it?", "y");
    let (status, screen) = term.finish();
    assert!(status.success(), "{screen}");
    assert!(read(&reviewer).contains("description: Reviews again"));
}
