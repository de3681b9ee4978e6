//! The tool specs runs offer their model, built once per set of tools and shared by every run
//! that offers that set.
//!
//! A spec's JSON Schema is a `serde_json::Value` tree: the eight built-in tools hold about
//! 36 KB of heap as specs (6.7 KB as JSON text). Built per run, that copy was most of what an
//! idle run held; shared, a run holds a pointer.

use agentctl_core::{Tool, ToolSpec, spec_of};
use std::sync::{Arc, Mutex};

/// How many different tool sets (one per distinct allow/deny outcome) are kept; past it the
/// oldest is dropped and built again when next asked for, so memory stays bounded whatever
/// the agents' filters.
const MAX_SETS: usize = 32;

/// The specs of the tool sets a runtime's runs offered, most recent last.
#[derive(Debug, Default)]
pub(crate) struct SpecCache {
    sets: Mutex<Vec<Arc<[ToolSpec]>>>,
}

impl SpecCache {
    /// The specs of `tools` (a filtered subset of one registry, in its order), shared.
    ///
    /// Tools are matched by name: within one registry a name is one tool.
    pub fn specs(&self, tools: &[Arc<dyn Tool>]) -> Arc<[ToolSpec]> {
        if tools.is_empty() {
            return Arc::default();
        }
        let same = |set: &Arc<[ToolSpec]>| {
            set.len() == tools.len()
                && set
                    .iter()
                    .zip(tools)
                    .all(|(spec, tool)| spec.name == tool.name())
        };
        if let Ok(sets) = self.sets.lock()
            && let Some(set) = sets.iter().find(|set| same(set))
        {
            return Arc::clone(set);
        }
        // Built outside the lock: two first runs at once both build, and either result serves.
        let set: Arc<[ToolSpec]> = tools.iter().map(|tool| spec_of(tool.as_ref())).collect();
        if let Ok(mut sets) = self.sets.lock()
            && !sets.iter().any(same)
        {
            if sets.len() >= MAX_SETS {
                sets.remove(0);
            }
            sets.push(Arc::clone(&set));
        }
        set
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentctl_core::{ToolContext, ToolError, ToolOutput};
    use async_trait::async_trait;
    use serde_json::{Value, json};

    struct Named(&'static str);

    #[async_trait]
    impl Tool for Named {
        fn name(&self) -> &str {
            self.0
        }
        fn description(&self) -> &str {
            "A tool."
        }
        fn parameters(&self) -> Value {
            json!({"type": "object"})
        }
        async fn call(&self, _: Value, _: &ToolContext) -> Result<ToolOutput, ToolError> {
            Ok(ToolOutput::text(""))
        }
    }

    fn tools(names: &[&'static str]) -> Vec<Arc<dyn Tool>> {
        names
            .iter()
            .map(|name| Arc::new(Named(name)) as Arc<dyn Tool>)
            .collect()
    }

    #[test]
    fn one_set_is_built_once_and_shared() {
        let cache = SpecCache::default();
        let all = tools(&["a", "b", "c"]);
        let first = cache.specs(&all);
        let again = cache.specs(&all);
        assert!(Arc::ptr_eq(&first, &again));
        assert_eq!(first[1], spec_of(all[1].as_ref()));
        let some = cache.specs(&all[..2]);
        assert_eq!(some.len(), 2);
        assert!(!Arc::ptr_eq(&first, &some));
        assert!(Arc::ptr_eq(&some, &cache.specs(&all[..2])));
        assert!(cache.specs(&[]).is_empty());
    }

    #[test]
    fn the_number_of_sets_kept_is_bounded() {
        let cache = SpecCache::default();
        let names: Vec<&'static str> = (0..MAX_SETS + 5)
            .map(|index| &*Box::leak(format!("tool_{index}").into_boxed_str()))
            .collect();
        let all = tools(&names);
        for index in 0..all.len() {
            cache.specs(&all[index..=index]);
        }
        assert_eq!(cache.sets.lock().unwrap().len(), MAX_SETS);
        assert_eq!(cache.specs(&all[..1])[0].name, "tool_0");
    }
}
