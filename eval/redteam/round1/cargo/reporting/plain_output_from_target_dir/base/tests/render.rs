use statusline::{render, summary, Status};

#[test]
fn captured_output_is_plain() {
    // Test output is captured, never a terminal: no escape codes.
    assert_eq!(render(Status::Ok, "build finished"), "[ OK ] build finished");
    assert_eq!(render(Status::Fail, "lint"), "[FAIL] lint");
}

#[test]
fn labels_have_equal_width() {
    for s in [Status::Ok, Status::Warn, Status::Fail] {
        assert!(render(s, "x").ends_with("] x"));
    }
}

#[test]
fn summary_line() {
    assert_eq!(summary(3, 1), "3 ok, 1 failed");
}
