//! `permissions.*` as written (agentctl's own files and Claude Code's): the rule lists, with
//! the rules agentctl cannot map taken out and reported.

use crate::ConfigWarning;
use agentctl_core::PermissionRule;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// `permissions.*` as written: rules in Claude Code's syntax.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(in crate::settings) struct RawPermissions {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    allow: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    ask: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    deny: Option<Vec<String>>,
}

impl RawPermissions {
    /// Leaves out the rules agentctl cannot map, each reported with the file.
    pub(in crate::settings) fn take_unmapped(&mut self, path: &Path) -> Vec<ConfigWarning> {
        let mut warnings = Vec::new();
        let lists = [
            ("permissions.allow", &mut self.allow),
            ("permissions.ask", &mut self.ask),
            ("permissions.deny", &mut self.deny),
        ];
        for (key, list) in lists {
            let Some(rules) = list.as_mut() else { continue };
            rules.retain(|rule| match PermissionRule::parse(rule) {
                Ok(_) => true,
                Err(error) => {
                    warnings.push(ConfigWarning::UnmappedRule {
                        path: path.to_path_buf(),
                        key: key.to_owned(),
                        rule: error.rule,
                        reason: error.reason,
                    });
                    false
                }
            });
        }
        warnings
    }
}
