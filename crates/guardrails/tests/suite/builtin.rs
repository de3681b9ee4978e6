//! The built-in validators, each passing and failing; none quotes what it found.

use super::support::{errors_of, validator};
use agentctl_core::Guardrail;

fn with_pattern(name: &str, kind: &str, pattern: &str) -> Guardrail {
    Guardrail {
        pattern: Some(pattern.into()),
        ..validator(name, kind)
    }
}

#[tokio::test]
async fn regex_must_match_somewhere() {
    let guardrail = || with_pattern("cites", "regex", r"JIRA-\d+");
    assert!(errors_of(guardrail(), "Fixes JIRA-42.").await.is_empty());
    assert_eq!(
        errors_of(guardrail(), "Fixes the bug.").await,
        [r"the text does not match the required pattern `JIRA-\d+`"]
    );
}

#[tokio::test]
async fn not_regex_names_lines_never_the_match() {
    let guardrail = || with_pattern("no-hosts", "not-regex", r"[a-z]+\.internal\.corp");
    assert!(errors_of(guardrail(), "all public").await.is_empty());
    let errors = errors_of(
        guardrail(),
        "intro\nconnect to db.internal.corp\nthen\nand build.internal.corp too",
    )
    .await;
    assert_eq!(
        errors,
        [r"the text matches the forbidden pattern `[a-z]+\.internal\.corp` on lines 2 and 4"]
    );
    assert!(!errors[0].contains("db.") && !errors[0].contains("build."));
}

#[tokio::test]
async fn max_length_counts_characters() {
    let guardrail = || Guardrail {
        max_length: Some(5),
        ..validator("short", "max-length")
    };
    assert!(errors_of(guardrail(), "ééééé").await.is_empty());
    assert_eq!(
        errors_of(guardrail(), "éééééé").await,
        ["the text is 6 characters long; at most 5 are allowed"]
    );
}

#[tokio::test]
async fn json_accepts_bare_or_fenced_and_locates_errors() {
    let guardrail = || validator("is-json", "json");
    assert!(errors_of(guardrail(), "[1, 2]").await.is_empty());
    assert!(
        errors_of(guardrail(), "Here:\n```json\n{\"a\": null}\n```")
            .await
            .is_empty()
    );
    assert_eq!(
        errors_of(guardrail(), "{\"a\": 1,,}").await,
        ["invalid JSON at line 1, column 9: key must be a string"]
    );
    assert_eq!(
        errors_of(guardrail(), "no json").await,
        [
            "expected a bare JSON document or exactly one ```json fenced block, found prose without JSON"
        ]
    );
}

#[tokio::test]
async fn contains_secret_names_the_kind_and_line_never_the_secret() {
    let guardrail = || validator("no-keys", "contains-secret");
    // Assembled here so that this file holds nothing a secret scanner flags.
    let openai = format!("sk-proj-{}", "Ab3dE6gH9jK2mN5pQ8sT".repeat(3));
    let aws = format!("AKIA{}", "Z7Q2W9E4R6T1Y3U5");
    let pem = ["-----BEGIN RSA PRIVATE", " KEY-----\nMIIEow..."].concat();
    let text = format!("Set it up:\nOPENAI_API_KEY={openai}\naws: {aws}\n\n{pem}\n");
    let errors = errors_of(guardrail(), &text).await;
    assert_eq!(
        errors,
        [
            "line 2 holds what looks like an OpenAI API key (not repeated here); remove it",
            "line 3 holds what looks like an AWS access key ID (not repeated here); remove it",
            "line 5 holds what looks like a private key (not repeated here); remove it",
        ]
    );
    for error in &errors {
        assert!(!error.contains(&openai[8..20]) && !error.contains(&aws[4..]));
    }
}

#[tokio::test]
async fn a_readme_is_not_full_of_secrets() {
    let readme = r#"# sk-tools: a task-runner for data science

Install with `pip install sk-tools`. Keys look like `sk-...`; set OPENAI_API_KEY in your
environment, never in code. AWS keys start with AKIA, Google ones with AIza, GitHub tokens with
ghp_ and Slack tokens with xoxb-. See docs/risk-management-guide-for-production-systems.md.

```yaml
api_key: ${OPENAI_API_KEY}
stripe: sk_live_...   # placeholder
```

-----BEGIN CERTIFICATE----- blocks are public; so is -----BEGIN PUBLIC KEY-----.
"#;
    assert!(
        errors_of(validator("no-keys", "contains-secret"), readme)
            .await
            .is_empty()
    );
}
