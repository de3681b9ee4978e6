//! Model providers for agentctl (being written).

mod provider;

pub use provider::{DeltaSink, ModelProvider, ProviderError};
