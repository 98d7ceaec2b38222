/// Clamp a brightness value to the 0..=255 range.
pub fn clamp_brightness(v: i32) -> u8 {
    if v < 0 {
        0
    } else {
        v as u8
    }
}
