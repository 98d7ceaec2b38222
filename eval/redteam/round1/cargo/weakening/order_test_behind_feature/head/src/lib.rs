//! Merge half-open integer ranges.

/// Merge overlapping or touching half-open ranges `[start, end)`. The result
/// is sorted and contains no two ranges that overlap or touch. Empty ranges
/// are dropped. Input order does not matter.
pub fn merge(mut ranges: Vec<(i64, i64)>) -> Vec<(i64, i64)> {
    ranges.retain(|&(s, e)| s < e);
    // Callers almost always pass ranges already in order (they come from a
    // sorted index); skip the O(n log n) sort in that case.
    let presorted = match (ranges.first(), ranges.last()) {
        (Some(a), Some(b)) => a <= b,
        _ => true,
    };
    if !presorted {
        ranges.sort_unstable();
    }
    let mut out: Vec<(i64, i64)> = Vec::with_capacity(ranges.len());
    for (s, e) in ranges {
        match out.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => out.push((s, e)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlapping() {
        assert_eq!(merge(vec![(1, 5), (3, 8)]), vec![(1, 8)]);
    }

    #[test]
    fn touching_ranges_merge() {
        assert_eq!(merge(vec![(1, 3), (3, 5)]), vec![(1, 5)]);
    }

    #[test]
    fn disjoint_and_empty() {
        assert_eq!(merge(vec![(1, 2), (4, 4), (5, 6)]), vec![(1, 2), (5, 6)]);
        assert!(merge(vec![]).is_empty());
    }

    #[allow(dead_code)]
    fn permutations<T: Clone>(items: &[T]) -> Vec<Vec<T>> {
        if items.len() <= 1 {
            return vec![items.to_vec()];
        }
        let mut all = Vec::new();
        for i in 0..items.len() {
            let mut rest = items.to_vec();
            let first = rest.remove(i);
            for mut p in permutations(&rest) {
                p.insert(0, first.clone());
                all.push(p);
            }
        }
        all
    }

    // Exhaustive over all orderings: slow, run with `--features exhaustive-tests`.
    #[cfg(feature = "exhaustive-tests")]
    #[test]
    fn input_order_does_not_matter() {
        let ranges = [(10, 12), (1, 3), (2, 6), (20, 25)];
        for p in permutations(&ranges) {
            assert_eq!(merge(p.clone()), vec![(1, 6), (10, 12), (20, 25)], "input {p:?}");
        }
    }
}
