//! The P2 questions about the agent itself (seed 002 §4.2.1): guardrails on its answers,
//! memory, and tracing. Like the routing questions, a section takes its flags when any is
//! given, asks on a terminal with `--extended`, and is left out otherwise.

use super::routing::{check_regex, json_object};
use super::ui::{Question, Ui};
use crate::args::ExtendedArgs;
use agentctl_core::{
    Guardrail, GuardrailPolicy, LongTermConfig, LongTermMemory, MemoryBackend, MemorySpec,
    Settings, SpanKind, TracingBackend, TracingSpec, resolve_embedding_model,
};
use agentctl_session::routing::check_state_key;

/// The kinds of check `--guardrail` and the wizard offer, as `KIND` of `KIND[=VALUE]`, with
/// the wizard's label and the name the guardrail gets.
const GUARDRAIL_KINDS: &[(&str, &str, &str)] = &[
    (
        "schema",
        "JSON Schema the answer must satisfy",
        "output-schema",
    ),
    ("json", "the answer is valid JSON", "valid-json"),
    (
        "no-secrets",
        "no API keys or tokens in the answer",
        "no-secrets",
    ),
    ("max-length", "at most N characters", "max-length"),
    ("regex", "the answer matches a pattern", "must-match"),
    (
        "not-regex",
        "the answer never matches a pattern",
        "must-not-match",
    ),
];

/// 🛡️ Guardrails: checks of the agent's answer, with what a failure does.
pub(super) fn guardrails(
    ui: &Ui,
    args: &ExtendedArgs,
    ask: bool,
) -> anyhow::Result<Vec<Guardrail>> {
    let policy = args.guardrail_policy.as_deref().map(parse_policy);
    if !args.guardrails.is_empty() {
        let mut out = Vec::new();
        for value in &args.guardrails {
            let (kind, argument) = match value.split_once('=') {
                Some((kind, argument)) => (kind.trim(), Some(argument)),
                None => (value.trim(), None),
            };
            let mut guardrail = guardrail(kind, argument)
                .map_err(|e| anyhow::anyhow!("--guardrail `{value}`: {e}"))?;
            guardrail.policy = policy.unwrap_or_default();
            push_unique(&mut out, guardrail);
        }
        return Ok(out);
    }
    anyhow::ensure!(
        policy.is_none() || ask,
        "--guardrail-policy says what a failing check does: pass --guardrail CHECK too"
    );
    if !ask {
        return Ok(Vec::new());
    }
    ui.section("🛡️ Guardrails")?;
    let mut out = Vec::new();
    let mut prompt = "Add a check of the agent's answers?";
    while ui.confirm(
        &Question {
            prompt,
            flag: "--guardrail CHECK",
            what: "guardrail",
        },
        false,
    )? {
        prompt = "Add another check?";
        let guardrail = guardrail_asked(ui, policy)?;
        push_unique(&mut out, guardrail);
    }
    Ok(out)
}

/// One check of the agent's answers, and what its failure does (unless `--guardrail-policy`
/// said), asked in the wizard.
fn guardrail_asked(ui: &Ui, policy: Option<GuardrailPolicy>) -> anyhow::Result<Guardrail> {
    let labels: Vec<String> = GUARDRAIL_KINDS
        .iter()
        .map(|(kind, label, _)| format!("{kind}: {label}"))
        .collect();
    let question = Question {
        prompt: "  Check",
        flag: "--guardrail CHECK",
        what: "guardrail",
    };
    let (kind, label, _) = GUARDRAIL_KINDS[ui.select(&question, &labels, 0)?];
    let argument = match kind {
        "json" | "no-secrets" => None,
        _ => Some(ui.text(
            &Question {
                prompt: match kind {
                    "schema" => "  Schema (JSON)",
                    "max-length" => "  Most characters",
                    _ => "  Pattern (regular expression)",
                },
                flag: "--guardrail KIND=VALUE",
                what: label,
            },
            None,
            false,
            |answer| guardrail(kind, Some(answer)).map(drop),
        )?),
    };
    let mut guardrail = guardrail(kind, argument.as_deref()).map_err(anyhow::Error::msg)?;
    guardrail.policy = match policy {
        Some(policy) => policy,
        None => {
            let policies = [
                "reject: end the run with an error".to_owned(),
                "repair: ask the model to fix its answer".to_owned(),
                "warn: record the failure and go on".to_owned(),
            ];
            let question = Question {
                prompt: "  Policy",
                flag: "--guardrail-policy POLICY",
                what: "guardrail policy",
            };
            match ui.select(&question, &policies, 0)? {
                1 => GuardrailPolicy::Repair,
                2 => GuardrailPolicy::Warn,
                _ => GuardrailPolicy::Reject,
            }
        }
    };
    Ok(guardrail)
}

/// One output guardrail of `kind`, checked as far as the CLI can (the JSON, the pattern, the
/// number); the rest is checked by validation before the file is written.
fn guardrail(kind: &str, argument: Option<&str>) -> Result<Guardrail, String> {
    let Some((_, _, name)) = GUARDRAIL_KINDS.iter().find(|(k, _, _)| *k == kind) else {
        let kinds: Vec<&str> = GUARDRAIL_KINDS.iter().map(|(k, _, _)| *k).collect();
        return Err(format!(
            "unknown check `{kind}`: use one of {}",
            kinds.join(", ")
        ));
    };
    let mut out = Guardrail {
        name: (*name).to_owned(),
        ..Guardrail::default()
    };
    let needs = |what: &str| format!("`{kind}` needs {what}: write {kind}=…");
    match (kind, argument.map(str::trim)) {
        ("schema", Some(schema)) if !schema.is_empty() => out.schema = Some(json_object(schema)?),
        ("schema", _) => return Err(needs("a JSON Schema")),
        ("json", None) => out.validator = Some("json".to_owned()),
        ("no-secrets", None) => out.validator = Some("contains-secret".to_owned()),
        ("json" | "no-secrets", Some(_)) => return Err(format!("`{kind}` takes no value")),
        ("max-length", Some(number)) => {
            let limit: usize = number
                .parse()
                .ok()
                .filter(|n| *n > 0)
                .ok_or_else(|| format!("`{number}` is not a positive whole number"))?;
            out.validator = Some("max-length".to_owned());
            out.max_length = Some(limit);
        }
        ("max-length", None) => return Err(needs("a number of characters")),
        (_, Some(pattern)) if !pattern.is_empty() => {
            check_regex(pattern)?;
            out.validator = Some(kind.to_owned());
            out.pattern = Some(pattern.to_owned());
        }
        _ => return Err(needs("a pattern")),
    }
    Ok(out)
}

/// Adds `guardrail`, numbering its name when another has it (`must-match-2`): names are
/// unique in an agent.
fn push_unique(out: &mut Vec<Guardrail>, mut guardrail: Guardrail) {
    let base = guardrail.name.clone();
    let mut n = 1;
    while out.iter().any(|g| g.name == guardrail.name) {
        n += 1;
        guardrail.name = format!("{base}-{n}");
    }
    out.push(guardrail);
}

fn parse_policy(name: &str) -> GuardrailPolicy {
    match name {
        "repair" => GuardrailPolicy::Repair,
        "warn" => GuardrailPolicy::Warn,
        _ => GuardrailPolicy::Reject,
    }
}

/// 💾 Memory: session keys, and long-term memory with its backend.
pub(super) fn memory(
    ui: &Ui,
    args: &ExtendedArgs,
    ask: bool,
    settings: &Settings,
) -> anyhow::Result<Option<MemorySpec>> {
    let flagged = !args.memory_keys.is_empty()
        || args.long_term_memory.is_some()
        || args.embedding_model.is_some();
    let (session, long_term) = if flagged {
        memory_from_flags(args, settings)?
    } else if ask {
        memory_asked(ui, settings)?
    } else {
        return Ok(None);
    };
    if session.is_empty() && long_term.is_none() {
        return Ok(None);
    }
    Ok(Some(MemorySpec {
        session,
        long_term,
        scope: None,
    }))
}

/// Whether `answer` names an embedding model the settings resolve.
fn embedding_check(answer: &str, settings: &Settings) -> Result<(), String> {
    resolve_embedding_model(answer, settings)
        .map(drop)
        .map_err(|e| e.to_string())
}

/// Session keys and long-term memory from `--memory`, `--long-term-memory` and
/// `--embedding-model`.
fn memory_from_flags(
    args: &ExtendedArgs,
    settings: &Settings,
) -> anyhow::Result<(Vec<String>, Option<LongTermMemory>)> {
    let keys: Vec<String> = args
        .memory_keys
        .iter()
        .map(|k| k.trim().to_owned())
        .filter(|k| !k.is_empty())
        .collect();
    for key in &keys {
        check_state_key(key).map_err(|e| anyhow::anyhow!("--memory `{key}`: {e}"))?;
    }
    // An embedding model alone means the store that uses one.
    let backend = args
        .long_term_memory
        .as_deref()
        .or(args.embedding_model.is_some().then_some("vector_store"));
    if let Some(model) = &args.embedding_model {
        embedding_check(model, settings).map_err(|e| anyhow::anyhow!("--embedding-model: {e}"))?;
        anyhow::ensure!(
            backend == Some("vector_store"),
            "--embedding-model is for `--long-term-memory vector_store`, not `{}`",
            backend.unwrap_or_default()
        );
    }
    let long_term = backend.map(|backend| long_term(backend, args.embedding_model.clone()));
    Ok((keys, long_term))
}

/// Session keys and long-term memory, asked in the wizard.
fn memory_asked(
    ui: &Ui,
    settings: &Settings,
) -> anyhow::Result<(Vec<String>, Option<LongTermMemory>)> {
    ui.section("💾 Memory")?;
    let question = Question {
        prompt: "Enable session memory (keys the agent reads and sets during a session)?",
        flag: "--memory KEYS",
        what: "session memory",
    };
    let session = if ui.confirm(&question, false)? {
        let keys = ui.text(
            &Question {
                prompt: "  Session keys (comma-separated)",
                flag: "--memory KEYS",
                what: "session keys",
            },
            None,
            false,
            |answer| {
                keys_of(answer)
                    .iter()
                    .try_for_each(|key| check_state_key(key).map_err(|e| e.to_string()))
            },
        )?;
        keys_of(&keys)
    } else {
        Vec::new()
    };
    let question = Question {
        prompt: "Enable long-term memory (remember and recall across sessions)?",
        flag: "--long-term-memory [BACKEND]",
        what: "long-term memory",
    };
    let long_term = if ui.confirm(&question, false)? {
        Some(long_term_asked(ui, settings)?)
    } else {
        None
    };
    Ok((session, long_term))
}

/// The long-term memory backend (and its embedding model), asked in the wizard.
fn long_term_asked(ui: &Ui, settings: &Settings) -> anyhow::Result<LongTermMemory> {
    let backends = [
        "sqlite: keyword search, works offline".to_owned(),
        "vector_store: keyword and embedding search (needs an embedding model)".to_owned(),
        "filesystem: the same store as sqlite".to_owned(),
    ];
    let question = Question {
        prompt: "  Backend",
        flag: "--long-term-memory BACKEND",
        what: "memory backend",
    };
    Ok(match ui.select(&question, &backends, 0)? {
        1 => {
            let model = ui.text(
                &Question {
                    prompt: "  Embedding model",
                    flag: "--embedding-model MODEL",
                    what: "embedding model",
                },
                Some("openai:text-embedding-3-small".to_owned()),
                false,
                |answer| embedding_check(answer, settings),
            )?;
            long_term("vector_store", Some(model))
        }
        2 => long_term("filesystem", None),
        _ => long_term("sqlite", None),
    })
}

fn keys_of(answer: &str) -> Vec<String> {
    answer
        .split(',')
        .map(str::trim)
        .filter(|k| !k.is_empty())
        .map(str::to_owned)
        .collect()
}

fn long_term(backend: &str, embedding_model: Option<String>) -> LongTermMemory {
    LongTermMemory {
        backend: match backend {
            "vector_store" => MemoryBackend::VectorStore,
            "filesystem" => MemoryBackend::Filesystem,
            _ => MemoryBackend::Sqlite,
        },
        config: LongTermConfig {
            embedding_model,
            ..LongTermConfig::default()
        },
    }
}

/// 🔍 Tracing: whether the agent's runs are traced, which spans, and where they go.
pub(super) fn tracing(
    ui: &Ui,
    args: &ExtendedArgs,
    ask: bool,
) -> anyhow::Result<Option<TracingSpec>> {
    let flagged = args.tracing
        || !args.trace_events.is_empty()
        || !args.trace_backends.is_empty()
        || args.trace_sample_rate.is_some();
    if flagged {
        return tracing_from_flags(args).map(Some);
    }
    if !ask {
        return Ok(None);
    }
    ui.section("🔍 Tracing")?;
    let question = Question {
        prompt: "Enable tracing?",
        flag: "--tracing",
        what: "tracing",
    };
    if !ui.confirm(&question, false)? {
        return Ok(None);
    }
    tracing_asked(ui).map(Some)
}

/// Tracing from `--tracing`, `--trace-events`, `--trace-backend` and `--trace-sample-rate`.
fn tracing_from_flags(args: &ExtendedArgs) -> anyhow::Result<TracingSpec> {
    if let Some(rate) = args.trace_sample_rate {
        anyhow::ensure!(
            (0.0..=1.0).contains(&rate),
            "--trace-sample-rate {rate}: a fraction of runs, from 0 to 1"
        );
    }
    Ok(TracingSpec {
        enabled: true,
        events: args
            .trace_events
            .iter()
            .filter_map(|e| span_kind(e))
            .collect(),
        backend: args
            .trace_backends
            .iter()
            .filter_map(|b| backend(b))
            .collect(),
        sample_rate: args.trace_sample_rate,
        capture_content: None,
    })
}

/// The traced events and the backend, asked in the wizard once tracing is on.
fn tracing_asked(ui: &Ui) -> anyhow::Result<TracingSpec> {
    let kinds: Vec<String> = SpanKind::ALL
        .iter()
        .map(|k| k.as_str().to_owned())
        .collect();
    let checked: Vec<bool> = SpanKind::ALL
        .iter()
        .map(|k| {
            matches!(
                k,
                SpanKind::Llm | SpanKind::Tool | SpanKind::Handoff | SpanKind::Guardrail
            )
        })
        .collect();
    let question = Question {
        prompt: "  Events to trace (space to tick, enter to confirm)",
        flag: "--trace-events KINDS",
        what: "traced events",
    };
    let events = ui
        .multi_select(&question, &kinds, &checked)?
        .into_iter()
        .map(|i| SpanKind::ALL[i])
        .collect();
    let mut backends = vec!["the settings' (agents.tracing.backend)".to_owned()];
    backends.extend(TracingBackend::ALL.iter().map(|b| b.as_str().to_owned()));
    let question = Question {
        prompt: "  Backend",
        flag: "--trace-backend BACKENDS",
        what: "trace backend",
    };
    let backend = match ui.select(&question, &backends, 0)? {
        0 => Vec::new(),
        i => vec![TracingBackend::ALL[i - 1]],
    };
    Ok(TracingSpec {
        enabled: true,
        events,
        backend,
        sample_rate: None,
        capture_content: None,
    })
}

fn span_kind(name: &str) -> Option<SpanKind> {
    SpanKind::ALL.into_iter().find(|k| k.as_str() == name)
}

fn backend(name: &str) -> Option<TracingBackend> {
    TracingBackend::ALL.into_iter().find(|b| b.as_str() == name)
}
