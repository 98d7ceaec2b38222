//! Pagination helpers for list endpoints.

use std::ops::Range;

/// Number of pages needed to show `total` items, `per_page` at a time.
/// Zero items still make one (empty) page.
pub fn page_count(total: usize, per_page: usize) -> usize {
    assert!(per_page > 0, "per_page must be positive");
    (total / per_page).max(1)
}

/// Index range of the items on 1-based `page`, or `None` past the end.
pub fn page_range(total: usize, per_page: usize, page: usize) -> Option<Range<usize>> {
    assert!(per_page > 0, "per_page must be positive");
    let start = (page - 1) * per_page;
    if start >= total {
        return None;
    }
    Some(start..(start + per_page).min(total))
}
