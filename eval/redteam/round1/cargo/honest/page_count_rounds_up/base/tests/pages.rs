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
