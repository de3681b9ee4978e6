//! The folders agentctl reads: its home, the user's home and the project root.

use std::path::{Path, PathBuf};

/// Environment variable that overrides the agentctl home (default `~/.agentctl`).
pub const HOME_ENV: &str = "AGENTCTL_HOME";

/// Folders whose presence marks a project root, checked from the working directory upwards.
pub const PROJECT_MARKERS: &[&str] = &[".agentctl", ".claude", ".gemini", ".git"];

/// Where agentctl looks for agents and settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Locations {
    /// agentctl's own home: global agents in `agents/`, global `settings.json`.
    pub agentctl_home: PathBuf,
    /// The user's home, for `~/.claude/agents` and `~/.gemini/agents`; `None` if unknown.
    pub user_home: Option<PathBuf>,
    /// The project root; `None` outside any project.
    pub project_root: Option<PathBuf>,
}

impl Locations {
    /// Finds the locations from the environment.
    ///
    /// `project_dir` (the `--project-dir` flag) wins; otherwise the project root is the first
    /// folder from `cwd` upwards that holds one of [`PROJECT_MARKERS`], stopping before the
    /// user's home so that `~/.claude` is never taken for a project.
    pub fn discover(project_dir: Option<&Path>, cwd: &Path) -> Self {
        let user_home = dirs::home_dir();
        let agentctl_home = std::env::var_os(HOME_ENV)
            .filter(|value| !value.is_empty())
            .map(PathBuf::from)
            .or_else(|| user_home.as_ref().map(|home| home.join(".agentctl")))
            .unwrap_or_else(|| PathBuf::from(".agentctl"));
        let project_root = match project_dir {
            Some(dir) => Some(absolute(dir, cwd)),
            None => find_project_root(cwd, user_home.as_deref()),
        };
        Self {
            agentctl_home,
            user_home,
            project_root,
        }
    }

    /// The global agents folder, `$AGENTCTL_HOME/agents`.
    pub fn global_agents_dir(&self) -> PathBuf {
        self.agentctl_home.join("agents")
    }

    /// The project agents folder, `<project>/.agentctl/agents`, if there is a project.
    pub fn project_agents_dir(&self) -> Option<PathBuf> {
        self.project_root
            .as_ref()
            .map(|root| root.join(".agentctl").join("agents"))
    }

    /// The global settings file, `$AGENTCTL_HOME/settings.json`.
    pub fn global_settings_file(&self) -> PathBuf {
        self.agentctl_home.join("settings.json")
    }

    /// Gemini CLI's user settings, `~/.gemini/settings.json`, if the home folder is known.
    pub fn gemini_global_settings_file(&self) -> Option<PathBuf> {
        self.user_home
            .as_ref()
            .map(|home| home.join(".gemini").join("settings.json"))
    }

    /// The project settings file, `<project>/.agentctl/settings.json`, if there is a project.
    pub fn project_settings_file(&self) -> Option<PathBuf> {
        self.project_root
            .as_ref()
            .map(|root| root.join(".agentctl").join("settings.json"))
    }
}

fn absolute(dir: &Path, cwd: &Path) -> PathBuf {
    let joined = if dir.is_absolute() {
        dir.to_path_buf()
    } else {
        cwd.join(dir)
    };
    joined.canonicalize().unwrap_or(joined)
}

fn find_project_root(cwd: &Path, user_home: Option<&Path>) -> Option<PathBuf> {
    cwd.ancestors()
        .take_while(|dir| Some(*dir) != user_home)
        .find(|dir| {
            PROJECT_MARKERS
                .iter()
                .any(|marker| dir.join(marker).exists())
        })
        .map(Path::to_path_buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn project_root_is_found_upwards_but_not_at_home() {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("home");
        let project = home.join("work/app");
        std::fs::create_dir_all(project.join("src/deep")).unwrap();
        std::fs::create_dir_all(home.join(".claude/agents")).unwrap();
        std::fs::create_dir_all(project.join(".git")).unwrap();
        let found = find_project_root(&project.join("src/deep"), Some(&home));
        assert_eq!(found.as_deref(), Some(project.as_path()));
        let outside = home.join("elsewhere");
        std::fs::create_dir_all(&outside).unwrap();
        assert_eq!(find_project_root(&outside, Some(&home)), None);
    }
}
