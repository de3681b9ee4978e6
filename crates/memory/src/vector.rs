//! Embedding vectors: their storage as BLOBs, cosine similarity, and the fusion of the keyword
//! and similarity rankings.
//!
//! **Fusion.** BM25 scores (unbounded, query-dependent) and cosine similarities (−1…1) are on
//! scales that cannot be added without a normalisation that would need tuning per corpus.
//! Reciprocal rank fusion (Cormack, Clarke & Büttcher, SIGIR 2009) uses only each entry's rank
//! in each list: `score = Σ 1 / (k + rank)`, with the customary `k = 60`. An entry found by
//! both searches rises above one found by either alone, and neither ranking can swamp the
//! other. It is the default of most hybrid search engines for the same reasons.

use std::collections::HashMap;

/// The `k` of reciprocal rank fusion.
pub(crate) const RRF_K: f64 = 60.0;
/// Longest vector accepted from an embedding model (the largest common models have 4096).
pub const MAX_DIMENSIONS: usize = 16_384;

#[cfg(feature = "sqlite")]
/// A vector as SQLite stores it: little-endian `f32`s.
pub(crate) fn to_blob(vector: &[f32]) -> Vec<u8> {
    vector
        .iter()
        .flat_map(|value| value.to_le_bytes())
        .collect()
}

#[cfg(feature = "sqlite")]
/// A stored vector; `None` when the BLOB is not a whole number of `f32`s.
pub(crate) fn from_blob(blob: &[u8]) -> Option<Vec<f32>> {
    if !blob.len().is_multiple_of(4) {
        return None;
    }
    Some(
        blob.chunks_exact(4)
            .map(|bytes| f32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
            .collect(),
    )
}

/// Why a vector from a model cannot be stored, if it cannot: empty, longer than
/// [`MAX_DIMENSIONS`], or holding a value that is not a finite number.
pub fn check(vector: &[f32]) -> Result<(), String> {
    if vector.is_empty() {
        return Err("the model answered an empty vector".into());
    }
    if vector.len() > MAX_DIMENSIONS {
        return Err(format!(
            "the model answered {} dimensions, more than the {MAX_DIMENSIONS} kept",
            vector.len()
        ));
    }
    if vector.iter().any(|value| !value.is_finite()) {
        return Err("the model answered a vector with a value that is not a number".into());
    }
    Ok(())
}

/// Cosine similarity; `None` when the lengths differ or a vector is zero.
///
/// ```
/// assert_eq!(agentctl_memory::cosine_similarity(&[1.0, 0.0], &[0.0, 2.0]), Some(0.0));
/// ```
pub fn cosine(a: &[f32], b: &[f32]) -> Option<f64> {
    if a.len() != b.len() {
        return None;
    }
    let (mut dot, mut norm_a, mut norm_b) = (0.0f64, 0.0f64, 0.0f64);
    for (x, y) in a.iter().zip(b) {
        let (x, y) = (f64::from(*x), f64::from(*y));
        dot += x * y;
        norm_a += x * x;
        norm_b += y * y;
    }
    let norm = norm_a.sqrt() * norm_b.sqrt();
    (norm > 0.0).then(|| dot / norm)
}

/// Fuses rankings (ids, best first) into one by reciprocal rank, best first, with each id's
/// fused score; ties go to the newer entry (the larger id).
///
/// ```
/// let fused = agentctl_memory::fuse_rankings(&[&[1, 2, 3], &[4, 3, 5]]);
/// assert_eq!(fused[0].0, 3);
/// ```
pub fn fuse(rankings: &[&[i64]]) -> Vec<(i64, f64)> {
    let mut scores: HashMap<i64, f64> = HashMap::new();
    for ranking in rankings {
        for (index, id) in ranking.iter().enumerate() {
            let rank = index as f64 + 1.0;
            *scores.entry(*id).or_default() += 1.0 / (RRF_K + rank);
        }
    }
    let mut fused: Vec<(i64, f64)> = scores.into_iter().collect();
    fused.sort_by(|a, b| b.1.total_cmp(&a.1).then(b.0.cmp(&a.0)));
    fused
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(feature = "sqlite")]
    #[test]
    fn blobs_round_trip_and_cosine_is_bounded() {
        let vector = [0.5f32, -1.25, 3.0];
        assert_eq!(from_blob(&to_blob(&vector)).unwrap(), vector);
        assert_eq!(from_blob(&[1, 2, 3]), None);
        assert!((cosine(&[1.0, 0.0], &[2.0, 0.0]).unwrap() - 1.0).abs() < 1e-9);
        assert_eq!(cosine(&[1.0], &[1.0, 2.0]), None);
        assert_eq!(cosine(&[0.0, 0.0], &[1.0, 2.0]), None);
        assert!(check(&[f32::NAN]).is_err());
        assert!(check(&[]).is_err());
    }

    #[test]
    fn an_entry_in_both_rankings_wins() {
        let keyword = [1, 2, 3];
        let meaning = [4, 3, 5];
        let fused = fuse(&[&keyword, &meaning]);
        assert_eq!(fused[0].0, 3);
        // 1 and 4 are both first once: the newer wins the tie.
        assert_eq!((fused[1].0, fused[2].0), (4, 1));
    }
}
