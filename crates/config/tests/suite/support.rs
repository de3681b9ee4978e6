//! A throwaway agentctl home and project, independent of the real `HOME`.

#![expect(
    clippy::unwrap_used,
    reason = "a failed test setup should stop the test at once"
)]

use agentctl_config::{Locations, TrustStore, load_settings};
use std::path::{Path, PathBuf};
use tempfile::TempDir;

/// A temporary folder holding `home/` (the agentctl home) and `project/`.
pub struct Sandbox {
    _dir: TempDir,
    pub home: PathBuf,
    pub project: PathBuf,
}

impl Sandbox {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let project = dir.path().join("project");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(project.join(".agentctl")).unwrap();
        Self {
            _dir: dir,
            home,
            project,
        }
    }

    pub fn locations(&self) -> Locations {
        Locations {
            agentctl_home: self.home.clone(),
            user_home: None,
            project_root: Some(self.project.clone()),
        }
    }

    pub fn global_file(&self) -> PathBuf {
        self.home.join("settings.json")
    }

    pub fn project_file(&self) -> PathBuf {
        self.project.join(".agentctl/settings.json")
    }

    pub fn write_global(&self, text: &str) -> PathBuf {
        write(&self.global_file(), text)
    }

    pub fn write_project(&self, text: &str) -> PathBuf {
        write(&self.project_file(), text)
    }

    /// Trusts the project's policy files as they are now, as `agentctl trust` does.
    pub fn trust(&self) {
        let loaded = load_settings(&self.locations()).unwrap();
        TrustStore::new(&self.home)
            .trust_files(&self.project, loaded.policy_hashes)
            .unwrap();
    }
}

fn write(path: &Path, text: &str) -> PathBuf {
    std::fs::write(path, text).unwrap();
    path.to_path_buf()
}
