//! Branch spans: each branch of a fan-out, and each element of a map, gets a span of its own
//! under the graph run's, side by side with its siblings, with its nodes' spans under it — so
//! a trace shows the branches running at the same time rather than one list of nodes.

use agentctl_core::{SpanDetail, TraceContext};
use agentctl_trace::OpenSpan;

/// The open spans of the lanes (branches, elements) of one fan-out or map.
pub(super) struct LaneSpans {
    graph: String,
    /// The node whose edge fanned out, or the mapped node.
    from: String,
    spans: Vec<Option<OpenSpan>>,
}

impl LaneSpans {
    /// The spans of `count` lanes of `from` in `graph`, none open yet.
    pub(super) fn new(graph: &str, from: &str, count: usize) -> Self {
        Self {
            graph: graph.to_owned(),
            from: from.to_owned(),
            spans: (0..count).map(|_| None).collect(),
        }
    }

    /// The context lane `index` (named `branch`) runs its node in: its span under `trace`,
    /// opened the first time; `None` when the run is not traced.
    pub(super) fn context(
        &mut self,
        trace: Option<&TraceContext>,
        index: usize,
        branch: &str,
    ) -> Option<TraceContext> {
        let trace = trace?;
        let of = u32::try_from(self.spans.len()).unwrap_or(u32::MAX);
        let slot = self.spans.get_mut(index)?;
        let span = slot.get_or_insert_with(|| {
            let detail = SpanDetail::Branch {
                graph: self.graph.clone(),
                from: self.from.clone(),
                branch: branch.to_owned(),
                index: u32::try_from(index).unwrap_or(u32::MAX),
                of,
            };
            OpenSpan::start(trace, None, detail)
        });
        Some(span.context())
    }

    /// Ends lane `index`'s span, failed with `error` when given.
    pub(super) fn end(&mut self, index: usize, error: Option<&str>) {
        if let Some(span) = self.spans.get_mut(index).and_then(Option::take) {
            span.end(error);
        }
    }

    /// Ends every span still open, failed with `error`.
    pub(super) fn end_all(&mut self, error: &str) {
        for span in self.spans.iter_mut().filter_map(Option::take) {
            span.end(Some(error));
        }
    }
}
