use super::*;
use agentctl_core::{AgentSource, AgentSpec, SourceFormat, Trigger};

fn trigger(keywords: &[&str], regex: &[&str], priority: i32) -> Trigger {
    Trigger {
        intent: None,
        keywords: keywords.iter().map(|k| (*k).to_owned()).collect(),
        regex: regex.iter().map(|r| (*r).to_owned()).collect(),
        priority,
        ..Trigger::default()
    }
}

fn agent(name: &str, scope: Scope, triggers: Vec<Trigger>) -> AgentDefinition {
    AgentDefinition {
        spec: AgentSpec {
            name: name.to_owned(),
            triggers,
            ..AgentSpec::default()
        },
        system_prompt: String::new(),
        source: AgentSource {
            format: SourceFormat::Native,
            path: format!("{name}.md").into(),
            scope,
        },
        extra: Default::default(),
    }
}

fn names(matches: &[RouteMatch]) -> Vec<&str> {
    matches.iter().map(|m| &*m.agent).collect()
}

fn keyword_texts<'a>(prompt: &'a str, found: &RouteMatch) -> Vec<&'a str> {
    found
        .matches
        .iter()
        .map(|m| prompt.get(m.span()).unwrap())
        .collect()
}

#[test]
fn keywords_need_word_boundaries() {
    let router = Router::new(&[agent(
        "a",
        Scope::Project,
        vec![trigger(&["bug", "PR"], &[], 0)],
    )]);
    for miss in [
        "debug this",
        "bugs everywhere",
        "a prompt",
        "PRs",
        "bug_fix",
        "2bug",
    ] {
        assert!(router.route(miss).is_empty(), "{miss}");
    }
    for hit in [
        "bug",
        "a BUG!",
        "bug-fix",
        "(bug)",
        "open a PR.",
        "pr:42",
        "«bug»",
    ] {
        assert_eq!(names(&router.route(hit)), ["a"], "{hit}");
    }
}

#[test]
fn a_keyword_found_after_a_rejected_occurrence_still_counts() {
    let router = Router::new(&[agent("a", Scope::Project, vec![trigger(&["bug"], &[], 0)])]);
    let prompt = "debug the bug";
    let found = router.route(prompt);
    assert_eq!(found[0].matches[0].span(), 10..13);
}

#[test]
fn phrases_match_across_whitespace_and_report_original_spans() {
    let router = Router::new(&[agent(
        "a",
        Scope::Project,
        vec![trigger(&["Stack Trace", "pull request"], &[], 0)],
    )]);
    let prompt = "Here is the STACK\n   trace of the pull\trequest";
    let found = router.route(prompt);
    assert_eq!(
        keyword_texts(prompt, &found[0]),
        ["STACK\n   trace", "pull\trequest"]
    );
    assert_eq!(found[0].explain(), "matched: Stack Trace, pull request");
}

#[test]
fn case_folding_is_unicode_aware_and_spans_stay_in_the_prompt() {
    let router = Router::new(&[agent(
        "a",
        Scope::Project,
        vec![trigger(&["Déploiement", "straße"], &[], 0)],
    )]);
    let prompt = "Le DÉPLOIEMENT a échoué";
    let found = router.route(prompt);
    assert_eq!(keyword_texts(prompt, &found[0]), ["DÉPLOIEMENT"]);
    // A prompt whose lowercase is longer than itself still maps back.
    let prompt = "İİ STRASSE straße";
    let found = router.route(prompt);
    assert_eq!(keyword_texts(prompt, &found[0]), ["straße"]);
}

#[test]
fn keywords_in_unspaced_scripts_match_inside_text() {
    let router = Router::new(&[agent("a", Scope::Project, vec![trigger(&["错误"], &[], 0)])]);
    let prompt = "登录流程有一个错误需要修复";
    let found = router.route(prompt);
    assert_eq!(keyword_texts(prompt, &found[0]), ["错误"]);
}

#[test]
fn regexes_are_case_insensitive_and_report_their_span() {
    let router = Router::new(&[agent(
        "fixer",
        Scope::Project,
        vec![trigger(&[], &["fix.*test"], 8)],
    )]);
    let prompt = "Please FIX the failing Test now";
    let found = router.route(prompt);
    assert_eq!(keyword_texts(prompt, &found[0]), ["FIX the failing Test"]);
    assert_eq!(found[0].explain(), "matched: /fix.*test/");
    assert!(router.route("test the fix").is_empty());
}

#[test]
fn patterns_matching_only_empty_text_do_not_count() {
    let router = Router::new(&[agent(
        "a",
        Scope::Project,
        vec![trigger(&[], &["x*", ""], 0)],
    )]);
    assert!(router.route("nothing here").is_empty());
    assert_eq!(router.route("a xx b")[0].matches[0].span(), 2..4);
    assert_eq!(router.skipped().len(), 1);
    assert_eq!(router.skipped()[0].field, "triggers[0].regex[1]");
}

#[test]
fn invalid_patterns_are_skipped_with_a_reason_and_the_rest_still_routes() {
    let router = Router::new(&[agent(
        "a",
        Scope::Project,
        vec![trigger(&["ok"], &["(unclosed", "fine"], 0)],
    )]);
    let skipped = router.skipped();
    assert_eq!(skipped.len(), 1);
    assert_eq!(skipped[0].field, "triggers[0].regex[0]");
    assert_eq!(
        skipped[0].to_string(),
        "agent `a`, triggers[0].regex[0] `(unclosed`: invalid regular expression: unclosed group"
    );
    assert_eq!(router.route("this is fine")[0].explain(), "matched: /fine/");
    assert_eq!(router.route("ok")[0].explain(), "matched: ok");
}

#[test]
fn empty_keywords_are_skipped() {
    let router = Router::new(&[agent(
        "a",
        Scope::Project,
        vec![trigger(&["  ", "x"], &[], 0)],
    )]);
    assert_eq!(router.skipped()[0].field, "triggers[0].keywords[0]");
    assert!(router.route("   ").is_empty());
}

#[test]
fn an_intent_alone_is_its_keyword() {
    let mut only_intent = trigger(&[], &[], 3);
    only_intent.intent = Some("review".into());
    let mut with_keywords = trigger(&["bug"], &[], 1);
    with_keywords.intent = Some("debug".into());
    let router = Router::new(&[
        agent("reviewer", Scope::Project, vec![only_intent]),
        agent("debugger", Scope::Project, vec![with_keywords]),
    ]);
    let found = router.route("please review; debug later");
    assert_eq!(names(&found), ["reviewer"]);
    assert_eq!(found[0].intent.as_deref(), Some("review"));
    assert_eq!(found[0].explain(), "matched: review");
    assert_eq!(router.targets()[0].cues(), ["review"]);
}

#[test]
fn ranking_is_priority_then_matches_then_scope_then_name() {
    let router = Router::new(&[
        agent("zeta", Scope::Project, vec![trigger(&["bug"], &[], 1)]),
        agent("alpha", Scope::Global, vec![trigger(&["bug"], &[], 1)]),
        agent("beta", Scope::Project, vec![trigger(&["bug"], &[], 1)]),
        agent(
            "many",
            Scope::Global,
            vec![trigger(&["bug", "crash"], &[], 1)],
        ),
        agent("high", Scope::Global, vec![trigger(&["crash"], &[], 2)]),
        agent("none", Scope::Project, vec![trigger(&["other"], &[], 9)]),
    ]);
    let found = router.route("a bug made it crash");
    assert_eq!(names(&found), ["high", "many", "beta", "zeta", "alpha"]);
    // The same input gives the same order, whatever order the agents came in.
    let mut reversed: Vec<AgentDefinition> = Vec::new();
    for name in ["none", "high", "many", "beta", "alpha", "zeta"] {
        let found = router.targets().iter().find(|t| t.name == name).unwrap();
        reversed.push(agent(name, found.scope, found.triggers.clone()));
    }
    assert_eq!(
        names(&Router::new(&reversed).route("a bug made it crash")),
        names(&found)
    );
}

#[test]
fn an_agent_is_ranked_by_its_best_trigger() {
    let router = Router::new(&[agent(
        "a",
        Scope::Project,
        vec![
            trigger(&["bug", "crash", "error"], &[], 1),
            trigger(&["crash"], &[], 5),
            trigger(&["bug"], &[], 5),
        ],
    )]);
    let found = router.route("bug crash error");
    assert_eq!(found.len(), 1);
    // Priority first; between the two priority-5 triggers, the lower index.
    assert_eq!((found[0].trigger, found[0].priority), (1, 5));
    let found = router.route("crash bug error");
    assert_eq!(found[0].trigger, 1);
}

#[test]
fn repeated_words_count_once() {
    let router = Router::new(&[
        agent("repeat", Scope::Project, vec![trigger(&["bug"], &[], 0)]),
        agent(
            "two",
            Scope::Project,
            vec![trigger(&["bug", "error"], &[], 0)],
        ),
    ]);
    let found = router.route("bug bug bug bug error");
    assert_eq!(names(&found), ["two", "repeat"]);
    assert_eq!(found[1].matches.len(), 1);
    assert_eq!(found[1].matches[0].span(), 0..3);
}

#[test]
fn shared_keywords_and_patterns_report_each_agent() {
    let router = Router::new(&[
        agent("a", Scope::Project, vec![trigger(&["Bug"], &["fix.*"], 0)]),
        agent(
            "b",
            Scope::Project,
            vec![trigger(&["bug", "BUG"], &["fix.*", "fix.*"], 0)],
        ),
    ]);
    let found = router.route("fix this bug");
    assert_eq!(names(&found), ["a", "b"]);
    assert_eq!(found[0].explain(), "matched: /fix.*/, Bug");
    assert_eq!(found[1].explain(), "matched: /fix.*/, bug");
}

#[test]
fn repeated_names_keep_the_first_agent_and_agents_without_triggers_are_left_out() {
    let router = Router::new(&[
        agent("a", Scope::Project, vec![trigger(&["x"], &[], 0)]),
        agent("a", Scope::Global, vec![trigger(&["y"], &[], 0)]),
        agent("quiet", Scope::Project, Vec::new()),
    ]);
    assert_eq!(router.targets().len(), 1);
    assert!(router.route("y").is_empty());
}

#[test]
fn decide_falls_back_to_the_default_agent() {
    let router = Router::new(&[agent("a", Scope::Project, vec![trigger(&["bug"], &[], 0)])]);
    let decision = router.decide("a bug", Some("helper"));
    assert_eq!(
        decision.selected,
        Some(Selected {
            agent: "a".into(),
            fallback: false
        })
    );
    assert_eq!(&*decision.selected_match().unwrap().agent, "a");
    let decision = router.decide("nothing", Some("helper"));
    assert_eq!(
        decision.selected,
        Some(Selected {
            agent: "helper".into(),
            fallback: true
        })
    );
    assert!(decision.selected_match().is_none());
    assert_eq!(router.decide("nothing", None).selected, None);
}

#[test]
fn json_is_camel_case_with_tagged_matches() {
    let mut debug = trigger(&["bug"], &[], 10);
    debug.intent = Some("debug".into());
    let router = Router::new(&[agent("debug-analyzer", Scope::Project, vec![debug])]);
    let json = serde_json::to_value(router.decide("There's a bug", None)).unwrap();
    assert_eq!(
        json,
        serde_json::json!({
            "matches": [{
                "agent": "debug-analyzer",
                "scope": "project",
                "priority": 10,
                "trigger": 0,
                "intent": "debug",
                "matches": [{"kind": "keyword", "keyword": "bug", "span": {"start": 10, "end": 13}}]
            }],
            "selected": {"agent": "debug-analyzer", "fallback": false}
        })
    );
}

#[test]
fn cues_list_keywords_and_patterns_once() {
    let router = Router::new(&[agent(
        "a",
        Scope::Project,
        vec![
            trigger(&["bug", "error"], &["fix.*test"], 0),
            trigger(&["bug"], &[], 1),
        ],
    )]);
    assert_eq!(router.targets()[0].cues(), ["bug", "error", "/fix.*test/"]);
}

#[test]
fn a_pattern_too_large_to_compile_is_skipped_and_the_others_still_route() {
    let router = Router::new(&[
        agent(
            "huge",
            Scope::Project,
            vec![trigger(&[], &[r"\w{5000}"], 9)],
        ),
        agent(
            "small",
            Scope::Project,
            vec![trigger(&[], &["fix.*test"], 1)],
        ),
    ]);
    let skipped = router.skipped();
    assert_eq!(skipped.len(), 1, "{skipped:?}");
    assert_eq!(skipped[0].agent, "huge");
    assert_eq!(skipped[0].field, "triggers[0].regex[0]");
    assert!(
        skipped[0].reason.starts_with("cannot compile: "),
        "{}",
        skipped[0].reason
    );
    assert_eq!(names(&router.route("fix the test")), ["small"]);
}

#[test]
fn substring_keywords_match_inside_words_as_the_seed_router_does() {
    // Seed 002 §4.1.1: `userPrompt.toLowerCase().includes(kw.toLowerCase())`.
    let seed = Trigger {
        keyword_match: agentctl_core::KeywordMatch::Substring,
        ..trigger(&["bug", "PR"], &[], 10)
    };
    let router = Router::new(&[
        agent("debug-analyzer", Scope::Project, vec![seed]),
        agent("word", Scope::Project, vec![trigger(&["bug"], &[], 5)]),
    ]);
    let prompt = "Debugging the login prompt";
    let ranked = router.route(prompt);
    assert_eq!(names(&ranked), ["debug-analyzer"]);
    assert_eq!(keyword_texts(prompt, &ranked[0]), ["bug", "pr"]);
    // The same keyword on word boundaries, in the other agent, still needs them.
    assert_eq!(names(&router.route("a bug!")), ["debug-analyzer", "word"]);
}
