//! The tool registry (type-erased tools by name) and the per-agent tool filter.

use crate::conversation::ToolSpec;
use crate::tool::{Tool, TypedAdapter, TypedTool};
use crate::tool_filter::ToolFilter;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Every tool a runtime can offer, by name.
///
/// Which of them an agent actually sees is decided per run by a [`ToolFilter`] built from the
/// agent's `tools.allow` / `tools.deny` lists.
#[derive(Clone, Default)]
pub struct ToolRegistry {
    tools: BTreeMap<String, Arc<dyn Tool>>,
}

impl std::fmt::Debug for ToolRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.tools.keys()).finish()
    }
}

impl ToolRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a tool, replacing (and returning) any tool of the same name.
    pub fn register(&mut self, tool: impl Tool + 'static) -> Option<Arc<dyn Tool>> {
        self.register_arc(Arc::new(tool))
    }

    /// Adds a shared tool, replacing (and returning) any tool of the same name.
    pub fn register_arc(&mut self, tool: Arc<dyn Tool>) -> Option<Arc<dyn Tool>> {
        self.tools.insert(tool.name().to_owned(), tool)
    }

    /// Adds a typed tool; its JSON Schema is derived from its argument type once, here.
    pub fn register_typed<T: TypedTool>(&mut self, tool: T) -> Option<Arc<dyn Tool>> {
        self.register(TypedAdapter::new(tool))
    }

    /// The tool of that name.
    pub fn get(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        self.tools.get(name)
    }

    /// True when a tool of that name is registered.
    pub fn contains(&self, name: &str) -> bool {
        self.tools.contains_key(name)
    }

    /// Tool names, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.tools.keys().map(String::as_str)
    }

    /// Number of tools.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// True when no tool is registered.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// Specs of every tool, sorted by name, as offered to a model.
    pub fn specs(&self) -> Vec<ToolSpec> {
        self.tools
            .values()
            .map(|tool| spec_of(tool.as_ref()))
            .collect()
    }

    /// The tools a filter lets through, sorted by name.
    pub fn filtered(&self, filter: &ToolFilter) -> Vec<Arc<dyn Tool>> {
        self.tools
            .iter()
            .filter(|(name, _)| filter.allows(name))
            .map(|(_, tool)| Arc::clone(tool))
            .collect()
    }

    /// Every tool, sorted by name.
    pub fn iter(&self) -> impl Iterator<Item = &Arc<dyn Tool>> {
        self.tools.values()
    }
}

/// The spec a model sees for a tool.
pub fn spec_of(tool: &dyn Tool) -> ToolSpec {
    ToolSpec {
        name: tool.name().to_owned(),
        description: tool.description().to_owned(),
        parameters: tool.parameters(),
    }
}
