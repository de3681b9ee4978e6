//! HTML to Markdown with `htmd` (turndown.js rules over the html5ever parser).
//!
//! A page is hostile input, and two of its shapes cost more than its size:
//! - Deep nesting makes the parser quadratic (each `<div>` scans the stack of open elements:
//!   20,000 nested `<div>`s take half a minute in a debug build). The parser is fed in slices
//!   and stopped once [`PARSE_BUDGET`] is spent; the part parsed so far is converted. Bounding
//!   time rather than a guessed depth holds whatever the parser's costly path is.
//! - The converter recurses once per level: the tree is cut at [`MAX_DEPTH`] first.
//!
//! Links and images are made absolute against the page's URL, so the model can fetch what a
//! page links to.
//!
//! The work runs on a thread of its own with a large stack, off the async runtime, so that a
//! converter panic is an error message instead of a dead run.

use super::WebError;
use htmd::HtmlToMarkdown;
use html5ever::tendril::{StrTendril, TendrilSink};
use html5ever::tree_builder::TreeBuilderOpts;
use html5ever::{ParseOpts, parse_document};
use markup5ever_rcdom::{Handle, NodeData, RcDom};
use reqwest::Url;
use std::rc::Rc;
use std::time::{Duration, Instant};

/// Deepest element nesting converted; deeper content is left out, with a note.
pub(crate) const MAX_DEPTH: usize = 128;
/// Parsing time after which the rest of a page is left out, with a note. Real pages parse in
/// milliseconds; only pathological nesting comes near.
pub(crate) const PARSE_BUDGET: Duration = Duration::from_secs(3);
/// Bytes handed to the parser at a time, between checks of the budget.
const SLICE_BYTES: usize = 4096;
/// Stack of the conversion thread: ample for [`MAX_DEPTH`] levels of recursion in a debug
/// build (only the pages touched are ever allocated).
const STACK_BYTES: usize = 32 * 1024 * 1024;
/// Elements whose content is not reading matter (the title is taken apart).
const SKIPPED: &[&str] = &[
    "head", "script", "style", "noscript", "template", "iframe", "svg", "canvas", "object", "embed",
];

/// A page converted to Markdown.
#[derive(Debug)]
pub(crate) struct Page {
    /// The `<title>`, as plain text.
    pub(crate) title: Option<String>,
    /// The content as Markdown.
    pub(crate) markdown: String,
    /// What was left out and why, if anything.
    pub(crate) omitted: Option<Omitted>,
}

/// Why part of a page was left out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Omitted {
    /// Parsing ran out of [`PARSE_BUDGET`] after this many bytes.
    SlowToParse { parsed_bytes: usize },
    /// Content nested deeper than [`MAX_DEPTH`].
    TooDeep,
}

impl Omitted {
    /// A note for the model.
    pub(crate) fn describe(self) -> String {
        match self {
            Omitted::SlowToParse { parsed_bytes } => format!(
                "the page is too complex to parse in {} s (pathological nesting); only its \
                 first {parsed_bytes} bytes were converted",
                PARSE_BUDGET.as_secs()
            ),
            Omitted::TooDeep => {
                format!("content nested deeper than {MAX_DEPTH} elements was left out")
            }
        }
    }
}

/// Converts `html`, the page at `base`, to Markdown on a thread of its own.
pub(crate) async fn to_markdown(html: String, base: Url) -> Result<Page, WebError> {
    let (sender, receiver) = tokio::sync::oneshot::channel();
    std::thread::Builder::new()
        .name("agentctl-web-markdown".into())
        .stack_size(STACK_BYTES)
        .spawn(move || {
            let _ = sender.send(convert(&html, &base, PARSE_BUDGET));
        })
        .map_err(|error| {
            WebError::Other(format!(
                "cannot start converting the page to Markdown: {error}"
            ))
        })?;
    receiver.await.map_err(|_| {
        WebError::Other("the page could not be converted to Markdown (the converter failed)".into())
    })
}

/// Converts `html`, the page at `base`, to Markdown here, on the calling thread, parsing for
/// at most `budget`.
pub(crate) fn convert(html: &str, base: &Url, budget: Duration) -> Page {
    let (document, slow) = parse(html, budget);
    let title = title(&document);
    let base = base_url(&document, base);
    let too_deep = prune(&document, MAX_DEPTH, &base);
    let converter = HtmlToMarkdown::builder()
        .skip_tags(SKIPPED.to_vec())
        .build();
    let markdown = converter.tree_to_markdown(&document);
    let omitted = match slow {
        Some(parsed_bytes) => Some(Omitted::SlowToParse { parsed_bytes }),
        None => too_deep.then_some(Omitted::TooDeep),
    };
    Page {
        title,
        markdown,
        omitted,
    }
}

/// Parses `html` slice by slice; stops early when `budget` is spent and says after how many
/// bytes.
fn parse(html: &str, budget: Duration) -> (Handle, Option<usize>) {
    let options = ParseOpts {
        tree_builder: TreeBuilderOpts {
            // As browsers do: `<noscript>` content is raw text, skipped with it.
            scripting_enabled: true,
            ..TreeBuilderOpts::default()
        },
        ..ParseOpts::default()
    };
    let mut parser = parse_document(RcDom::default(), options);
    let started = Instant::now();
    let mut rest = html;
    let mut stopped_at = None;
    while !rest.is_empty() {
        if started.elapsed() > budget {
            stopped_at = Some(html.len() - rest.len());
            break;
        }
        let mut end = rest.len().min(SLICE_BYTES);
        while !rest.is_char_boundary(end) {
            end += 1;
        }
        let (slice, after) = rest.split_at(end);
        parser.process(StrTendril::from_slice(slice));
        rest = after;
    }
    (parser.finish().document, stopped_at)
}

/// Drops the children of every node `max` levels down, without recursing, and makes the
/// links of the rest absolute against `base`; true when any were dropped.
fn prune(root: &Handle, max: usize, base: &Url) -> bool {
    let mut pruned = false;
    let mut pending = vec![(Rc::clone(root), 0usize)];
    while let Some((node, depth)) = pending.pop() {
        absolutize(&node, base);
        if depth >= max {
            let mut children = node.children.borrow_mut();
            pruned |= !children.is_empty();
            // The tree's own Drop frees the subtree without recursing either.
            children.clear();
            continue;
        }
        pending.extend(
            node.children
                .borrow()
                .iter()
                .map(|child| (Rc::clone(child), depth + 1)),
        );
    }
    pruned
}

/// Rewrites a relative `href` or `src` of `node` as an absolute URL.
fn absolutize(node: &Handle, base: &Url) {
    let NodeData::Element { attrs, .. } = &node.data else {
        return;
    };
    for attr in attrs.borrow_mut().iter_mut() {
        if !matches!(&*attr.name.local, "href" | "src") {
            continue;
        }
        let value = attr.value.trim();
        // Fragments stay as they are: they point into this page.
        if value.is_empty() || value.starts_with('#') {
            continue;
        }
        if let Ok(absolute) = base.join(value) {
            attr.value = StrTendril::from_slice(absolute.as_str());
        }
    }
}

/// The text of the first `<title>`, whitespace collapsed.
fn title(root: &Handle) -> Option<String> {
    let node = first_element(root, "title")?;
    let mut text = String::new();
    for child in node.children.borrow().iter() {
        if let NodeData::Text { contents } = &child.data {
            text.push_str(&contents.borrow());
        }
    }
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    (!text.is_empty()).then_some(text)
}

/// The URL relative links resolve against: the first `<base href>`, else the page's own.
fn base_url(root: &Handle, page: &Url) -> Url {
    let Some(node) = first_element(root, "base") else {
        return page.clone();
    };
    let NodeData::Element { attrs, .. } = &node.data else {
        return page.clone();
    };
    attrs
        .borrow()
        .iter()
        .find(|attr| &*attr.name.local == "href")
        .and_then(|attr| page.join(attr.value.trim()).ok())
        .filter(|base| matches!(base.scheme(), "http" | "https"))
        .unwrap_or_else(|| page.clone())
}

/// The first element named `name`, in document order, found without recursing.
fn first_element(root: &Handle, name: &str) -> Option<Handle> {
    let mut pending = vec![Rc::clone(root)];
    while let Some(node) = pending.pop() {
        if let NodeData::Element { name: own, .. } = &node.data
            && &*own.local == name
        {
            return Some(node);
        }
        pending.extend(node.children.borrow().iter().rev().cloned());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> Url {
        Url::parse("https://example.com/docs/page.html").unwrap()
    }

    #[test]
    fn pages_become_markdown_without_scripts() {
        let page = convert(
            "<html><head><title>Fish &amp;\n Chips</title><style>p{}</style></head>\
             <body><h1>Menu</h1><script>alert(1)</script><p>Cod, <b>fried</b>.</p>\
             <ul><li>one</li><li>two</li></ul><a href=\"/x\">more</a> <a href=\"b.html#s\">b</a>\
             <a href=\"#top\">up</a><img src=\"i.png\" alt=\"pic\"></body></html>",
            &base(),
            PARSE_BUDGET,
        );
        assert_eq!(page.title.as_deref(), Some("Fish & Chips"));
        assert_eq!(page.omitted, None);
        let markdown = &page.markdown;
        assert!(markdown.starts_with("# Menu"), "{markdown}");
        assert!(markdown.contains("Cod, **fried**."), "{markdown}");
        assert!(
            markdown.contains("one") && markdown.contains("two"),
            "{markdown}"
        );
        assert!(
            markdown.contains("[more](https://example.com/x)"),
            "{markdown}"
        );
        assert!(
            markdown.contains("[b](https://example.com/docs/b.html#s)"),
            "{markdown}"
        );
        assert!(markdown.contains("[up](#top)"), "{markdown}");
        assert!(
            markdown.contains("![pic](https://example.com/docs/i.png)"),
            "{markdown}"
        );
        assert!(!markdown.contains("alert"), "{markdown}");
        assert!(!markdown.contains("p{}"), "{markdown}");
        assert!(
            !markdown.contains("Chips"),
            "the title is apart: {markdown}"
        );
    }

    #[test]
    fn deep_nesting_is_cut_not_a_stack_overflow() {
        let depth = 1_000;
        let html = format!(
            "<p>top</p>{}deep{}",
            "<span>".repeat(depth),
            "</span>".repeat(depth)
        );
        // The test harness's threads have small stacks: convert on one like the tool's.
        let page = std::thread::Builder::new()
            .stack_size(STACK_BYTES)
            .spawn(move || convert(&html, &base(), PARSE_BUDGET))
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(page.omitted, Some(Omitted::TooDeep));
        assert!(page.markdown.contains("top"));
        assert!(!page.markdown.contains("deep"));
    }

    #[test]
    fn a_page_slow_to_parse_is_cut_when_its_budget_is_spent() {
        // Quadratic for the parser; with no budget at all, parsing stops at once.
        let html = format!("<p>top</p>{}", "<div>".repeat(50_000));
        let page = convert(&html, &base(), Duration::ZERO);
        assert_eq!(page.omitted, Some(Omitted::SlowToParse { parsed_bytes: 0 }));
        let html = format!("<p>top</p>{}", "<div>".repeat(300_000));
        let page = std::thread::Builder::new()
            .stack_size(STACK_BYTES)
            .spawn(move || convert(&html, &base(), Duration::from_millis(200)))
            .unwrap()
            .join()
            .unwrap();
        assert!(
            matches!(page.omitted, Some(Omitted::SlowToParse { .. })),
            "{:?}",
            page.omitted
        );
        assert!(page.markdown.contains("top"));
    }

    #[test]
    fn a_base_element_moves_relative_links() {
        let page = convert(
            "<head><base href=\"https://cdn.example.org/v2/\"></head><a href=\"x\">x</a>",
            &base(),
            PARSE_BUDGET,
        );
        assert_eq!(page.markdown, "[x](https://cdn.example.org/v2/x)");
    }

    #[test]
    fn a_title_is_text() {
        let page = convert(
            "<title>a <script>x</script> b</title><p>body</p>",
            &base(),
            PARSE_BUDGET,
        );
        assert_eq!(page.title.as_deref(), Some("a <script>x</script> b"));
    }
}
