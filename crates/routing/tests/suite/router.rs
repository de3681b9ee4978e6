//! The router over agents parsed from real agent files: the seed's scenario, the tie-breaking
//! order, word boundaries, and prompts a user (or a pasted log) can throw at it.

use agentctl_core::{AgentDefinition, Scope, SourceFormat};
use agentctl_definitions::parse_str;
use agentctl_routing::{Matched, RouteMatch, Router, Selected};
use proptest::prelude::*;
use std::path::Path;

fn parse(text: &str, scope: Scope) -> AgentDefinition {
    parse_str(text, Path::new("agent.md"), SourceFormat::Native, scope)
        .unwrap()
        .definition
}

/// The three agents of the seed's routing scenario.
fn seed_agents() -> Vec<AgentDefinition> {
    [
        "---\nname: debug-analyzer\ndescription: Finds bugs.\ntriggers:\n  - intent: debug\n    \
         keywords: [bug, error, crash, exception, stack trace]\n    priority: 10\n---\nDebug.\n",
        "---\nname: code-reviewer\ndescription: Reviews.\ntriggers:\n  - intent: review\n    \
         keywords: [review, PR, pull request, code quality]\n    priority: 5\n---\nReview.\n",
        "---\nname: test-fixer\ndescription: Fixes tests.\ntriggers:\n  - regex: \"fix.*test\"\n    \
         priority: 8\n---\nFix.\n",
    ]
    .iter()
    .map(|text| parse(text, Scope::Project))
    .collect()
}

fn names(matches: &[RouteMatch]) -> Vec<&str> {
    matches.iter().map(|m| &*m.agent).collect()
}

#[test]
fn the_seed_scenario_routes_a_bug_to_the_debug_analyzer() {
    let router = Router::new(&seed_agents());
    let decision = router.decide("There's a bug in the login flow", None);
    assert_eq!(
        decision.selected,
        Some(Selected {
            agent: "debug-analyzer".into(),
            fallback: false
        })
    );
    let best = &decision.matches[0];
    assert_eq!((best.priority, best.trigger), (10, 0));
    assert_eq!(best.intent.as_deref(), Some("debug"));
    assert_eq!(best.explain(), "matched: bug");
    assert_eq!(
        best.matches,
        [Matched::Keyword {
            keyword: "bug".into(),
            span: 10..13
        }]
    );
}

#[test]
fn every_matching_agent_is_ranked_by_priority() {
    let router = Router::new(&seed_agents());
    let found = router.route("Review the PR: fix the flaky test, it throws an exception");
    assert_eq!(
        names(&found),
        ["debug-analyzer", "test-fixer", "code-reviewer"]
    );
    assert_eq!(found[2].explain(), "matched: review, PR");
    assert_eq!(found[1].explain(), "matched: /fix.*test/");
}

#[test]
fn words_inside_other_words_do_not_route() {
    let router = Router::new(&seed_agents());
    for prompt in [
        "debug the login flow",
        "improve the prompt",
        "the errors are terrible",
        "reviewers disagree",
    ] {
        assert!(router.route(prompt).is_empty(), "{prompt}");
    }
    assert_eq!(names(&router.route("Open a PR, please")), ["code-reviewer"]);
    assert_eq!(
        names(&router.route("the stack\ntrace says null")),
        ["debug-analyzer"]
    );
}

#[test]
fn ties_go_to_more_matches_then_the_project_then_the_name() {
    let agent = |name: &str, keywords: &str, scope| {
        parse(
            &format!(
                "---\nname: {name}\ndescription: x\ntriggers:\n  - keywords: [{keywords}]\n    priority: 3\n---\nx\n"
            ),
            scope,
        )
    };
    let router = Router::new(&[
        agent("global-b", "deploy", Scope::Global),
        agent("project-z", "deploy", Scope::Project),
        agent("global-a", "deploy", Scope::Global),
        agent("project-m", "deploy", Scope::Project),
        agent("global-two", "deploy, rollback", Scope::Global),
    ]);
    assert_eq!(
        names(&router.route("deploy, then rollback")),
        [
            "global-two",
            "project-m",
            "project-z",
            "global-a",
            "global-b"
        ]
    );
}

#[test]
fn an_invalid_pattern_in_a_file_is_skipped_and_named() {
    let agent = parse(
        "---\nname: broken\ndescription: x\ntriggers:\n  - keywords: bug\n    regex: ['(unclosed', 'crash(ed)?']\n---\nx\n",
        Scope::Project,
    );
    let router = Router::new(&[agent]);
    assert_eq!(router.skipped().len(), 1);
    assert_eq!(router.skipped()[0].field, "triggers[0].regex[0]");
    assert_eq!(
        router.route("it crashed")[0].explain(),
        "matched: /crash(ed)?/"
    );
    assert_eq!(router.route("a bug")[0].explain(), "matched: bug");
}

#[test]
fn pasted_logs_and_huge_prompts_are_routed_in_one_pass() {
    let router = Router::new(&seed_agents());
    // A megabyte of log with escapes and a stack trace at the very end.
    let mut prompt = "\x1b[31mINFO\x1b[0m\tall good\r\n".repeat(40_000);
    prompt.push_str("Stack   Trace:\n at main.rs:1");
    let found = router.route(&prompt);
    assert_eq!(names(&found), ["debug-analyzer"]);
    let span = found[0].matches[0].span();
    assert_eq!(&prompt[span], "Stack   Trace");
    assert!(router.route("").is_empty());
}

#[test]
fn a_thousand_agents_sharing_a_keyword_are_all_reported_in_order() {
    let agents: Vec<AgentDefinition> = (0..1000)
        .map(|i| {
            parse(
                &format!(
                    "---\nname: agent-{i:04}\ndescription: x\ntriggers:\n  - keywords: [deploy]\n    priority: {}\n---\nx\n",
                    i % 3
                ),
                Scope::Project,
            )
        })
        .collect();
    let found = Router::new(&agents).route("deploy now");
    assert_eq!(found.len(), 1000);
    assert_eq!(&*found[0].agent, "agent-0002");
    assert!(
        found
            .windows(2)
            .all(|w| (w[0].priority, &w[1].agent) >= (w[1].priority, &w[0].agent))
    );
}

proptest! {
    /// Whatever the prompt (any Unicode, any whitespace), every reported span lies on character
    /// boundaries of the prompt, and a keyword span holds the keyword up to case and spacing.
    #[test]
    fn spans_always_slice_the_prompt(prompt in "\\PC{0,40}( |\\s{1,3}|İ|ß|Σ|bug|stack\\s+trace|PR|错误){0,6}\\PC{0,20}") {
        let mut agents = seed_agents();
        agents.push(parse(
            "---\nname: unicode\ndescription: x\ntriggers:\n  - keywords: [错误, straße, İstanbul]\n---\nx\n",
            Scope::Global,
        ));
        let router = Router::new(&agents);
        for found in router.route(&prompt) {
            for matched in &found.matches {
                let text = prompt.get(matched.span());
                prop_assert!(text.is_some_and(|t| !t.is_empty()), "{matched:?} in {prompt:?}");
                if let Matched::Keyword { keyword, .. } = matched {
                    let fold = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase();
                    prop_assert_eq!(fold(text.unwrap_or("")), fold(keyword));
                }
            }
        }
    }
}
