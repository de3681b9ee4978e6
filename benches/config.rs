//! Benchmarks of settings loading: a 1 MB settings file with 40,000 aliases, layered over a
//! global file that sets the same aliases, with the origin of every value tracked.
//!
//! Run with `cargo bench --bench config`.

use agentctl_config::{Locations, load_settings};

fn main() {
    divan::main();
}

const ALIASES: usize = 40_000;

/// `{"aliases": {"alias-00000": "openai:gpt-4o-mini", …}}`, about 1 MB.
fn aliases(model: &str) -> String {
    let entries: Vec<String> = (0..ALIASES)
        .map(|i| format!("    \"alias-{i:05}\": \"{model}\""))
        .collect();
    format!("{{\n  \"aliases\": {{\n{}\n  }}\n}}\n", entries.join(",\n"))
}

/// A home and a project whose settings files both set every alias.
fn sandbox() -> (tempfile::TempDir, Locations) {
    let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
    let home = tmp.path().join("home");
    let project = tmp.path().join("project");
    std::fs::create_dir_all(&home).unwrap_or_else(|e| panic!("{e}"));
    std::fs::create_dir_all(project.join(".agentctl")).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(home.join("settings.json"), aliases("openai:gpt-4o-mini"))
        .unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(
        project.join(".agentctl/settings.json"),
        aliases("anthropic:claude-sonnet-4-5"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let locations = Locations {
        agentctl_home: home,
        user_home: None,
        project_root: Some(project),
    };
    (tmp, locations)
}

#[divan::bench(sample_count = 10)]
fn load_two_layers_of_40000_aliases(bencher: divan::Bencher<'_, '_>) {
    let (_tmp, locations) = sandbox();
    bencher.bench_local(|| {
        let loaded = load_settings(&locations).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(loaded.settings.aliases.len(), ALIASES);
        loaded
    });
}

#[divan::bench(sample_count = 10)]
fn entries_with_origins_of_40000_aliases(bencher: divan::Bencher<'_, '_>) {
    let (_tmp, locations) = sandbox();
    let loaded = load_settings(&locations).unwrap_or_else(|e| panic!("{e}"));
    bencher.bench_local(|| {
        let entries = loaded.entries();
        assert!(entries.len() > ALIASES);
        entries.len()
    });
}
