//! From what a model or a person typed to an FTS5 query that cannot fail.
//!
//! FTS5 has a query language (`AND`, `OR`, `NOT`, `NEAR(…)`, `"phrases"`, `prefix*`,
//! `column:`, `^`), and raw input in it is either a syntax error (`"`, `(`, a lone `*`) or a
//! different question than the one asked (`OR` as an operator). The text is therefore cut into
//! words — runs of letters and digits, the characters FTS5's `unicode61` tokenizer keeps — and
//! each word becomes a quoted string (a string is never an operator), the words joined by
//! `OR` so that any of them may match; BM25 ranks entries matching more and rarer words first.

/// Most words of one query: enough for a question, bounded for a pasted page.
pub(crate) const MAX_TERMS: usize = 32;
/// Longest word kept, in characters.
const MAX_TERM_CHARS: usize = 64;

/// The words of a search text, lowercased, each once, at most 32 of 64 characters: runs of
/// letters and digits, so no operator or quote of any query language survives.
///
/// ```
/// assert_eq!(agentctl_memory::search_terms("Deploy OR \"prod\"; deploy!"), ["deploy", "or", "prod"]);
/// ```
pub fn search_terms(text: &str) -> Vec<String> {
    let mut terms: Vec<String> = Vec::new();
    for word in text.split(|c: char| !c.is_alphanumeric()) {
        if word.is_empty() {
            continue;
        }
        let word: String = word
            .chars()
            .take(MAX_TERM_CHARS)
            .collect::<String>()
            .to_lowercase();
        if !terms.contains(&word) {
            terms.push(word);
        }
        if terms.len() == MAX_TERMS {
            break;
        }
    }
    terms
}

#[cfg(feature = "sqlite")]
/// The FTS5 `MATCH` expression for `text`; `None` when it has no word to search for.
pub(crate) fn fts_query(text: &str) -> Option<String> {
    let terms = search_terms(text);
    if terms.is_empty() {
        return None;
    }
    let quoted: Vec<String> = terms
        .iter()
        // Words hold no `"`; doubling is what FTS5 asks for if one ever did.
        .map(|term| format!("\"{}\"", term.replace('"', "\"\"")))
        .collect();
    Some(quoted.join(" OR "))
}

#[cfg(all(test, feature = "sqlite"))]
mod tests {
    use super::*;

    #[test]
    fn operators_and_punctuation_become_quoted_words() {
        assert_eq!(
            fts_query("deploy OR \"prod\" NEAR(x y) *").as_deref(),
            Some(r#""deploy" OR "or" OR "prod" OR "near" OR "x" OR "y""#)
        );
        assert_eq!(fts_query("  *** () \" ^ :"), None);
        assert_eq!(
            fts_query("Ünïcödé 数据库").as_deref(),
            Some(r#""ünïcödé" OR "数据库""#)
        );
        let many = (0..100)
            .map(|i| format!("w{i}"))
            .collect::<Vec<_>>()
            .join(" ");
        assert_eq!(
            fts_query(&many).unwrap().matches(" OR ").count(),
            MAX_TERMS - 1
        );
        assert_eq!(
            fts_query(&"a".repeat(1000)).unwrap().len(),
            MAX_TERM_CHARS + 2
        );
    }
}
