//! Model resolution: options > agent > settings, and clear errors.

use super::support::{Queue, agent, runtime_with, text};
use agentctl_core::{ModelProvider, ProviderError};
use agentctl_core::{ModelRef, Settings};
use agentctl_core::{RunError, RunEvent, RunOptions, ToolRegistry};
use agentctl_runtime::Runtime;
use futures_util::StreamExt;
use std::sync::{Arc, Mutex};

#[tokio::test]
async fn precedence_options_agent_settings() {
    let mut settings = Settings::default();
    settings.agents.default_model = Some("anthropic:claude-haiku-4-5".into());
    let runtime = runtime_with(settings, Queue::new(vec![]), ToolRegistry::new());
    let mut definition = agent("a");
    let model = runtime
        .resolve_model(&definition, &RunOptions::new().model("sonnet"))
        .unwrap();
    assert_eq!(model.to_string(), "anthropic:claude-sonnet-4-5");
    let model = runtime
        .resolve_model(&definition, &RunOptions::new())
        .unwrap();
    assert_eq!(model.to_string(), "openai:gpt-4o-mini");
    definition.spec.model = None;
    let model = runtime
        .resolve_model(&definition, &RunOptions::new())
        .unwrap();
    assert_eq!(model.to_string(), "anthropic:claude-haiku-4-5");
    definition.spec.model = Some("inherit".into());
    let model = runtime
        .resolve_model(&definition, &RunOptions::new())
        .unwrap();
    assert_eq!(model.to_string(), "anthropic:claude-haiku-4-5");
}

#[tokio::test]
async fn resolution_errors_are_clear_and_reported_as_run_failed() {
    let runtime = runtime_with(
        Settings::default(),
        Queue::new(vec![text("x")]),
        ToolRegistry::new(),
    );
    let mut definition = agent("reviewer");
    definition.spec.model = None;
    let error = runtime
        .run_to_completion(&definition, "hi", RunOptions::new())
        .await
        .unwrap_err();
    assert!(matches!(error, RunError::NoModel { .. }));
    assert_eq!(error.hint(), Some(agentctl_core::Hint::ChooseModel));
    assert_eq!(
        error.to_string(),
        "agent `reviewer` has no model: set `model:` in the agent file or `agents.defaultModel` in settings"
    );
    let mut handle = runtime.run(&definition, "hi", RunOptions::new().model("mystery"));
    let Some(RunEvent::RunFailed { error }) = handle.next().await else {
        panic!()
    };
    assert!(
        error.starts_with("agent `reviewer`: cannot tell which provider serves model `mystery`"),
        "{error}"
    );
    assert!(handle.next().await.is_none());
    let error = runtime
        .run_to_completion(&definition, "hi", RunOptions::new().model("vllm:qwen"))
        .await
        .unwrap_err();
    assert!(
        error.to_string().contains("unknown provider `vllm`"),
        "{error}"
    );
}

#[tokio::test]
async fn provider_build_errors_pass_through_and_providers_are_cached() {
    let built = Arc::new(Mutex::new(Vec::<ModelRef>::new()));
    let seen = built.clone();
    let runtime = Runtime::new(
        Settings::default(),
        move |model: &ModelRef, _: &Settings| -> Result<Arc<dyn ModelProvider>, ProviderError> {
            seen.lock().unwrap().push(model.clone());
            if model.provider == "anthropic" {
                return Err(ProviderError::MissingApiKey {
                    provider: "anthropic".into(),
                    model: model.model.clone(),
                    env_var: "ANTHROPIC_API_KEY".into(),
                });
            }
            Ok(Queue::new(vec![text("a"), text("b")]))
        },
        ToolRegistry::new(),
    );
    let error = runtime
        .run_to_completion(&agent("a"), "hi", RunOptions::new().model("haiku"))
        .await
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "anthropic: no API key for model `claude-haiku-4-5`: set ANTHROPIC_API_KEY"
    );
    assert!(!error.is_retryable());
    assert_eq!(
        runtime
            .run_to_completion(&agent("a"), "1", RunOptions::new())
            .await
            .unwrap()
            .text,
        "a"
    );
    assert_eq!(
        runtime
            .run_to_completion(&agent("a"), "2", RunOptions::new())
            .await
            .unwrap()
            .text,
        "b"
    );
    assert_eq!(built.lock().unwrap().len(), 2);
}

#[tokio::test]
async fn a_relative_cassette_is_the_run_working_directorys_file() {
    let built = Arc::new(Mutex::new(Vec::<ModelRef>::new()));
    let seen = built.clone();
    let queue = Queue::new(vec![text("a"), text("b"), text("c")]);
    let runtime = Runtime::new(
        Settings::default(),
        move |model: &ModelRef, _: &Settings| -> Result<Arc<dyn ModelProvider>, ProviderError> {
            seen.lock().unwrap().push(model.clone());
            Ok(Arc::clone(&queue) as Arc<dyn ModelProvider>)
        },
        ToolRegistry::new(),
    );
    let definition = agent("reviewer");
    // The fake provider reads nothing: any directory will do.
    let dir = std::env::temp_dir().join("agentctl-project");
    let in_dir = RunOptions::new()
        .model("scripted:cassettes/review.yaml")
        .working_dir(&dir);
    let result = runtime
        .run_to_completion(&definition, "hi", in_dir)
        .await
        .unwrap();
    // The label stays as written; the provider gets the run's file.
    assert_eq!(result.metadata.model, "scripted:cassettes/review.yaml");
    // Absolute paths and hosted models are left alone; without a working directory, the
    // process's is the run's.
    for model in ["scripted:/abs/review.yaml", "openai:gpt-4o"] {
        let options = RunOptions::new().model(model).working_dir(&dir);
        runtime
            .run_to_completion(&definition, "hi", options)
            .await
            .unwrap();
    }
    let built = built.lock().unwrap();
    let expected = dir.join("cassettes/review.yaml");
    assert_eq!(built[0].model, expected.to_string_lossy());
    assert_eq!(built[1].to_string(), "scripted:/abs/review.yaml");
    assert_eq!(built[2].to_string(), "openai:gpt-4o");
}
