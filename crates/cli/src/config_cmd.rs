//! `agentctl config show`: the resolved settings, and with `--origin` the layer that set each
//! value.
//!
//! Text output is one `key = value` line per leaf setting, grouped by top-level section, after
//! a header saying which settings files were read. JSON output is the resolved settings object
//! (a valid `settings.json`), or with `--origin` `{settings, layers, origins}`. Unknown keys in
//! the files are reported on stderr.

use crate::args::{ConfigCommand, ConfigShowArgs, GlobalArgs, TextFormat};
use crate::output::{print_json, terminal_safe};
use agentctl_session::config::{ConfigWarning, LoadedSettings, Locations, SettingsLayer};
use serde_json::{Map, Value, json};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Runs `agentctl config …`.
pub(crate) fn run(global: &GlobalArgs, command: ConfigCommand) -> anyhow::Result<ExitCode> {
    match command {
        ConfigCommand::Show(args) => show(global, &args),
    }
}

fn show(global: &GlobalArgs, args: &ConfigShowArgs) -> anyhow::Result<ExitCode> {
    let context = crate::context::load_quiet(global)?;
    let loaded = &context.settings;
    {
        let mut err = std::io::stderr().lock();
        for warning in &loaded.warnings {
            if let ConfigWarning::UnknownKey { .. }
            | ConfigWarning::UnknownValue { .. }
            | ConfigWarning::NotRead { .. }
            | ConfigWarning::UnmappedRule { .. }
            | ConfigWarning::UserOnly { .. } = warning
            {
                writeln!(err, "warning: {}", terminal_safe(&warning.to_string()))?;
            }
        }
    }
    crate::loosening::warn_ignored(loaded, context.root());
    match args.format {
        TextFormat::Text => {
            let paths = PathStyle::from_env(&context.locations);
            let text = render_text(loaded, &context.locations, &paths, args.origin);
            std::io::stdout().lock().write_all(text.as_bytes())?;
        }
        TextFormat::Json if args.origin => print_json(&render_json(loaded))?,
        TextFormat::Json => print_json(&loaded.to_value())?,
    }
    Ok(ExitCode::SUCCESS)
}

/// Lines longer than this do not widen the column of `--origin` comments.
const MAX_ALIGNED_WIDTH: usize = 64;

/// A settings file looked for, in precedence order.
struct Source<'a> {
    layer: &'a SettingsLayer,
    found: bool,
}

/// Every layer, applied or missing, lowest precedence first.
fn sources(loaded: &LoadedSettings) -> Vec<Source<'_>> {
    let mut sources: Vec<_> = loaded
        .layers
        .iter()
        .map(|layer| Source { layer, found: true })
        .chain(loaded.missing.iter().map(|layer| Source {
            layer,
            found: false,
        }))
        .collect();
    sources.sort_by_key(|source| source.layer.rank());
    sources
}

/// How paths are shown to people: `~/…` under the home folder, relative under the current
/// directory, absolute elsewhere.
struct PathStyle {
    home: Option<PathBuf>,
    cwd: Option<PathBuf>,
}

impl PathStyle {
    fn from_env(locations: &Locations) -> Self {
        Self {
            home: locations.user_home.clone(),
            cwd: std::env::current_dir().ok(),
        }
    }

    fn show(&self, path: &Path) -> String {
        if let Some(relative) = self
            .cwd
            .as_deref()
            .and_then(|cwd| path.strip_prefix(cwd).ok())
        {
            return relative.display().to_string();
        }
        if let Some(relative) = self
            .home
            .as_deref()
            .and_then(|home| path.strip_prefix(home).ok())
        {
            return format!("~/{}", relative.display());
        }
        path.display().to_string()
    }

    fn layer(&self, layer: &SettingsLayer) -> String {
        match layer.path() {
            Some(path) => format!("{}: {}", layer.name(), self.show(path)),
            None => layer.name().to_owned(),
        }
    }
}

fn render_text(
    loaded: &LoadedSettings,
    locations: &Locations,
    paths: &PathStyle,
    origin: bool,
) -> String {
    let mut out = String::from("# settings layers, later ones win:\n");
    for source in sources(loaded) {
        let (name, place) = match source.layer.path() {
            None => (source.layer.name(), "built-in".to_owned()),
            Some(path) if source.found => (source.layer.name(), paths.show(path)),
            Some(path) => (
                source.layer.name(),
                format!("{} (not found)", paths.show(path)),
            ),
        };
        out.push_str(&format!("#   {name:<8} {place}\n"));
    }
    if locations.project_root.is_none() {
        out.push_str("#   project  none (not inside a project)\n");
    }

    let lines: Vec<_> = loaded
        .entries()
        .into_iter()
        .map(|entry| {
            let section = entry.key.split('.').next().unwrap_or_default().to_owned();
            let line = format!("{} = {}", entry.key, show_value(&entry.value));
            (section, line, paths.layer(entry.origin))
        })
        .collect();
    // Origins line up in one column, except after the odd very long value, which would push
    // every comment off the screen.
    let width = lines
        .iter()
        .map(|(_, line, _)| line.chars().count())
        .filter(|width| *width <= MAX_ALIGNED_WIDTH)
        .max()
        .unwrap_or(0);
    let mut previous = None;
    for (section, line, layer) in &lines {
        if previous != Some(section) {
            out.push('\n');
            previous = Some(section);
        }
        if origin {
            out.push_str(&format!("{line:<width$}  # {layer}\n"));
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    if origin {
        render_ignored(&mut out, loaded, paths);
    }
    render_unmapped(&mut out, loaded, paths);
    terminal_safe(&out).into_owned()
}

/// The permission rules agentctl cannot map, with their files: listed, never dropped
/// silently.
fn render_unmapped(out: &mut String, loaded: &LoadedSettings, paths: &PathStyle) {
    let mut first = true;
    for warning in &loaded.warnings {
        let ConfigWarning::UnmappedRule {
            path,
            key,
            rule,
            reason,
        } = warning
        else {
            continue;
        };
        if first {
            out.push_str("\n# not applied: permission rules agentctl cannot map\n");
            first = false;
        }
        out.push_str(&format!(
            "# {key} = {}  # {}: {reason}\n",
            show_value(&Value::String(rule.clone())),
            paths.show(path)
        ));
    }
}

/// The project values not in effect because the project is not trusted, with the reason.
fn render_ignored(out: &mut String, loaded: &LoadedSettings, paths: &PathStyle) {
    let ignored: Vec<_> = loaded.ignored().collect();
    // The project files read (Claude Code's, Gemini CLI's, agentctl's), else agentctl's own.
    let mut files: Vec<String> = loaded
        .layers
        .iter()
        .filter(|layer| layer.is_project())
        .map(|layer| paths.layer(layer))
        .collect();
    if files.is_empty()
        && let Some(project) = loaded
            .missing
            .iter()
            .find(|layer| matches!(layer, SettingsLayer::Project(_)))
    {
        files.push(paths.layer(project));
    }
    if ignored.is_empty() || files.is_empty() {
        return;
    }
    let verb = if files.len() == 1 { "is" } else { "are" };
    out.push_str(&format!(
        "\n# ignored: {} {verb} not trusted (`agentctl trust` applies them), and they loosen \
         the values above\n",
        files.join(", ")
    ));
    for loosening in ignored {
        out.push_str(&format!(
            "# {} = {}  # {}\n",
            loosening.key,
            show_value(&loosening.value),
            crate::loosening::reason(&loosening.reason)
        ));
    }
}

/// Compact JSON, so strings are quoted and a line can be pasted back into a file.
fn show_value(value: &Value) -> String {
    match value {
        Value::Array(items) => {
            let items: Vec<_> = items.iter().map(show_value).collect();
            format!("[{}]", items.join(", "))
        }
        other => other.to_string(),
    }
}

fn render_json(loaded: &LoadedSettings) -> Value {
    let layers: Vec<_> = sources(loaded)
        .into_iter()
        .map(|source| match source.layer.path() {
            None => json!({"layer": source.layer.name()}),
            Some(path) => json!({
                "layer": source.layer.name(),
                "path": path.display().to_string(),
                "found": source.found,
            }),
        })
        .collect();
    // A permission list has one origin per rule: `{"permissions.deny": {"Bash(rm:*)": …}}`.
    let mut origins = Map::new();
    for entry in loaded.entries() {
        let origin = Value::from(entry.origin.name());
        match entry.value.as_str() {
            Some(rule) if entry.key.starts_with("permissions.") => {
                if let Value::Object(rules) = origins
                    .entry(entry.key)
                    .or_insert_with(|| Value::Object(Map::new()))
                {
                    rules.insert(rule.to_owned(), origin);
                }
            }
            _ => {
                origins.insert(entry.key, origin);
            }
        }
    }
    let unmapped: Vec<Value> = loaded
        .warnings
        .iter()
        .filter_map(|warning| match warning {
            ConfigWarning::UnmappedRule {
                path,
                key,
                rule,
                reason,
            } => Some(
                json!({"path": path.display().to_string(), "key": key, "rule": rule,
                             "reason": reason}),
            ),
            _ => None,
        })
        .collect();
    let ignored: Vec<Value> = loaded
        .ignored()
        .map(|loosening| {
            json!({
                "key": loosening.key,
                "value": loosening.value,
                "reason": crate::loosening::reason(&loosening.reason),
            })
        })
        .collect();
    json!({"settings": loaded.to_value(), "layers": layers, "origins": origins,
           "trust": loaded.trust.name(), "ignored": ignored, "unmapped": unmapped})
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentctl_session::config::load_settings;

    /// A temporary agentctl home and project; removed on drop.
    struct Sandbox(PathBuf);

    impl Sandbox {
        fn new(name: &str) -> Self {
            let dir = std::env::temp_dir()
                .join(format!("agentctl-config-cmd-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(dir.join("home")).unwrap();
            std::fs::create_dir_all(dir.join("project/.agentctl")).unwrap();
            Self(dir)
        }

        fn locations(&self) -> Locations {
            Locations {
                agentctl_home: self.0.join("home/.agentctl"),
                user_home: Some(self.0.join("home")),
                project_root: Some(self.0.join("project")),
            }
        }

        fn paths(&self) -> PathStyle {
            PathStyle {
                home: Some(self.0.join("home")),
                cwd: Some(self.0.join("project")),
            }
        }
    }

    impl Drop for Sandbox {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn text_lists_files_then_grouped_keys_with_origins() {
        let sandbox = Sandbox::new("text");
        std::fs::write(
            sandbox.0.join("project/.agentctl/settings.json"),
            r#"{"agents": {"defaultContextMode": "shared"}, "approvals": {"autoApprove": ["safe"]},
                "mcpServers": {"github": {"command": "npx"}}}"#,
        )
        .unwrap();
        let locations = sandbox.locations();
        let loaded = load_settings(&locations).unwrap();
        let text = render_text(&loaded, &locations, &sandbox.paths(), true);
        let expected_head = "# settings layers, later ones win:\n\
                             #   default  built-in\n\
                             #   global   ~/.agentctl/settings.json (not found)\n\
                             #   project  .agentctl/settings.json\n\n";
        assert!(text.starts_with(expected_head), "{text}");
        let line = |key: &str| {
            text.lines()
                .find(|line| line.starts_with(key))
                .unwrap()
                .to_owned()
        };
        assert!(
            line("agents.defaultContextMode = \"shared\"")
                .ends_with("# project: .agentctl/settings.json")
        );
        assert!(line("agents.tracing.enabled = false").ends_with("  # default"));
        assert!(
            line("approvals.autoApprove = [\"safe\"]")
                .ends_with("# project: .agentctl/settings.json")
        );
        assert!(line("mcpServers.github.command = \"npx\"").contains("# project"));
        // Sections are separated by one blank line and sorted.
        let sections: Vec<_> = text
            .split("\n\n")
            .skip(1)
            .map(|block| block.split(['.', ' ']).next().unwrap())
            .collect();
        assert_eq!(
            sections,
            [
                "agents",
                "aliases",
                "approvals",
                "context",
                "env",
                "mcpServers",
                "permissions",
                "providers",
                "sandbox",
                "tools",
                "web"
            ]
        );
        // Origins line up in one column (past the lines too long to align).
        let columns: std::collections::BTreeSet<_> = text
            .lines()
            .filter_map(|line| line.find("  # "))
            .filter(|column| *column <= MAX_ALIGNED_WIDTH)
            .collect();
        assert_eq!(columns.len(), 1, "{text}");
    }

    #[test]
    fn text_with_origin_lists_the_ignored_project_values_last() {
        let sandbox = Sandbox::new("ignored");
        std::fs::write(
            sandbox.0.join("project/.agentctl/settings.json"),
            "{\"approvals\": {\"autoApprove\": [\"safe\", \"low\"]},\n\
             \"mcpServers\": {\"x\\u001b[2J\": {\"command\": \"x\", \"trust\": true}}}",
        )
        .unwrap();
        let locations = sandbox.locations();
        let loaded = load_settings(&locations).unwrap();
        let text = render_text(&loaded, &locations, &sandbox.paths(), true);
        assert!(
            text.contains("\napprovals.autoApprove = []  "),
            "the user's value is in effect: {text}"
        );
        let (_, ignored) = text.split_once("\n\n# ignored: ").unwrap();
        assert_eq!(
            ignored,
            "project: .agentctl/settings.json is not trusted (`agentctl trust` applies them), \
             and they loosen the values above\n\
             # approvals.autoApprove = [\"safe\", \"low\"]  # approves low without asking\n\
             # mcpServers.x\\x1b[2J.trust = true  # marks the project's server trusted (its \
             tools rated a level lower)\n"
        );
        let value = render_json(&loaded);
        assert_eq!(value["trust"], "untrusted");
        assert_eq!(value["ignored"][0]["key"], "approvals.autoApprove");
        assert_eq!(value["ignored"][0]["value"], json!(["safe", "low"]));
        assert_eq!(value["ignored"][0]["reason"], "approves low without asking");
    }

    #[test]
    fn text_without_origin_has_no_comments_after_values() {
        let loaded = LoadedSettings::new(agentctl_core::Settings::default());
        let locations = Locations {
            agentctl_home: PathBuf::from("/h"),
            user_home: None,
            project_root: None,
        };
        let paths = PathStyle {
            home: None,
            cwd: None,
        };
        let text = render_text(&loaded, &locations, &paths, false);
        assert!(
            text.contains("#   project  none (not inside a project)\n"),
            "{text}"
        );
        assert!(
            text.contains("\nagents.sharedContextMaxMessages = 100\n"),
            "{text}"
        );
        assert!(
            text.lines()
                .filter(|line| !line.starts_with('#'))
                .all(|line| !line.contains('#'))
        );
    }

    #[test]
    fn json_with_origin_has_settings_layers_and_origins() {
        let sandbox = Sandbox::new("json");
        std::fs::create_dir_all(sandbox.0.join("home/.agentctl")).unwrap();
        std::fs::write(
            sandbox.0.join("home/.agentctl/settings.json"),
            r#"{"aliases": {"fast": "openai:gpt-4o-mini"}}"#,
        )
        .unwrap();
        let loaded = load_settings(&sandbox.locations()).unwrap();
        let value = render_json(&loaded);
        assert_eq!(value["settings"]["aliases"]["fast"], "openai:gpt-4o-mini");
        assert_eq!(value["origins"]["aliases.fast"], "global");
        assert_eq!(value["origins"]["agents.defaultContextMode"], "default");
        let layers = value["layers"].as_array().unwrap();
        let names: Vec<_> = layers
            .iter()
            .map(|layer| layer["layer"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["default", "global", "project"]);
        assert_eq!(layers[1]["found"], true);
        assert_eq!(layers[2]["found"], false);
    }
}
