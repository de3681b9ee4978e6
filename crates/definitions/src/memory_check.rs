//! Long-term memory in validation: the backend exists and `vector_store` names an embedding
//! model that resolves to a provider with an embeddings API — each problem located at its
//! field. (Whether `tools.deny` removes `remember` and `recall` is checked with the other
//! declared tools, in `declared_check`.)

use crate::error::{Diagnostic, Severity};
use crate::parse::LoadedAgent;
use agentctl_core::{
    LongTermMemory, MemoryBackend, ProviderKind, Settings, resolve_embedding_model,
};

/// The agent's long-term memory, when it declares one.
fn long_term(agent: &LoadedAgent) -> Option<&LongTermMemory> {
    agent.definition.spec.memory.as_ref()?.long_term.as_ref()
}

/// The field of `leaf` under `long_term`, as the file spells it (`longTerm` or `long_term`).
fn field(agent: &LoadedAgent, leaf: &str) -> String {
    let base = agent.exact_field(&["memory.longTerm", "memory.long_term"]);
    if leaf.is_empty() {
        base.to_owned()
    } else {
        format!("{base}.{leaf}")
    }
}

/// Settings-free problems (part of the `field values` check): an unknown backend,
/// `vector_store` without an embedding model, an embedding model a backend ignores.
pub(crate) fn long_term_values(agent: &LoadedAgent, out: &mut Vec<Diagnostic>) {
    let Some(memory) = long_term(agent) else {
        return;
    };
    let model = memory.config.embedding_model.as_deref().map(str::trim);
    match &memory.backend {
        MemoryBackend::Unknown(name) => out.push(agent.diagnostic(
            Severity::Error,
            &field(agent, "backend"),
            format!(
                "unknown long-term memory backend `{name}`: use {} (sqlite is the default; \
                 filesystem is the same embedded store)",
                MemoryBackend::SUPPORTED.join(", ")
            ),
        )),
        MemoryBackend::VectorStore if model.is_none_or(str::is_empty) => {
            out.push(agent.diagnostic(
                Severity::Error,
                &field(agent, "config.embedding_model"),
                "backend `vector_store` needs `config.embedding_model`, e.g. \
                 `openai:text-embedding-3-small` or `ollama:nomic-embed-text`; or use \
                 `backend: sqlite` for keyword search without embeddings",
            ));
        }
        MemoryBackend::Sqlite | MemoryBackend::Filesystem if model.is_some() => {
            out.push(agent.diagnostic(
                Severity::Warning,
                &field(agent, "config.embedding_model"),
                format!(
                    "backend `{}` searches by keyword and ignores `embedding_model`: use \
                     `backend: vector_store` to search by meaning too",
                    memory.backend
                ),
            ));
        }
        _ => {}
    }
}

/// The embedding model of `vector_store` resolves, to a provider that has an embeddings API
/// (part of the `model resolvable` check: it depends on the settings): the problems, or the
/// resolved model for the check's note.
pub(crate) fn embedding_model(
    agent: &LoadedAgent,
    settings: &Settings,
) -> (Vec<Diagnostic>, Option<String>) {
    let Some(model) = long_term(agent).and_then(LongTermMemory::embedding_model) else {
        return (Vec::new(), None);
    };
    let at = field(agent, "config.embedding_model");
    let resolved = match resolve_embedding_model(model, settings) {
        Ok(resolved) => resolved,
        Err(error) => {
            let problem = format!("embedding model: {error}");
            return (vec![agent.diagnostic(Severity::Error, &at, problem)], None);
        }
    };
    let kind = match settings.providers.get(&resolved.provider) {
        Some(config) => Some(config.kind),
        None => match resolved.provider.as_str() {
            "openai" | "ollama" => Some(ProviderKind::Openai),
            "gemini" => Some(ProviderKind::Gemini),
            _ => None,
        },
    };
    if matches!(kind, Some(ProviderKind::Openai | ProviderKind::Gemini)) {
        return (Vec::new(), Some(resolved.to_string()));
    }
    let problem = format!(
        "embedding model `{resolved}`: provider `{}` has no embeddings API; use an \
         OpenAI-compatible (openai, ollama, or a `kind: openai` provider) or a gemini model",
        resolved.provider
    );
    (vec![agent.diagnostic(Severity::Error, &at, problem)], None)
}

/// True when the agent declares long-term memory.
pub(crate) fn declares_long_term(agent: &LoadedAgent) -> bool {
    long_term(agent).is_some()
}
