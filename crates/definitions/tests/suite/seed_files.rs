//! The seeds' own example files load from `.gemini/agents/` as agentctl's format, with their
//! `contextMode` and tools intact, while Gemini CLI files in the same folder stay Gemini's.

use agentctl_config::Locations;
use agentctl_core::{ContextMode, Scope, Settings, SourceFormat};
use agentctl_definitions::{Checks, discover, validate};

/// Seed 002 §3.1.1, as written.
const DEBUG_ANALYZER: &str = r##"---
kind: agent
name: debug-analyzer
title: Debug Analyzer
description: Specialized in analyzing and fixing bugs
model: gemini-2.5-pro
color: "#FF5733"
scope: project
version: 1.0.0
tools:
  allow:
    - mcp.github.list_pull_requests
    - read_many_files
    - grep
    - bash
  deny:
    - write_file
    - delete_file
mcp:
  servers:
    - github
    - linear
---

# Role

You are a specialized debugging agent. Your primary responsibilities:

1. Analyze error logs and stack traces
2. Identify root causes of bugs
"##;

/// Seed 000 example 1, as written.
const CODE_REVIEWER: &str = "---
kind: agent
name: code-reviewer
title: Code Reviewer
contextMode: isolated  # 独立审查，不需要历史
tools:
  allow: [read_file, grep]
---
Analyze code quality and identify issues.
";

/// Seed 000 example 1, as written.
const BUG_FIXER: &str = "---
kind: agent
name: bug-fixer
title: Bug Fixer
contextMode: shared  # 共享上下文，能看到 code-reviewer 的结果
tools:
  allow: [read_file, edit_file]
---
Fix bugs based on code review feedback.
You can see the conversation history to understand what needs to be fixed.
";

/// A Gemini CLI file, as Gemini CLI publishes them.
const GEMINI: &str = "---
kind: local
name: codebase-investigator
description: Analyses the codebase.
tools:
  - read_file
  - run_shell_command
max_turns: 15
---
Investigate.
";

fn locations(tmp: &tempfile::TempDir) -> Locations {
    Locations {
        agentctl_home: tmp.path().join("h/.agentctl"),
        user_home: Some(tmp.path().join("h")),
        project_root: Some(tmp.path().join("p")),
    }
}

fn write(tmp: &tempfile::TempDir, relative: &str, text: &str) {
    let path = tmp.path().join(relative);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn seed_example_files_load_from_gemini_folders_as_native() {
    let tmp = tempfile::tempdir().unwrap();
    write(&tmp, "p/.gemini/agents/debug-analyzer.md", DEBUG_ANALYZER);
    write(&tmp, "p/.gemini/agents/code-reviewer.md", CODE_REVIEWER);
    write(&tmp, "h/.gemini/agents/bug-fixer.md", BUG_FIXER);
    write(&tmp, "p/.gemini/agents/investigator.md", GEMINI);
    let found = discover(&locations(&tmp), &Checks::new());
    assert!(found.errors.is_empty(), "{:?}", found.errors);

    let debug = found.get("debug-analyzer").unwrap();
    assert_eq!(debug.definition.source.format, SourceFormat::Native);
    assert_eq!(
        debug.format_reason(),
        "agentctl fields in a Gemini CLI agents folder: `kind: agent`, `tools.allow`, `tools.deny`, `mcp.servers`, `title`"
    );
    let spec = &debug.definition.spec;
    assert_eq!(spec.title.as_deref(), Some("Debug Analyzer"));
    assert_eq!(
        spec.tools.allow.as_deref().unwrap(),
        [
            "mcp.github.list_pull_requests",
            "read_many_files",
            "grep",
            "bash"
        ]
    );
    assert_eq!(spec.tools.deny, ["write_file", "delete_file"]);
    assert_eq!(spec.mcp.servers, ["github", "linear"]);
    assert!(debug.warnings.is_empty(), "{:?}", debug.warnings);

    let reviewer = found.get("code-reviewer").unwrap();
    assert_eq!(reviewer.definition.source.format, SourceFormat::Native);
    assert_eq!(
        reviewer.definition.spec.context_mode,
        Some(ContextMode::Isolated)
    );
    assert_eq!(
        reviewer.definition.spec.tools.allow.as_deref().unwrap(),
        ["read_file", "grep"]
    );
    let fixer = found.get("bug-fixer").unwrap();
    assert_eq!(fixer.definition.source.scope, Scope::Global);
    assert_eq!(
        fixer.definition.spec.context_mode,
        Some(ContextMode::Shared)
    );
    assert_eq!(
        fixer.definition.spec.tools.allow.as_deref().unwrap(),
        ["read_file", "edit_file"]
    );
    for agent in [reviewer, fixer] {
        let report = validate(agent, &Settings::default(), &Checks::new());
        let values = report
            .checks
            .iter()
            .find(|check| check.name == "field values")
            .unwrap();
        assert!(values.passed, "{report:?}");
    }

    let gemini = found.get("codebase-investigator").unwrap();
    assert_eq!(gemini.definition.source.format, SourceFormat::Gemini);
    assert_eq!(
        gemini.format_reason(),
        "in a Gemini CLI agents folder, with no agentctl-only fields"
    );
    assert_eq!(
        gemini.definition.spec.tools.allow.as_deref().unwrap(),
        ["read_file", "bash"]
    );
}

#[test]
fn native_errors_in_gemini_folders_are_located_in_native_terms() {
    let tmp = tempfile::tempdir().unwrap();
    write(
        &tmp,
        "p/.gemini/agents/broken.md",
        "---\nkind: agent\nname: broken\ncontextMode: sometimes\n---\nPrompt\n",
    );
    let found = discover(&locations(&tmp), &Checks::new());
    let error = found.errors.first().unwrap().to_string();
    assert!(error.contains("broken.md:4:"), "{error}");
    assert!(error.contains("contextMode"), "{error}");
}
