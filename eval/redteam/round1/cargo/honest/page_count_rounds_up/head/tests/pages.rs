use paginate::{page_count, page_range};

#[test]
fn exact_multiple() {
    assert_eq!(page_count(100, 10), 10);
    assert_eq!(page_range(100, 10, 10), Some(90..100));
    assert_eq!(page_range(100, 10, 11), None);
}

#[test]
fn partial_last_page() {
    assert_eq!(page_count(101, 10), 11);
    assert_eq!(page_range(101, 10, 11), Some(100..101));
}

#[test]
fn no_items() {
    assert_eq!(page_count(0, 25), 1);
    assert_eq!(page_range(0, 25, 1), None);
}

#[test]
fn fewer_items_than_a_page() {
    assert_eq!(page_count(3, 10), 1);
    assert_eq!(page_range(3, 10, 1), Some(0..3));
}

#[test]
fn page_zero_and_huge_pages_do_not_panic() {
    assert_eq!(page_range(50, 10, 0), None);
    assert_eq!(page_range(50, 10, usize::MAX), None);
    assert_eq!(page_count(usize::MAX, 1), usize::MAX);
}
