//! Mode precedence and the allowSharedContext rule.

use agentctl_context::*;
use agentctl_core::{AgentsSettings, ContextMode};
use agentctl_store::*;

fn settings(default: ContextMode, allow_shared: bool) -> AgentsSettings {
    AgentsSettings {
        default_context_mode: default,
        allow_shared_context: allow_shared,
        ..AgentsSettings::default()
    }
}

#[test]
fn precedence_flag_override_file_settings_default() {
    let s = settings(ContextMode::Run, true);
    let all = ModeInputs {
        flag: Some(ContextMode::Isolated),
        session_override: Some(ContextMode::Shared),
        agent_file: Some(ContextMode::Run),
    };
    let r = resolve_mode("a", all, &s).unwrap();
    assert_eq!(
        (r.mode, r.source),
        (ContextMode::Isolated, ModeSource::Flag)
    );
    let r = resolve_mode("a", ModeInputs { flag: None, ..all }, &s).unwrap();
    assert_eq!(
        (r.mode, r.source),
        (ContextMode::Shared, ModeSource::SessionOverride)
    );
    assert_eq!(
        (r.original, r.original_source),
        (ContextMode::Run, ModeSource::AgentFile)
    );
    let r = resolve_mode(
        "a",
        ModeInputs {
            agent_file: Some(ContextMode::Shared),
            ..ModeInputs::default()
        },
        &s,
    )
    .unwrap();
    assert_eq!(
        (r.mode, r.source),
        (ContextMode::Shared, ModeSource::AgentFile)
    );
    let r = resolve_mode("a", ModeInputs::default(), &s).unwrap();
    assert_eq!((r.mode, r.source), (ContextMode::Run, ModeSource::Settings));
    let r = resolve_mode("a", ModeInputs::default(), &AgentsSettings::default()).unwrap();
    assert_eq!(
        (r.mode, r.source),
        (ContextMode::Isolated, ModeSource::Default)
    );
}

#[test]
fn shared_refused_when_disallowed_whatever_the_layer() {
    let s = settings(ContextMode::Shared, false);
    let error = resolve_mode("reviewer", ModeInputs::default(), &s).unwrap_err();
    let text = error.to_string();
    assert!(text.contains("agent `reviewer`"), "{text}");
    assert!(text.contains("(settings)"), "{text}");
    assert!(text.contains("agents.allowSharedContext"), "{text}");
    let flag = ModeInputs {
        flag: Some(ContextMode::Shared),
        ..ModeInputs::default()
    };
    let text = resolve_mode("reviewer", flag, &s).unwrap_err().to_string();
    assert!(text.contains("--context flag"), "{text}");
    // A flag away from shared is fine even when the settings default is shared.
    let away = ModeInputs {
        flag: Some(ContextMode::Isolated),
        ..ModeInputs::default()
    };
    assert_eq!(
        resolve_mode("reviewer", away, &s).unwrap().mode,
        ContextMode::Isolated
    );
}

#[test]
fn modes_parse() {
    for mode in [ContextMode::Isolated, ContextMode::Shared, ContextMode::Run] {
        assert_eq!(parse_mode(mode.as_str()).unwrap(), mode);
    }
    assert!(
        parse_mode("Shared")
            .unwrap_err()
            .to_string()
            .contains("expected isolated, shared or run")
    );
}
