//! Arbitrary input never panics the parser.

use agentctl_core::{Scope, SourceFormat};
use agentctl_definitions::{Checks, parse_bytes, parse_graph_str, parse_str, validate};
use proptest::prelude::*;
use std::path::Path;

const FORMATS: [SourceFormat; 3] = [
    SourceFormat::Native,
    SourceFormat::Claude,
    SourceFormat::Gemini,
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        for format in FORMATS {
            let _ = parse_bytes(&bytes, Path::new("x.md"), format, Scope::Project);
        }
    }

    #[test]
    fn front_matter_shaped_text(yaml in "[a-zA-Z_:\\- \\[\\]{},'\"#&*!|>\\n0-9.]{0,200}", body in ".{0,40}") {
        let text = format!("---\n{yaml}\n---\n{body}");
        for format in FORMATS {
            if let Ok(agent) = parse_str(&text, Path::new("x.md"), format, Scope::Global) {
                let _ = validate(&agent, &agentctl_core::Settings::default(), &Checks::new());
            }
        }
    }

    #[test]
    fn graph_file_shaped_text(yaml in "(entry: |nodes:\n  - |edges:\n  - |graph:\n  |name: |agent: |from: |to: |condition: |maxSteps: |[a-zA-Z_:\\- \\[\\]{},'\"#&*!|>\n0-9.]){0,40}") {
        for file in ["g.yaml", "g.md"] {
            let text = if file.ends_with(".md") { format!("---\n{yaml}\n---\n") } else { yaml.clone() };
            if let Ok(agent) = parse_graph_str(&text, Path::new(file), Scope::Project) {
                let _ = validate(&agent, &agentctl_core::Settings::default(), &Checks::new());
            }
        }
    }
}
