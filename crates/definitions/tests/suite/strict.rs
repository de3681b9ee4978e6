//! Validation as strict as seed 002's checklist: an unknown tool in an agentctl file's
//! `tools.allow` is an error with a did-you-mean (a warning in a deny list or in another
//! tool's file), and a model its provider does not have is a warning naming the known ones.

use agentctl_core::{Scope, Settings, SourceFormat};
use agentctl_definitions::{Checks, Severity, ValidationReport, parse_str, validate};
use std::path::Path;

/// An agentctl file (`title` makes it agentctl's format wherever it is) with `front`.
fn report_with(front: &str, settings: &Settings) -> ValidationReport {
    let text = format!("---\nname: a\ntitle: A\ndescription: d\n{front}---\nPrompt\n");
    let agent = parse_str(
        &text,
        Path::new("a.md"),
        SourceFormat::Native,
        Scope::Project,
    )
    .unwrap();
    validate(&agent, settings, &Checks::new())
}

fn report(front: &str) -> ValidationReport {
    report_with(front, &Settings::default())
}

/// Each finding, warnings marked.
fn lines(report: &ValidationReport) -> Vec<String> {
    report
        .diagnostics()
        .map(|diagnostic| match diagnostic.severity {
            Severity::Warning => format!("warning: {diagnostic}"),
            Severity::Error => diagnostic.to_string(),
        })
        .collect()
}

#[test]
fn an_unknown_allowed_tool_is_an_error_with_a_suggestion() {
    let r = report(
        "model: openai:gpt-4o-mini\ntools:\n  allow: [read_file, web_serch]\n  deny: [bogus_tool]\n",
    );
    assert!(!r.valid);
    assert_eq!(
        lines(&r),
        [
            "a.md:7:22: field `tools.allow[1]`: unknown tool `web_serch` (did you mean `web_search`?): no built-in tool has this name; name a built-in tool, an MCP tool (`mcp.<server>.<tool>`) or a pattern",
            "warning: a.md:8:10: field `tools.deny[0]`: unknown tool `bogus_tool`: no built-in tool has this name; it will be unavailable",
        ]
    );
}

#[test]
fn another_tools_names_stay_warnings() {
    // A Claude Code subagent as published: its tools are Claude Code's.
    let text = "---\nname: a\ndescription: d\nmodel: sonnet\ntools: Read, TodoWrite\n---\nPrompt\n";
    let agent = parse_str(
        text,
        Path::new("a.md"),
        SourceFormat::Claude,
        Scope::Project,
    )
    .unwrap();
    assert_eq!(agent.definition.source.format, SourceFormat::Claude);
    let r = validate(&agent, &Settings::default(), &Checks::new());
    assert!(r.valid, "{:#?}", lines(&r));
    assert!(
        lines(&r)
            .iter()
            .any(|line| line.starts_with("warning: ") && line.contains("unknown tool `todo_write`")),
        "{:#?}",
        lines(&r)
    );
}

#[test]
fn a_model_its_provider_does_not_have_is_a_warning_naming_the_known_ones() {
    let r = report("model: openai:gpt-4o-mni\n");
    assert!(r.valid);
    let found = lines(&r);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(
        found[0].starts_with(
            "warning: a.md:5:1: field `model`: `gpt-4o-mni` is not among the openai models agentctl knows (did you mean `gpt-4o-mini`? known as of "
        ),
        "{}",
        found[0]
    );
    assert!(found[0].contains("gpt-4.1, "), "{}", found[0]);
    assert!(found[0].ends_with("a model newer than that list runs all the same"));

    // Dated snapshots, aliases and the seed's bare Gemini model are known.
    for model in [
        "anthropic:claude-sonnet-4-5-20250929",
        "sonnet",
        "gemini-2.5-pro",
        "openai:gpt-4o-2024-08-06",
    ] {
        let r = report(&format!("model: {model}\n"));
        assert_eq!(lines(&r), Vec::<String>::new(), "{model}");
    }
    // A local provider, or one the settings configure, may serve any model.
    assert_eq!(
        lines(&report("model: ollama:qwen3-coder\n")),
        Vec::<String>::new()
    );
    let mut settings = Settings::default();
    settings.providers.insert(
        "openai".into(),
        serde_json::from_value(serde_json::json!({})).unwrap(),
    );
    let r = report_with("model: openai:my-finetune\n", &settings);
    assert_eq!(lines(&r), Vec::<String>::new());
}

#[test]
fn a_context_filter_is_checked_against_the_mode() {
    let shared = report(
        "model: openai:gpt-4o-mini\ncontextMode: shared\ncontextFilter:\n  agents: [user, code-reviewer]\n  roles: [user, assistant]\n  recent: 20\n",
    );
    assert_eq!(lines(&shared), Vec::<String>::new());
    let isolated =
        report("model: openai:gpt-4o-mini\ncontextMode: isolated\ncontextFilter:\n  recent: 0\n");
    assert_eq!(
        lines(&isolated),
        [
            "warning: a.md:7:1: field `contextFilter`: `contextFilter` applies to the main conversation a shared agent sees; this agent is `contextMode: isolated`, so it has no effect",
            "a.md:8:3: field `contextFilter.recent`: `recent: 0` lets no message through; use `contextMode: run` for an agent that sees none",
        ]
    );
    let typo = parse_str(
        "---\nname: a\ntitle: A\ncontextFilter:\n  role: [user]\n---\nP\n",
        Path::new("a.md"),
        SourceFormat::Native,
        Scope::Project,
    )
    .unwrap_err()
    .to_string();
    assert!(typo.starts_with("a.md:5:3: field `contextFilter"), "{typo}");
}

#[test]
fn budgets_no_run_could_stay_under_are_errors() {
    let r = report("model: openai:gpt-4o-mini\nmaxTokens: 0\nmaxCost: -1\n");
    assert_eq!(
        lines(&r),
        [
            "a.md:6:1: field `maxTokens`: maxTokens is 0: the agent could never answer",
            "a.md:7:1: field `maxCost`: maxCost -1 is not a positive number of US dollars",
        ]
    );
    let fine = report("model: openai:gpt-4o-mini\nmaxTokens: 200000\nmaxCost: 0.5\n");
    assert!(fine.valid, "{:#?}", lines(&fine));
}
