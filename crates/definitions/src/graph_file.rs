//! Standalone graph files: `.agentctl/graphs/*.md|*.yaml|*.yml` in the project and
//! `$AGENTCTL_HOME/graphs/` for the user.
//!
//! A graph file loads as a graph agent (an [`AgentDefinition`] whose `spec.graph` is set), so
//! the one agent lookup finds it and `agentctl run NAME` runs it. Its YAML — the whole `.yaml`
//! file, or a `.md` file's front matter — is either
//!
//! ```yaml
//! name: debug-flow            # optional: the file stem
//! description: Analyze, fix, review
//! graph: {entry: analyzer, nodes: [...], edges: [...], maxSteps: 10}
//! ```
//!
//! or the same with the graph's fields at the top level (`entry`, `nodes`, `edges`,
//! `maxSteps`, `reducers`). A `.md` file's body is the description when none is given. Fields are located
//! as `graph.edges[2].condition` in either form, so diagnostics read the same.

use crate::error::{DefinitionError, ErrorKind, Result, line_col};
use crate::frontmatter::{self, MAX_FRONT_MATTER_BYTES, Split};
use crate::parse::LoadedAgent;
use crate::source::Source;
use crate::yaml_index::PositionMap;
use agentctl_core::{
    AgentDefinition, AgentSource, AgentSpec, GraphEdge, GraphNode, GraphSpec, Reducer, Scope,
    SourceFormat,
};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

/// The graph fields a file may write at the top level.
const GRAPH_FIELDS: &[&str] = &["entry", "nodes", "edges", "maxSteps", "reducers"];

/// Extensions of graph files.
const EXTENSIONS: &[&str] = &["md", "yaml", "yml"];

/// A graph file's YAML, in either form.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct GraphFile {
    name: Option<String>,
    title: Option<String>,
    description: Option<String>,
    graph: Option<GraphSpec>,
    entry: Option<String>,
    nodes: Option<Vec<GraphNode>>,
    edges: Option<Vec<GraphEdge>>,
    max_steps: Option<u32>,
    reducers: Option<BTreeMap<String, Reducer>>,
}

/// Whether `path` has a graph file's extension (`.md`, `.yaml`, `.yml`).
pub(crate) fn is_graph_file(path: &Path) -> bool {
    path.extension()
        .and_then(|ext| ext.to_str())
        .is_some_and(|ext| EXTENSIONS.contains(&ext))
}

/// Parses a graph file held in memory (`path` says which form: `.md` has front matter, `.yaml`
/// and `.yml` are YAML throughout; nothing is read from it).
///
/// ```
/// use agentctl_core::Scope;
/// use std::path::Path;
///
/// let text = "entry: analyzer\nnodes:\n  - {name: analyzer, agent: debug-analyzer}\n";
/// let agent = agentctl_definitions::parse_graph_str(text, Path::new("graphs/triage.yaml"), Scope::Project)?;
/// assert_eq!(agent.name(), "triage");
/// assert_eq!(agent.definition.spec.graph.as_ref().unwrap().entry, "analyzer");
/// assert_eq!(agent.locate("graph.nodes[0].agent"), (3, 22));
///
/// let broken = "entry: analyzer\nnodes:\n  - {name: analyzer, agnt: x}\n";
/// let error = agentctl_definitions::parse_graph_str(broken, Path::new("triage.yaml"), Scope::Project).unwrap_err();
/// assert!(error.to_string().starts_with("triage.yaml:3:"), "{error}");
/// assert!(error.to_string().contains("unknown field `agnt`"), "{error}");
/// # Ok::<(), agentctl_definitions::DefinitionError>(())
/// ```
pub fn parse_graph_str(text: &str, path: &Path, scope: Scope) -> Result<LoadedAgent> {
    let is_markdown = path.extension().is_some_and(|ext| ext == "md");
    let split = if is_markdown {
        frontmatter::split(text, path)?
    } else {
        yaml_split(text, path)?
    };
    let source = Source::parse(path, split, true)?;
    if split.yaml.lines().all(|line| {
        let line = line.trim();
        line.is_empty() || line.starts_with('#')
    }) {
        return Err(no_graph(&source, "the file is empty"));
    }
    let file: GraphFile = source.deserialize()?;
    let top_level: Vec<&str> = GRAPH_FIELDS
        .iter()
        .copied()
        .filter(|field| source.index.positions.contains_key(*field))
        .collect();
    let graph = match (file.graph, top_level.first()) {
        (Some(_), Some(field)) => {
            let (line, col) = source.position(field);
            return Err(DefinitionError::new(
                path,
                ErrorKind::Yaml,
                line,
                col,
                format!(
                    "`{field}` is outside `graph:`: write the graph's fields either under \
                     `graph:` or at the top level, not both"
                ),
            )
            .with_field(*field));
        }
        (Some(graph), None) => graph,
        (None, Some(_)) => GraphSpec {
            entry: file.entry.unwrap_or_default(),
            nodes: file.nodes.unwrap_or_default(),
            edges: file.edges.unwrap_or_default(),
            max_steps: file.max_steps,
            reducers: file.reducers.unwrap_or_default(),
        },
        (None, None) => return Err(no_graph(&source, "the file declares no graph")),
    };
    let body = split.body.trim();
    let description = file
        .description
        .or_else(|| (!body.is_empty()).then(|| body.to_owned()));
    let name = file.name.unwrap_or_else(|| source.stem());
    let positions = positions(&source, top_level.is_empty());
    Ok(LoadedAgent::located(
        AgentDefinition {
            spec: AgentSpec {
                name,
                title: file.title,
                description,
                graph: Some(graph),
                ..AgentSpec::default()
            },
            system_prompt: body.to_owned(),
            source: AgentSource {
                format: SourceFormat::Native,
                path: path.to_path_buf(),
                scope,
            },
            extra: Default::default(),
        },
        Vec::new(),
        positions,
        (split.yaml_line, 1),
    ))
}

/// Like [`parse_graph_str`], from raw bytes that must be UTF-8.
pub(crate) fn parse_graph_bytes(bytes: &[u8], path: &Path, scope: Scope) -> Result<LoadedAgent> {
    match std::str::from_utf8(bytes) {
        Ok(text) => parse_graph_str(text, path, scope),
        Err(error) => {
            let offset = error.valid_up_to();
            let (line, col) = line_col(bytes, offset);
            Err(DefinitionError::new(
                path,
                ErrorKind::NotUtf8,
                line,
                col,
                format!("the file is not valid UTF-8 (byte offset {offset}): save it as UTF-8"),
            ))
        }
    }
}

/// A `.yaml` file is all front matter: the same size limit, no body.
fn yaml_split<'a>(text: &'a str, path: &Path) -> Result<Split<'a>> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.len() > MAX_FRONT_MATTER_BYTES {
        return Err(DefinitionError::new(
            path,
            ErrorKind::FrontMatterTooLarge,
            1,
            1,
            format!(
                "the graph file is larger than {} KiB",
                MAX_FRONT_MATTER_BYTES / 1024
            ),
        ));
    }
    Ok(Split {
        yaml: text,
        yaml_line: 1,
        body: "",
        body_line: text.lines().count() + 1,
    })
}

fn no_graph(source: &Source<'_>, what: &str) -> DefinitionError {
    DefinitionError::new(
        source.path,
        ErrorKind::Yaml,
        source.split.yaml_line,
        1,
        format!(
            "{what}: write the graph under `graph:` (entry, nodes, edges), or its fields at \
             the top level"
        ),
    )
    .with_field("graph")
}

/// Field positions in file coordinates, with top-level graph fields moved under `graph.` so
/// that both forms are located by the same paths.
fn positions(source: &Source<'_>, nested: bool) -> PositionMap {
    let first_line = source.split.yaml_line;
    source
        .index
        .positions
        .iter()
        .map(|(field, &(line, col))| {
            let head = field.split(['.', '[']).next().unwrap_or_default();
            let field = if !nested && GRAPH_FIELDS.contains(&head) {
                Arc::from(format!("graph.{field}"))
            } else {
                Arc::clone(field)
            };
            (field, (first_line + line - 1, col))
        })
        .collect()
}
