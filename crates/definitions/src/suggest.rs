//! "Did you mean …?" for misspelt field and agent names.

/// Edit distance between two strings, case-insensitive, with adjacent transpositions.
pub(crate) fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.to_lowercase().chars().collect();
    let b: Vec<char> = b.to_lowercase().chars().collect();
    let mut prev2: Vec<usize> = vec![0; b.len() + 1];
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        cur[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(prev2[j - 2] + 1);
            }
            cur[j] = best;
        }
        std::mem::swap(&mut prev2, &mut prev);
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// Candidates close to `word`, closest first: within a third of the word's length (at least
/// 1 edit), or containing it / contained in it.
pub(crate) fn similar<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Vec<&'a str> {
    let limit = (word.chars().count() / 3).max(1);
    let lower = word.to_lowercase();
    let mut scored: Vec<(usize, &str)> = candidates
        .into_iter()
        .filter_map(|candidate| {
            let d = distance(word, candidate);
            let other = candidate.to_lowercase();
            let contains = lower.len() >= 3 && (other.contains(&lower) || lower.contains(&other));
            (d <= limit || contains).then_some((d, candidate))
        })
        .collect();
    scored.sort();
    scored.dedup();
    scored.into_iter().map(|(_, candidate)| candidate).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_close_names() {
        assert_eq!(distance("maxturns", "maxTurns"), 0);
        assert_eq!(distance("modle", "model"), 1);
        assert_eq!(
            similar("code-reviwer", ["code-reviewer", "debugger"]),
            ["code-reviewer"]
        );
        assert_eq!(similar("review", ["code-reviewer", "x"]), ["code-reviewer"]);
        assert!(similar("zzz", ["model"]).is_empty());
    }
}
