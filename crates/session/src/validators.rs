//! Guardrail validators a command-line user adds without Rust (issue-tracker seed 002's
//! `validator: custom`): each executable in `<project>/.agentctl/validators/` or
//! `$AGENTCTL_HOME/validators/` becomes the validator named after it, run like a `command:`
//! guardrail. The project's folder shadows the user's.

use crate::checks::semantic_checks_with;
use crate::project::Project;
use agentctl_definitions::Checks;
use agentctl_guardrails::{SkippedProgram, ValidatorRegistry};
use std::path::PathBuf;

impl Project {
    /// The folders validator programs are found in, the project's first.
    pub fn validator_dirs(&self) -> Vec<PathBuf> {
        let project = self
            .locations
            .project_root
            .as_ref()
            .map(|root| root.join(".agentctl").join("validators"));
        let user = self.locations.agentctl_home.join("validators");
        project.into_iter().chain([user]).collect()
    }

    /// The validator programs of the project and the user, with the files of their folders
    /// that are not validators and why.
    pub fn validator_programs(&self) -> (ValidatorRegistry, Vec<SkippedProgram>) {
        let mut registry = ValidatorRegistry::new();
        let skipped = self
            .validator_dirs()
            .iter()
            .flat_map(|dir| registry.add_programs_in(dir))
            .collect();
        (registry, skipped)
    }

    /// The checks this project's agent files are held to: every semantic check, with the
    /// project's and the user's validator programs known.
    pub fn checks(&self) -> Checks {
        semantic_checks_with(self.validator_programs().0)
            .with(crate::skills::SkillsCheck::new(self.skills()))
    }
}
