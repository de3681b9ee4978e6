//! `plugins add` and `plugins update`: fetching a plugin or a marketplace's plugins and
//! putting each in place, the registry written once at the end.

use super::fetch::{GIT_TIMEOUT, Source, classify, clone, copy_plugin};
use super::marketplace::{MarketplaceEntry, is_marketplace, read_marketplace};
use super::{PluginChange, PluginOpError, now, write_registry};
use crate::project::Project;
use agentctl_core::Scope;
use agentctl_definitions::{
    InstalledPlugin, MANIFEST_DIR, PLUGIN_MANIFEST, PluginOrigin, PluginRecord, PluginRoot,
    Registry, read_plugin_manifest, read_registry,
};
use std::path::{Path, PathBuf};

/// What `plugins add` installs.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PluginAddRequest {
    /// A plugin folder, a marketplace folder, or a git URL of either.
    pub source: String,
    /// The marketplace's plugins to install, by name.
    pub plugins: Vec<String>,
    /// Install every plugin of the marketplace.
    pub all: bool,
    /// Into the project's plugins folder or the user's.
    pub scope: Scope,
}

impl PluginAddRequest {
    /// Installs what `source` is into `scope`'s plugins folder.
    pub fn new(source: impl Into<String>, scope: Scope) -> Self {
        Self {
            source: source.into(),
            plugins: Vec::new(),
            all: false,
            scope,
        }
    }

    /// Chooses the marketplace's plugins `names` (`all` for every one).
    pub fn choose(mut self, names: Vec<String>, all: bool) -> Self {
        self.plugins = names;
        self.all = all;
        self
    }
}

/// A source's files on disk: a local folder, or a clone that lives as long as this.
struct Fetched {
    root: PathBuf,
    _clone: Option<tempfile::TempDir>,
}

fn fetch(source: &Source) -> Result<Fetched, PluginOpError> {
    match source {
        Source::Folder(path) => Ok(Fetched {
            root: path.canonicalize().map_err(|source| PluginOpError::Io {
                path: path.clone(),
                source,
            })?,
            _clone: None,
        }),
        Source::Git(url) => {
            let temp = tempfile::tempdir().map_err(|source| PluginOpError::Io {
                path: std::env::temp_dir(),
                source,
            })?;
            let into = temp.path().join("clone");
            clone(url, &into, GIT_TIMEOUT)?;
            Ok(Fetched {
                root: into.canonicalize().map_err(|source| PluginOpError::Io {
                    path: into.clone(),
                    source,
                })?,
                _clone: Some(temp),
            })
        }
    }
}

/// Where a source is, as the registry records it.
fn location(source: &Source) -> (String, bool) {
    match source {
        Source::Folder(path) => (path.display().to_string(), false),
        Source::Git(url) => (url.clone(), true),
    }
}

/// The plugins folder being installed into and its registry.
struct Target {
    dir: PathBuf,
    registry: Registry,
    scope: Scope,
    /// Replace an installed plugin (an update) rather than refuse.
    replace: bool,
}

impl Target {
    /// Puts the plugin in `folder` in place as `name` (`entry` describing it when it has no
    /// manifest of its own) and records it.
    fn install(
        &mut self,
        folder: &Path,
        name: Option<&str>,
        entry: Option<&MarketplaceEntry>,
        origin: PluginOrigin,
    ) -> Result<PluginChange, PluginOpError> {
        let manifest = if folder.join(MANIFEST_DIR).join(PLUGIN_MANIFEST).is_file() {
            Some(read_plugin_manifest(folder)?)
        } else if entry.is_some() {
            None
        } else {
            return Err(PluginOpError::NotAPlugin(folder.to_path_buf()));
        };
        let name = name
            .or(manifest.as_ref().map(|m| m.name.as_str()))
            .unwrap_or_default()
            .to_owned();
        let previous = self.registry.plugins.get(&name).cloned();
        if previous.is_some() && !self.replace {
            return Err(PluginOpError::AlreadyInstalled {
                name,
                dir: self.dir.clone(),
            });
        }
        place(&self.dir, &name, folder)?;
        let pick = |from_manifest: Option<String>, from_entry: Option<&String>| {
            from_manifest.or_else(|| from_entry.cloned())
        };
        let record = PluginRecord {
            name: name.clone(),
            version: pick(
                manifest.as_ref().and_then(|m| m.version.clone()),
                entry.and_then(|e| e.version.as_ref()),
            ),
            description: pick(
                manifest.as_ref().and_then(|m| m.description.clone()),
                entry.and_then(|e| e.description.as_ref()),
            ),
            origin,
            enabled: previous.as_ref().is_some_and(|p| p.enabled),
            installed_at: previous.as_ref().map_or_else(now, |p| p.installed_at),
            updated_at: previous.is_some().then(now),
        };
        self.registry.plugins.insert(name, record.clone());
        let root = PluginRoot {
            path: self.dir.clone(),
            scope: self.scope,
        };
        let runs_code =
            InstalledPlugin::open(&root, record.clone()).is_ok_and(|plugin| plugin.runs_code());
        Ok(PluginChange {
            record,
            scope: self.scope,
            runs_code,
        })
    }
}

/// Copies `folder` to `dir/name` through a staging folder, replacing what was there.
fn place(dir: &Path, name: &str, folder: &Path) -> Result<(), PluginOpError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| PluginOpError::Io { path, source }
    };
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let staging = tempfile::Builder::new()
        .prefix(".staging-")
        .tempdir_in(dir)
        .map_err(io(dir))?;
    let copy = staging.path().join(name);
    copy_plugin(folder, &copy)?;
    let target = dir.join(name);
    let old = staging.path().join(".old");
    let replacing = std::fs::symlink_metadata(&target).is_ok();
    if replacing {
        std::fs::rename(&target, &old).map_err(io(&target))?;
    }
    if let Err(error) = std::fs::rename(&copy, &target) {
        if replacing {
            // Put the installed copy back rather than lose it with the staging folder.
            let _ = std::fs::rename(&old, &target);
        }
        return Err(io(&target)(error));
    }
    // The staging folder, with the old copy in it, goes when dropped.
    Ok(())
}

impl Project {
    /// Installs what `request.source` is: a plugin, or the plugins chosen of a marketplace.
    /// Relative folders are relative to `cwd`. Nothing installed runs code until enabled.
    pub fn add_plugins(
        &self,
        request: &PluginAddRequest,
        cwd: &Path,
    ) -> Result<Vec<PluginChange>, PluginOpError> {
        let dir = self.plugins_dir(request.scope)?;
        let mut target = Target {
            registry: read_registry(&dir)?,
            dir,
            scope: request.scope,
            replace: false,
        };
        let source = classify(&request.source, cwd)?;
        let fetched = fetch(&source)?;
        let (location, git) = location(&source);
        let changes = if is_marketplace(&fetched.root) {
            let marketplace = read_marketplace(&fetched.root)?;
            let chosen = choose(&marketplace, &request.plugins, request.all)?;
            let mut changes = Vec::with_capacity(chosen.len());
            for entry in chosen {
                let origin = PluginOrigin {
                    location: location.clone(),
                    git,
                    marketplace: Some(marketplace.name.clone()),
                };
                changes.push(install_entry(&mut target, &fetched.root, entry, origin)?);
            }
            changes
        } else if !request.plugins.is_empty() || request.all {
            return Err(PluginOpError::NotAMarketplace(fetched.root.clone()));
        } else {
            let origin = PluginOrigin {
                location,
                git,
                marketplace: None,
            };
            vec![target.install(&fetched.root, None, None, origin)?]
        };
        write_registry(&target.dir, &target.registry)?;
        Ok(changes)
    }

    /// Fetches again, from where each was installed from, the plugin `name` or every
    /// installed plugin, and puts the new files in place (enabled or not as before).
    pub fn update_plugins(&self, name: Option<&str>) -> Result<Vec<PluginChange>, PluginOpError> {
        let installed = self.plugins();
        if let Some(name) = name
            && installed.get(name).is_none()
        {
            return Err(PluginOpError::NotInstalled(name.to_owned()));
        }
        let mut changes = Vec::new();
        for scope in [Scope::Project, Scope::Global] {
            let wanted: Vec<_> = installed
                .plugins
                .iter()
                .filter(|p| p.scope == scope && name.is_none_or(|name| p.name() == name))
                .collect();
            if wanted.is_empty() {
                continue;
            }
            let dir = self.plugins_dir(scope)?;
            let mut target = Target {
                registry: read_registry(&dir)?,
                dir,
                scope,
                replace: true,
            };
            for plugin in wanted {
                changes.push(update_one(&mut target, &plugin.record)?);
            }
            write_registry(&target.dir, &target.registry)?;
        }
        Ok(changes)
    }
}

/// The entries of `marketplace` named in `names` (all with `all`).
fn choose<'a>(
    marketplace: &'a super::marketplace::Marketplace,
    names: &[String],
    all: bool,
) -> Result<Vec<&'a MarketplaceEntry>, PluginOpError> {
    let available = || marketplace.plugins.iter().map(|e| e.name.clone()).collect();
    if all {
        return Ok(marketplace.plugins.iter().collect());
    }
    if names.is_empty() {
        return Err(PluginOpError::NothingChosen {
            marketplace: marketplace.name.clone(),
            available: available(),
        });
    }
    names
        .iter()
        .map(|name| {
            marketplace
                .plugins
                .iter()
                .find(|entry| &entry.name == name)
                .ok_or_else(|| PluginOpError::NoSuchPlugin {
                    name: name.clone(),
                    marketplace: marketplace.name.clone(),
                    available: available(),
                })
        })
        .collect()
}

/// Installs one marketplace entry: a folder of the marketplace at `root`, or its own clone.
fn install_entry(
    target: &mut Target,
    root: &Path,
    entry: &MarketplaceEntry,
    origin: PluginOrigin,
) -> Result<PluginChange, PluginOpError> {
    let source = entry.locate(root)?;
    let fetched = fetch(&source)?;
    target.install(&fetched.root, Some(&entry.name), Some(entry), origin)
}

/// Fetches `record`'s origin again and replaces the plugin with what it holds now.
fn update_one(target: &mut Target, record: &PluginRecord) -> Result<PluginChange, PluginOpError> {
    let origin = &record.origin;
    let source = if origin.git {
        Source::Git(origin.location.clone())
    } else {
        Source::Folder(PathBuf::from(&origin.location))
    };
    let fetched = fetch(&source)?;
    if origin.marketplace.is_some() {
        let marketplace = read_marketplace(&fetched.root)?;
        let chosen = choose(&marketplace, std::slice::from_ref(&record.name), false)?;
        let entry = chosen
            .into_iter()
            .next()
            .ok_or_else(|| PluginOpError::NotInstalled(record.name.clone()))?;
        install_entry(target, &fetched.root, entry, origin.clone())
    } else {
        target.install(&fetched.root, Some(&record.name), None, origin.clone())
    }
}
