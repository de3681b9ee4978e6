//! What every command needs: where files live and the resolved settings.

use crate::args::GlobalArgs;
use agentctl_config::{LoadedSettings, Locations, load_settings};
use anyhow::Context as _;

/// Locations and settings, resolved once per invocation.
pub(crate) struct CommandContext {
    pub locations: Locations,
    pub settings: LoadedSettings,
}

impl CommandContext {
    /// Resolves locations from the global flags and loads the settings layers.
    pub fn load(global: &GlobalArgs) -> anyhow::Result<Self> {
        let cwd = std::env::current_dir().context("cannot read the current directory")?;
        if let Some(dir) = &global.project_dir {
            anyhow::ensure!(
                dir.is_dir(),
                "--project-dir {}: no such directory",
                dir.display()
            );
        }
        let locations = Locations::discover(global.project_dir.as_deref(), &cwd);
        let settings = load_settings(&locations)?;
        Ok(Self {
            locations,
            settings,
        })
    }
}
