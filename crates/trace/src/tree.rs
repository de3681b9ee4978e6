//! A session's spans as trees — one per trace — and the waterfall `agentctl trace show`
//! prints.

use agentctl_core::{Span, SpanDetail, SpanId, SpanStatus, TraceId};
use serde::Serialize;
use std::collections::HashMap;
use std::fmt::Write as _;

/// Width of the waterfall's bar, in characters.
const BAR_WIDTH: usize = 30;
/// Width of the label column (tree lines and what the span is).
const LABEL_WIDTH: usize = 58;

/// One span with the spans inside it, in start order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TraceNode {
    /// The span.
    #[serde(flatten)]
    pub span: Span,
    /// The spans whose parent it is.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<TraceNode>,
}

/// The spans of one trace as a tree (or several, when the `events` filter left parents out).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TraceTree {
    /// The trace.
    pub trace_id: TraceId,
    /// Spans whose parent is not in the trace, in start order.
    pub roots: Vec<TraceNode>,
}

/// Builds one tree per trace from spans in any order; trees come in the order their first
/// span started.
///
/// ```
/// use agentctl_core::{Span, SpanDetail, SpanId, SpanStatus, TraceId};
/// use agentctl_trace::build_trees;
///
/// let trace = TraceId::random();
/// let span = |id: SpanId, parent: Option<SpanId>, start: u64| Span {
///     trace_id: trace, span_id: id, parent_id: parent, links: vec![], session_id: None,
///     agent: None, start_unix_nano: start, duration_ms: 1.0, status: SpanStatus::Ok,
///     error: None, detail: SpanDetail::Session { prompt: String::new() },
/// };
/// let (root, child) = (SpanId::random(), SpanId::random());
/// let trees = build_trees(vec![span(child, Some(root), 2), span(root, None, 1)]);
/// assert_eq!(trees.len(), 1);
/// assert_eq!(trees[0].roots[0].children[0].span.span_id, child);
/// ```
pub fn build_trees(mut spans: Vec<Span>) -> Vec<TraceTree> {
    spans.sort_by_key(|span| span.start_unix_nano);
    let mut order: Vec<TraceId> = Vec::new();
    let mut by_trace: HashMap<TraceId, Vec<Span>> = HashMap::new();
    for span in spans {
        if !by_trace.contains_key(&span.trace_id) {
            order.push(span.trace_id);
        }
        by_trace.entry(span.trace_id).or_default().push(span);
    }
    order
        .into_iter()
        .map(|trace_id| {
            let spans = by_trace.remove(&trace_id).unwrap_or_default();
            TraceTree {
                trace_id,
                roots: nest(spans),
            }
        })
        .collect()
}

/// Spans of one trace (in start order) nested under their parents.
fn nest(spans: Vec<Span>) -> Vec<TraceNode> {
    let ids: std::collections::HashSet<SpanId> = spans.iter().map(|span| span.span_id).collect();
    let mut children: HashMap<SpanId, Vec<Span>> = HashMap::new();
    let mut roots = Vec::new();
    for span in spans {
        match span.parent_id.filter(|parent| ids.contains(parent)) {
            Some(parent) => children.entry(parent).or_default().push(span),
            None => roots.push(span),
        }
    }
    fn build(span: Span, children: &mut HashMap<SpanId, Vec<Span>>) -> TraceNode {
        let inner = children.remove(&span.span_id).unwrap_or_default();
        TraceNode {
            children: inner
                .into_iter()
                .map(|child| build(child, children))
                .collect(),
            span,
        }
    }
    roots
        .into_iter()
        .map(|root| build(root, &mut children))
        .collect()
}

/// The trees as a timeline: each span on a line — the tree, what it is, how long it took and
/// a bar placing it in its trace.
pub fn render_waterfall(trees: &[TraceTree]) -> String {
    let mut out = String::new();
    for tree in trees {
        let start = tree
            .roots
            .iter()
            .map(|root| root.span.start_unix_nano)
            .min()
            .unwrap_or(0);
        let end = tree.roots.iter().map(last_end).max().unwrap_or(start);
        let total_ms = (end.saturating_sub(start)) as f64 / 1_000_000.0;
        let _ = writeln!(
            out,
            "trace {} · {} · {}",
            tree.trace_id,
            agentctl_store::utc_timestamp(i64::try_from(start / 1_000_000).unwrap_or(0)),
            duration(total_ms)
        );
        let frame = Frame {
            start,
            total_ns: end.saturating_sub(start).max(1),
        };
        let count = tree.roots.len();
        for (index, root) in tree.roots.iter().enumerate() {
            line(&mut out, root, "", index + 1 == count, true, &frame);
        }
        out.push('\n');
    }
    out
}

struct Frame {
    start: u64,
    total_ns: u64,
}

fn last_end(node: &TraceNode) -> u64 {
    node.children
        .iter()
        .map(last_end)
        .fold(node.span.end_unix_nano(), u64::max)
}

fn line(out: &mut String, node: &TraceNode, prefix: &str, last: bool, top: bool, frame: &Frame) {
    let branch = match (top, last) {
        (true, _) => "",
        (false, true) => "└─ ",
        (false, false) => "├─ ",
    };
    let mut label = format!("{prefix}{branch}{}", describe(&node.span));
    let chars = label.chars().count();
    if chars > LABEL_WIDTH {
        label = label.chars().take(LABEL_WIDTH - 1).collect();
        label.push('…');
    } else {
        label.push_str(&" ".repeat(LABEL_WIDTH - chars));
    }
    let mark = if node.span.status == SpanStatus::Error {
        " ✗"
    } else {
        ""
    };
    let _ = writeln!(
        out,
        "{label} {:>8} {}{mark}",
        duration(node.span.duration_ms),
        bar(&node.span, frame)
    );
    let inner = match (top, last) {
        (true, _) => prefix.to_owned(),
        (false, true) => format!("{prefix}   "),
        (false, false) => format!("{prefix}│  "),
    };
    let count = node.children.len();
    for (index, child) in node.children.iter().enumerate() {
        line(out, child, &inner, index + 1 == count, false, frame);
    }
}

/// What a span is, in a few words.
fn describe(span: &Span) -> String {
    let agent = span.agent.as_deref().unwrap_or("");
    let text = match &span.detail {
        SpanDetail::Session { prompt } => {
            format!("session \"{}\"", prompt.lines().next().unwrap_or_default())
        }
        SpanDetail::Graph { graph, branch } => format!("graph {graph} (branch {branch})"),
        SpanDetail::Node {
            node, agent, step, ..
        } => format!("node {node} → {agent} (step {step})"),
        SpanDetail::Branch {
            branch, index, of, ..
        } => format!("branch {branch} ({} of {of})", index + 1),
        SpanDetail::Run { turns, tokens, .. } => format!(
            "run {agent} · {turns} turns · {}→{} tokens",
            tokens.input, tokens.output
        ),
        SpanDetail::Llm {
            turn,
            tokens,
            tool_calls,
            ..
        } => {
            let calls = if tool_calls.is_empty() {
                String::new()
            } else {
                let names: Vec<&str> = tool_calls.iter().map(|call| call.name.as_str()).collect();
                format!(" → {}", names.join(", "))
            };
            format!(
                "llm turn {turn} · {}→{} tokens{calls}",
                tokens.input, tokens.output
            )
        }
        SpanDetail::Tool { name, .. } => format!("tool {name}"),
        SpanDetail::Handoff { from, to, .. } => format!("handoff {from} → {to}"),
        SpanDetail::Guardrail { name, passed, .. } => format!(
            "guardrail {name} {}",
            if *passed { "passed" } else { "failed" }
        ),
        _ => span.kind().to_string(),
    };
    text.chars().filter(|c| !c.is_control()).collect()
}

/// The span's place in its trace: blanks before it, a block as long as it took (at least one).
fn bar(span: &Span, frame: &Frame) -> String {
    let scale = |ns: u64| -> usize {
        let fraction = ns as f64 / frame.total_ns as f64;
        // At most BAR_WIDTH by construction; the cast cannot truncate meaningfully.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let cells = (fraction * BAR_WIDTH as f64).round() as usize;
        cells.min(BAR_WIDTH)
    };
    let offset = scale(span.start_unix_nano.saturating_sub(frame.start)).min(BAR_WIDTH - 1);
    let length = scale(span.end_unix_nano().saturating_sub(span.start_unix_nano))
        .max(1)
        .min(BAR_WIDTH - offset);
    format!(
        "▕{}{}{}▏",
        " ".repeat(offset),
        "█".repeat(length),
        " ".repeat(BAR_WIDTH - offset - length)
    )
}

/// `1.2s`, or `45ms` under a tenth of a second.
pub(crate) fn duration(ms: f64) -> String {
    if ms < 100.0 {
        format!("{ms:.0}ms")
    } else {
        format!("{:.1}s", ms / 1000.0)
    }
}
