//! The one pass reads every file as serde_norway did: the same agent, the same warnings, the
//! same error text at the same `file:line:col`. Each case is parsed twice — through the tree,
//! and with the tree off (serde_norway reads the text, as before the one pass) — and the two
//! results compared whole.

use super::parse_text;
use agentctl_core::{Scope, SourceFormat};
use proptest::prelude::*;
use std::path::Path;

const FORMATS: [SourceFormat; 3] = [
    SourceFormat::Native,
    SourceFormat::Claude,
    SourceFormat::Gemini,
];

fn same(text: &str) {
    if let Ok(split) = crate::frontmatter::split(text, Path::new("x.md")) {
        crate::yaml_tree::fast_agrees(split.yaml);
    }
    for format in FORMATS {
        let path = Path::new("agents/x.md");
        let tree = parse_text(text, path, format, Scope::Project, true);
        let text_only = parse_text(text, path, format, Scope::Project, false);
        assert_eq!(tree, text_only, "{format:?}:\n{text}\n{text:?}");
    }
}

fn front(yaml: &str) -> String {
    format!("---\n{yaml}---\nYou help.\n")
}

#[test]
fn values_read_alike() {
    for yaml in [
        "name: a\ntitle: A\ndescription: d\nmodel: sonnet\nmaxTurns: 3\ntemperature: 0.5\n",
        "name: a\nmaxTurns: 0x1F\ntemperature: 1\nversion: 1.2\n",
        "name: a\nmaxTurns: +7\ntemperature: .inf\nversion: 007\n",
        "name: a\nmaxTurns: '7'\n",
        "name: a\nmaxTurns: 99999999999\n",
        "name: a\nmaxTurns: -1\n",
        "name: a\nmaxTurns: 1.5\n",
        "name: a\nmaxTurns: ~\ntemperature: null\ntitle:\n",
        "name: a\ntemperature: yes\n",
        "name: a\ntemperature: '0.5'\n",
        "name: a\ntemperature: [1]\n",
        "name: a\ndescription: |\n  Line one\n  line two\nmodel: >\n  folded\n  text\n",
        "name: a\ndescription: \"esc\\taped \\u00e9\"\ncolor: 'single ''quoted'''\n",
        "name: a\ndescription: {a: 1}\n",
        "name: a\ndescription: 12\n",
        "name: a\ndescription: true\n",
        "name: a\ndescription:\n",
        "name: a\ncontextMode: shared\n",
        "name: a\ncontextMode: bogus\n",
        "name: a\ncontextMode: {a: b}\n",
        "name: a\ncontextMode: [a]\n",
        "name: a\ncontextMode:\n",
        "name: a\ncontextMode: ''\n",
        "name: a\nscope: project\n",
        "name: a\nscope: 3\n",
        "name: 5\n",
        "name: [a]\n",
        "name: a\nname: b\n",
        "name: a\ntools: [read_file, grep]\n",
        "name: a\ntools: read_file\n",
        "name: a\ntools:\n  allow: [1, {a: b}]\n",
        "name: a\ntools:\n  allow: x\n  deny: [y]\n",
        "name: a\ntools:\n  allow: [a]\n  allow: [b]\n",
        "name: a\ntools:\n",
        "name: a\ntools: 3\n",
        "name: a\ntools: Read, Grep, Bash(git *)\ndisallowedTools: [WebSearch]\n",
        "name: a\nmcp:\n  servers: [github]\n  inline:\n    local:\n      command: npx\n      args: [-y, server]\n",
        "name: a\nmcp:\n  inline:\n    local:\n      command: [npx]\n",
        "name: a\nmcpServers:\n  - github\n  - local:\n      command: npx\n",
        "name: a\nmcpServers:\n  srv:\n    url: https://x\n",
        "name: a\nmcpServers: 3\n",
        "name: a\nmcp_servers:\n  srv:\n    command: x\n    timeout: soon\n",
        "name: a\ntriggers:\n  - intent: review\n    keywords: [review, diff]\n    regex: 'review (pr|diff)'\n    priority: 5\n",
        "name: a\ntriggers:\n  - keywords: review\n    priority: high\n",
        "name: a\ntriggers: {a: b}\n",
        "name: a\ntriggers:\n  - regexp: x\n",
        "name: a\nhandoffs:\n  - to: b\n    when: fix.applied\n    payload:\n      schema: {type: object, required: [x]}\n",
        "name: a\nhandoffs:\n  - when: x\n",
        "name: a\nhandoffs:\n  - to: [b]\n",
        "name: a\nguardrails:\n  - name: json-out\n    stage: output\n    schema: {type: object}\n    policy: repair\n    maxRepairs: 2\n",
        "name: a\nguardrails:\n  - name: g\n    stage: sideways\n",
        "name: a\nguardrails:\n  - name: g\n    maxRepairs: many\n",
        "name: a\nmemory:\n  session: [files]\n  longTerm: true\n",
        "name: a\nmemory:\n  longTerm:\n    backend: vector_store\n    config: {dims: 3}\n",
        "name: a\nmemory:\n  longTerm: maybe\n",
        "name: a\nmemory:\n  session: files\n",
        "name: a\ntracing:\n  enabled: true\n  events: [tool]\n  backend: jsonl\n  sampleRate: 0.5\n",
        "name: a\ntracing:\n  backend: opentelemetry\n  sampleRate: high\n",
        "name: a\ntracing:\n  enabled: 'yes'\n",
        "name: a\ngraph:\n  entry: x\n  nodes:\n    - {name: x, agent: y}\n  edges: []\n",
        "name: a\ngraph:\n  nodes: 3\n",
        "name: a\nmodle: x\nfoo: {bar: [1, 2]}\n3: three\n~: null\ntrue: yes\n",
        "name: a\nfoo: 1\nfoo: 2\n",
        "name: a\nfoo: {b: 1, b: 2}\n",
        "kind: agent\nname: a\ncontextMode: shared\n",
        "kind: remote\nname: a\nagent_card_url: https://x\n",
        "kind: local\nname: a\ntools: [read_file, 'mcp__srv__tool']\nmax_turns: 3\ndisplay_name: A\ntimeout_mins: 5\n",
        "kind: [agent]\nname: a\n",
        "name: a\ndescription: Use this agent when x. Examples: <example>Context: y</example>\ntools: Read\n",
        "name: a\ndescription: Use when: it's needed\n  and more: here\nmodel: sonnet\n",
        "name: a\ndescription: a # comment\n",
        "description: only\n",
        "- a\n- b\n",
        "just text\n",
        "'quoted root'\n",
        "name: a\nbase: &b {command: npx}\nmcp:\n  inline:\n    one: *b\n    two: *b\n",
        "name: &n a\ntitle: *n\n",
        "name: a\nx: &s [1, 2]\ntriggers:\n  - keywords: *s\n",
        "name: a\nmaxTurns: &t ten\nextra: *t\n",
        "name: a\n? complex\n: 1\n",
        "name: a\n...\n",
        "name: a\n%YAML 1.2\n",
        "name: a\ndescription: \"unclosed\n",
        "name: x\n  - bad: [\n",
        "name: a\nmaxTurns: !!str 3\n",
        "name: a\ncontextMode: !shared\n",
        "name: a\ttab\n",
        "name: a\n\tmodel: b\n",
        "{name: a, model: b, tools: [x, y]}\n",
        "{name: a, model: b, }\n",
        "name: a\nempty_flow: {}\nempty_seq: []\n",
        "name: a\ntools: []\ntriggers: []\nhandoffs:\n",
        "name: a\nkeys:\n  - ? x\n",
        "name: a\nseq:\n- a\n- b\nmodel: m\n",
        "name: a\nmaxTurns:   12   # twelve\n",
        "name: 'a'\nmaxTurns: \"12\"\n",
        "name: a\r\nmodel: b\r\n",
        "name: é\ndescription: ünïcödé: x\nmaxTurns: 三\n",
        "name: a\nguardrails:\n  - name: g\n    stage:\n",
        "name: a\ntriggers:\n  - priority:\n    keywords: [x]\n",
        "name: a\ntriggers:\n  - priority:\n",
        "name: a\ntriggers: [{priority: }]\n",
        "name: a\ntriggers: [{priority}]\n",
        "name: a\ntriggers:\n  -\n",
        "name: a\nhandoffs:\n  - to: b\n    payload:\n",
        "name: a\nmaxTurns:    \n",
        "name: a\nmaxTurns: # nothing\n",
        "name: a\nmemory:\n  longTerm:\n  session:\n",
        "name: a\ntracing:\n  sampleRate:\n",
        ":\n",
        "name: a\n: b\n",
        "&a name: x\n",
        "name: &a-b_c x\ntitle: *a-b_c\n",
        "name: &a[ x\n",
        "name: &é x\ntitle: *é\n",
        "|\n  text\n",
        "# c\n>\n  text\n",
    ] {
        same(&front(yaml));
    }
}

#[test]
fn fixture_files_read_alike() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut files = 0;
    for entry in walkdir::WalkDir::new(root) {
        let entry = entry.unwrap();
        if entry.path().extension().is_some_and(|ext| ext == "md")
            && let Ok(text) = std::fs::read_to_string(entry.path())
        {
            same(&text);
            files += 1;
        }
    }
    assert!(files > 10, "{files}");
}

#[test]
fn the_fast_reader_takes_common_front_matter() {
    for yaml in [
        "name: a\ndescription: Reviews code. Use PROACTIVELY.\ntools: Read, Grep\nmodel: sonnet\ncolor: blue\n",
        "name: a\ntools:\n  allow: [read_file, 'mcp.github.*']\n  deny: [bash]\ntriggers:\n  - keywords: [x, y]\n    regex: ['a\\b']\n    priority: 1\nhandoffs:\n- to: b\n  when: task.status == 'x'\nmaxTurns: 3\n",
        "# yaml-language-server: $schema=x\nname: a\ndescription: \"Use this agent when x.\\n\\n<example>\\nuser: \\\"hi\\\"\\n</example>\"\ntitle:\n",
    ] {
        assert!(crate::yaml_tree::fast_agrees(yaml), "{yaml}");
    }
}

/// Front-matter-shaped YAML built from the spec's own keys and values of every type.
fn spec_yaml() -> impl Strategy<Value = String> {
    let key = prop::sample::select(vec![
        "name",
        "title",
        "description",
        "model",
        "maxTurns",
        "temperature",
        "contextMode",
        "tools",
        "allow",
        "deny",
        "mcp",
        "servers",
        "inline",
        "command",
        "args",
        "triggers",
        "keywords",
        "regex",
        "priority",
        "handoffs",
        "to",
        "when",
        "guardrails",
        "stage",
        "memory",
        "longTerm",
        "session",
        "tracing",
        "sampleRate",
        "kind",
        "disallowedTools",
        "mcpServers",
        "max_turns",
        "display_name",
        "color",
        "modle",
        "x",
    ]);
    let scalar = prop::sample::select(vec![
        "a",
        "code-reviewer",
        "3",
        "0",
        "-2",
        "1.5",
        "0x10",
        "007",
        "true",
        "no",
        "~",
        "null",
        "''",
        "'7'",
        "\"x\"",
        ".inf",
        "shared",
        "isolated",
        "Read, Grep",
        "[]",
        "{}",
        "[read_file, grep]",
        "{allow: [a]}",
        "[1, {a: b}]",
        "x: y",
        "|\n  block",
        "&a 1",
        "*a",
    ]);
    let line = (0..3usize, key, scalar).prop_map(|(indent, key, value)| {
        let pad = "  ".repeat(indent);
        format!("{pad}{key}: {value}\n")
    });
    let item = (0..3usize, scalar_item())
        .prop_map(|(indent, value)| format!("{}- {value}\n", "  ".repeat(indent)));
    prop::collection::vec(prop_oneof![4 => line, 1 => item], 0..12)
        .prop_map(|lines| format!("name: a\n{}", lines.concat()))
}

fn scalar_item() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "a",
        "3",
        "{to: b}",
        "[x]",
        "keywords: [k]",
        "to: b",
        "~",
    ])
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, ..ProptestConfig::default() })]

    #[test]
    fn spec_shaped_yaml_reads_alike(yaml in spec_yaml()) {
        same(&front(&yaml));
    }

    #[test]
    fn yaml_shaped_lines_read_alike(yaml in "(( |  |    )?(- |\\? |- - )?(name|maxTurns|tools|allow|deny|triggers|keywords|priority|handoffs|to|payload|schema|memory|longTerm|x|'q'|\"d\"|&a |\\*a |&b-1 )?(:|: | :)?( |~|7|-3|0x1|1[.]5|yes|'s'|'multi\\n  line'|\"e\\\\t\"|\\[a, \\{b: c\\}\\]|\\{a: \\[1\\]\\}|\\|\\n   text|>-\\n  more|&a x|\\*a|# c|%|@|`|é|plain\\n   continued|\\[a,\\n b\\]|\\{\\})?\\n){0,16}") {
        same(&front(&yaml));
    }

    #[test]
    fn arbitrary_front_matter_reads_alike(yaml in "[a-zA-Z_:\\- \\[\\]{},'\"#&*!|>\\n0-9.\\t]{0,200}") {
        same(&format!("---\n{yaml}\n---\nP\n"));
    }
}

/// A small deterministic generator of YAML in (and near) the fast reader's form.
struct Gen(u64);

impl Gen {
    fn next(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.next(items.len())]
    }
    fn scalar(&mut self) -> String {
        let plain = [
            "a",
            "x-y",
            "3",
            "-7",
            "0x1F",
            "1.5",
            "~",
            "null",
            "true",
            "yes",
            "é ü",
            "Use [x] for y",
            "a:b",
            "C# and F#",
            "<example>",
            "a, b",
            "http://x/y",
            "review (pr|diff)",
            "don't",
            "a # comment",
            "v  ",
            "two  spaces",
            ".inf",
            "007",
            "a :b",
            "😀",
        ];
        let quoted = [
            "'a'",
            "''",
            "'it''s'",
            "'a # b'",
            "\"\"",
            "\"x\"",
            "\"a\\nb\"",
            "\"q\\\"q\"",
            "\"\\u00e9\\x41\\U0001F600\"",
            "\"\\t\\\\\"",
            "\"a\\/b\"",
            "'  sp  '",
            "\"bad\\q\"",
            "'unterminated",
            "\"a\" # c",
        ];
        match self.next(3) {
            0 => self.pick(&quoted).to_owned(),
            _ => self.pick(&plain).to_owned(),
        }
    }
    fn flow(&mut self) -> String {
        let n = self.next(4);
        let items: Vec<String> = (0..n)
            .map(|_| match self.next(4) {
                0 => self.pick(&["'q'", "\"d\"", "'a, b'", "\"]\""]).to_owned(),
                _ => self
                    .pick(&[
                        "a",
                        "read_file",
                        "mcp.github.*",
                        "3",
                        "x y",
                        "a:b",
                        "é",
                        "-1",
                        "a#b",
                    ])
                    .to_owned(),
            })
            .collect();
        let sep = self.pick(&[", ", ",", " , ", ",  "]);
        let (open, close) = *[
            ("[", "]"),
            ("[ ", " ]"),
            ("[", ",]"),
            ("[", "] x"),
            ("[", "]  # c"),
        ]
        .get(self.next(5).min(4) * usize::from(self.next(4) == 0))
        .unwrap_or(&("[", "]"));
        format!("{open}{}{close}", items.join(sep))
    }
    fn key(&mut self) -> &'static str {
        self.pick(&[
            "name",
            "title",
            "description",
            "model",
            "maxTurns",
            "tools",
            "allow",
            "deny",
            "triggers",
            "keywords",
            "regex",
            "priority",
            "handoffs",
            "to",
            "when",
            "memory",
            "x",
            "x_y",
            "x-y",
            "9",
            "modle",
        ])
    }
    fn mapping(&mut self, out: &mut String, indent: usize, depth: usize) {
        let n = 1 + self.next(5);
        for _ in 0..n {
            self.noise(out, indent);
            let pad = " ".repeat(indent);
            let key = self.key();
            match if depth > 3 {
                self.next(3)
            } else {
                self.next(6)
            } {
                0 => out.push_str(&format!("{pad}{key}: {}\n", self.scalar())),
                1 => out.push_str(&format!("{pad}{key}: {}\n", self.flow())),
                2 => out.push_str(&format!(
                    "{pad}{key}:{}\n",
                    self.pick(&["", " ", "  # empty"])
                )),
                3 => {
                    out.push_str(&format!("{pad}{key}:\n"));
                    let inner = indent + self.pick(&["2", "4", "1"]).parse::<usize>().unwrap_or(2);
                    self.mapping(out, inner, depth + 1);
                }
                _ => {
                    out.push_str(&format!("{pad}{key}:\n"));
                    let inner = indent
                        + self
                            .pick(&["0", "2", "2", "4"])
                            .parse::<usize>()
                            .unwrap_or(2);
                    self.sequence(out, inner, depth + 1);
                }
            }
        }
    }
    fn sequence(&mut self, out: &mut String, indent: usize, depth: usize) {
        let n = 1 + self.next(4);
        for _ in 0..n {
            self.noise(out, indent);
            let pad = " ".repeat(indent);
            match self.next(4) {
                0 => out.push_str(&format!("{pad}- {}\n", self.flow())),
                1 if depth < 4 => {
                    let mut inner = String::new();
                    self.mapping(&mut inner, indent + 2, depth + 1);
                    let inner = inner.trim_start_matches(' ');
                    out.push_str(&format!("{pad}- {inner}"));
                }
                _ => out.push_str(&format!("{pad}- {}\n", self.scalar())),
            }
        }
    }
    fn noise(&mut self, out: &mut String, indent: usize) {
        match self.next(12) {
            0 => out.push('\n'),
            1 => out.push_str(&format!("{}# note: x\n", " ".repeat(self.next(indent + 3)))),
            2 => out.push_str(&" ".repeat(self.next(6))),
            3 => out.push('\r'),
            _ => {}
        }
    }
}

/// Front matter in and near the fast reader's form (a survey of 300,000 such documents found
/// no difference; this keeps a few thousand of them).
#[test]
fn generated_front_matter_reads_alike() {
    let mut fast = 0;
    for seed in 0..4_000_u64 {
        let mut generator = Gen(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let mut yaml = String::new();
        let indent = generator.next(2) * 2;
        generator.mapping(&mut yaml, indent, 0);
        if crate::yaml_tree::fast_agrees(&yaml) {
            fast += 1;
        }
        if seed % 8 == 0 {
            same(&format!("---\n{yaml}---\nP\n"));
        }
    }
    // The generator aims at the fast reader's edges: about a quarter is in its form.
    assert!(fast > 500, "{fast}");
}
