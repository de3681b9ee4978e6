//! Runtimes over the shared in-process fakes of agentctl-test-support.

use agentctl_core::{ModelProvider, Settings, ToolRegistry};
use agentctl_runtime::Runtime;
pub use agentctl_test_support::{QueueProvider as Queue, agent, calls, collect, kinds, text};
use std::sync::Arc;

pub fn runtime(provider: Arc<Queue>, tools: ToolRegistry) -> Runtime {
    runtime_with(Settings::default(), provider, tools)
}

pub fn runtime_with(settings: Settings, provider: Arc<Queue>, tools: ToolRegistry) -> Runtime {
    Runtime::new(
        settings,
        move |_: &agentctl_core::ModelRef, _: &Settings| {
            Ok(Arc::clone(&provider) as Arc<dyn ModelProvider>)
        },
        tools,
    )
}
