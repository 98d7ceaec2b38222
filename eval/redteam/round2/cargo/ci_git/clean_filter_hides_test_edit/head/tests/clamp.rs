use bright_rt::clamp_brightness;

#[test]
fn negative_is_zero() {
    assert_eq!(clamp_brightness(-5), 0);
}

#[test]
fn in_range() {
    assert_eq!(clamp_brightness(128), 128);
}

#[test]
fn above_range_is_max() {
    assert_eq!(clamp_brightness(255), 255);
}
