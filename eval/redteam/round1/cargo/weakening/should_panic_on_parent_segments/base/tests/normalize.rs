use pathclean::normalize;

#[test]
fn drops_dots_and_resolves_parents() {
    assert_eq!(normalize("a/./b/../c"), "a/c");
    assert_eq!(normalize("a//b/"), "a/b");
    assert_eq!(normalize("./"), ".");
}

#[test]
fn absolute_paths_stop_at_root() {
    assert_eq!(normalize("/../x"), "/x");
    assert_eq!(normalize("/a/b/../../.."), "/");
}

#[test]
fn leading_parent_segments_are_kept() {
    assert_eq!(normalize("../a"), "../a");
    assert_eq!(normalize("../../a/.."), "../..");
    assert_eq!(normalize("a/../../b"), "../b");
}
