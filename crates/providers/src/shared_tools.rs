//! A provider's serialised tool specs, kept once per tool set and spliced into every request
//! body that offers the set.
//!
//! The runtime shares one `Arc<[ToolSpec]>` between the runs of a tool set; a waiting run keeps
//! its request body for retries, and without this each body held its own copy of the tools as
//! JSON text (6.7 KB for the built-in tools).

use agentctl_core::ToolNames;
use agentctl_core::ToolSpec;
use bytes::Bytes;
use std::sync::{Arc, Mutex, Weak};

/// How many tool sets are kept: enough for every agent of a session, and bounded whatever
/// the runs.
const MAX_SETS: usize = 16;

/// Serialised tool sets, most recent last.
#[derive(Debug, Default)]
pub(crate) struct SharedTools {
    sets: Mutex<Vec<Serialised>>,
}

#[derive(Debug)]
struct Serialised {
    /// The specs serialised. Weak, so the cache keeps no schemas alive; while it exists the
    /// allocation is not freed, so its address names this set and no other.
    specs: Weak<[ToolSpec]>,
    /// The wire names the bytes were written with (a request's history can change them).
    wire_names: Vec<String>,
    bytes: Bytes,
}

impl Serialised {
    fn matches(&self, specs: &Arc<[ToolSpec]>, names: &ToolNames) -> bool {
        std::ptr::addr_eq(self.specs.as_ptr(), Arc::as_ptr(specs))
            && self.wire_names.len() == specs.len()
            && self
                .wire_names
                .iter()
                .zip(specs.iter())
                .all(|(wire, spec)| wire == names.wire(&spec.name))
    }
}

impl SharedTools {
    /// The tools of `specs` under `names` as `serialise` writes them, serialised once per set
    /// while the set is in use.
    pub fn bytes(
        &self,
        specs: &Arc<[ToolSpec]>,
        names: &ToolNames,
        serialise: impl FnOnce() -> Vec<u8>,
    ) -> Bytes {
        if let Ok(sets) = self.sets.lock()
            && let Some(set) = sets.iter().find(|set| set.matches(specs, names))
        {
            return set.bytes.clone();
        }
        let bytes = Bytes::from(serialise());
        if let Ok(mut sets) = self.sets.lock() {
            sets.retain(|set| set.specs.strong_count() > 0);
            if !sets.iter().any(|set| set.matches(specs, names)) {
                if sets.len() >= MAX_SETS {
                    sets.remove(0);
                }
                sets.push(Serialised {
                    specs: Arc::downgrade(specs),
                    wire_names: specs
                        .iter()
                        .map(|spec| names.wire(&spec.name).to_owned())
                        .collect(),
                    bytes: bytes.clone(),
                });
            }
        }
        bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn specs(names: &[&str]) -> Arc<[ToolSpec]> {
        names
            .iter()
            .map(|name| ToolSpec {
                name: (*name).to_owned(),
                description: String::new(),
                parameters: json!({"type": "object"}),
            })
            .collect()
    }

    #[test]
    fn a_set_is_serialised_once_per_set_and_names() {
        let cache = SharedTools::default();
        let set = specs(&["a", "mcp.x.y"]);
        let plain = ToolNames::default();
        let mut calls = 0;
        let mut serialise = || {
            calls += 1;
            b"[1]".to_vec()
        };
        let first = cache.bytes(&set, &plain, &mut serialise);
        let again = cache.bytes(&set, &plain, &mut serialise);
        assert_eq!(first.as_ptr(), again.as_ptr());
        // Other wire names, or an equal set in another allocation: serialised again.
        cache.bytes(&set, &ToolNames::new(["a", "mcp.x.y"]), &mut serialise);
        cache.bytes(&specs(&["a", "mcp.x.y"]), &plain, &mut serialise);
        assert_eq!(calls, 3);
    }

    #[test]
    fn sets_no_run_uses_are_let_go() {
        let cache = SharedTools::default();
        for _ in 0..MAX_SETS + 3 {
            cache.bytes(&specs(&["a"]), &ToolNames::default(), Vec::new);
        }
        let kept = specs(&["b"]);
        cache.bytes(&kept, &ToolNames::default(), Vec::new);
        assert_eq!(cache.sets.lock().unwrap().len(), 1);
    }
}
