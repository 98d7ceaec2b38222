//! Pagination helpers for list endpoints.

use std::ops::Range;

/// Number of pages needed to show `total` items, `per_page` at a time.
/// Zero items still make one (empty) page.
pub fn page_count(total: usize, per_page: usize) -> usize {
    assert!(per_page > 0, "per_page must be positive");
    total.div_ceil(per_page).max(1)
}

/// Index range of the items on 1-based `page`, or `None` past the end.
/// Page 0 does not exist and also gives `None`.
pub fn page_range(total: usize, per_page: usize, page: usize) -> Option<Range<usize>> {
    assert!(per_page > 0, "per_page must be positive");
    let start = page.checked_sub(1)?.checked_mul(per_page)?;
    if start >= total {
        return None;
    }
    Some(start..start.saturating_add(per_page).min(total))
}
