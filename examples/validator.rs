//! A guardrail backed by a Rust validator the program registers: a `changelog` agent writes a
//! release note, and the `cites-a-ticket` guardrail (`validator: custom`, so the validator
//! registered under the guardrail's name) insists that the note names the ticket it is for.
//! The first answer forgets the ticket; the guardrail sends the error back to the model
//! (`policy: repair`) and the second answer passes. A built-in `max-length` guardrail runs
//! alongside it.
//!
//! Offline, on an inline cassette (no server, no key):
//!
//! ```sh
//! cargo run --example validator
//! ```
//!
//! Or against any OpenAI-compatible endpoint (the key, if one is needed, from
//! `OPENAI_API_KEY`):
//!
//! ```sh
//! cargo run --example validator -- --base-url http://127.0.0.1:11434/v1 --model llama3.2
//! ```
//!
//! Exits 3 when a guardrail still fails after its repairs, like `agentctl run`.

use agentctl::core::{
    AgentDefinition, AgentSource, AgentSpec, Guardrail, GuardrailPolicy, ModelProvider, ModelRef,
    ProviderConfig, ProviderError, ProviderKind, RunError, RunEvent, RunOptions, Scope, Settings,
    SourceFormat, ToolRegistry,
};
use agentctl::guardrails::{CommandEnvironment, Guardrails, ValidatorRegistry, validator_fn};
use agentctl::prelude::StreamExt;
use agentctl::providers::{ProviderOptions, ScriptedProvider, build_provider};
use agentctl::runtime::Runtime;
use anyhow::{Context as _, bail};
use std::collections::BTreeMap;
use std::sync::Arc;

/// The offline model: a note without a ticket, then, asked to repair it, one with the ticket.
const CASSETTE: &str = r#"
version: 1
turns:
  - expect: { lastUserContains: "retry" }
    response:
      text: "Retries now back off exponentially instead of hammering the server."
  - expect: { lastUserContains: "cite the ticket" }
    response:
      text: "Retries now back off exponentially instead of hammering the server (JIRA-482)."
"#;

/// The validator: the text names a ticket such as `JIRA-482`.
fn cites_a_ticket(text: &str) -> bool {
    text.match_indices("JIRA-").any(|(at, prefix)| {
        text[at + prefix.len()..]
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit())
    })
}

/// The validators this program offers to agent files, by name.
fn validators() -> anyhow::Result<ValidatorRegistry> {
    let mut registry = ValidatorRegistry::new();
    registry.register(
        "cites-a-ticket",
        validator_fn(|input| {
            if cites_a_ticket(input.text) {
                Ok(())
            } else {
                Err(vec![
                    "cite the ticket the change is for, e.g. (JIRA-123), at the end of the note"
                        .to_owned(),
                ])
            }
        }),
    )?;
    Ok(registry)
}

/// The agent, defined in code; an agent file would declare the same `guardrails:`.
fn changelog_agent(model: &str) -> AgentDefinition {
    AgentDefinition {
        spec: AgentSpec {
            name: "changelog".into(),
            description: Some("Writes one-sentence release notes.".into()),
            model: Some(model.into()),
            max_turns: Some(4),
            guardrails: vec![
                Guardrail {
                    name: "cites-a-ticket".into(),
                    validator: Some("custom".into()),
                    policy: GuardrailPolicy::Repair,
                    max_repairs: Some(1),
                    ..Guardrail::default()
                },
                Guardrail {
                    name: "one-short-sentence".into(),
                    validator: Some("max-length".into()),
                    max_length: Some(200),
                    ..Guardrail::default()
                },
            ],
            ..AgentSpec::default()
        },
        system_prompt: "Write a one-sentence release note for the change described, ending \
                        with the ticket it is for in parentheses."
            .into(),
        source: AgentSource {
            format: SourceFormat::Native,
            path: "validator.rs".into(),
            scope: Scope::Project,
        },
        extra: BTreeMap::new(),
    }
}

/// Builds the one provider every model call goes to.
type ProviderBuilder = Box<dyn Fn() -> Result<Arc<dyn ModelProvider>, ProviderError> + Send + Sync>;

/// Where the model calls go: the inline cassette, or `--base-url` as `--model`.
enum Model {
    Cassette,
    Endpoint { base_url: String, model: String },
}

fn parse_args() -> anyhow::Result<Model> {
    let (mut base_url, mut model) = (None, "gpt-4o-mini".to_owned());
    let mut raw = std::env::args().skip(1);
    while let Some(flag) = raw.next() {
        let mut value = || raw.next().with_context(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--base-url" => base_url = Some(value()?),
            "--model" => model = value()?,
            other => {
                bail!("unknown argument `{other}`; usage: validator [--base-url URL [--model M]]")
            }
        }
    }
    Ok(match base_url {
        Some(base_url) => Model::Endpoint { base_url, model },
        None => Model::Cassette,
    })
}

/// A runtime whose model calls go to `model`, with the registered validators, and the model
/// string agents name it by.
fn runtime(model: Model) -> anyhow::Result<(Runtime, String)> {
    let mut settings = Settings::default();
    let (factory, name): (ProviderBuilder, String) = match model {
        Model::Cassette => {
            let provider: Arc<dyn ModelProvider> =
                Arc::new(ScriptedProvider::from_yaml(CASSETTE, "validator.rs")?);
            (
                Box::new(move || Ok(Arc::clone(&provider))),
                "scripted:inline".into(),
            )
        }
        Model::Endpoint { base_url, model } => {
            settings.providers.insert(
                "local".into(),
                ProviderConfig {
                    kind: ProviderKind::Openai,
                    base_url: Some(base_url),
                    api_key_env: std::env::var_os("OPENAI_API_KEY")
                        .map(|_| "OPENAI_API_KEY".into()),
                    ..ProviderConfig::default()
                },
            );
            let name = format!("local:{model}");
            let target = ModelRef {
                provider: "local".into(),
                model,
            };
            let settings = settings.clone();
            let build = move || build_provider(&target, &settings, &ProviderOptions::default());
            (Box::new(build), name)
        }
    };
    let providers = move |_: &ModelRef, _: &Settings| factory();
    let guardrails = Guardrails::new(validators()?, CommandEnvironment::default());
    let runtime = Runtime::new(settings, providers, ToolRegistry::new())
        .with_guardrails(Arc::new(guardrails));
    Ok((runtime, name))
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let (runtime, model) = runtime(parse_args()?)?;
    let mut run = runtime.run(
        &changelog_agent(&model),
        "Describe this change: the HTTP client's retry loop now backs off exponentially. Ticket JIRA-482.",
        RunOptions::new().stream(true),
    );
    while let Some(event) = run.next().await {
        if let RunEvent::Guardrail {
            name,
            passed,
            errors,
            attempt,
            ..
        } = event
        {
            if passed {
                eprintln!("✓ {name} (attempt {attempt})");
            } else {
                eprintln!("✗ {name} (attempt {attempt}): {}", errors.join("; "));
            }
        }
    }
    match run.result().await {
        Ok(result) => {
            println!("{}", result.text);
            Ok(())
        }
        Err(RunError::Guardrail(violation)) => {
            eprintln!("{violation}");
            std::process::exit(3);
        }
        Err(error) => Err(error.into()),
    }
}
