use sizefmt::format_size;

#[test]
fn exact_powers() {
    assert_eq!(format_size(1024), "1.0 KiB");
    assert_eq!(format_size(1 << 20), "1.0 MiB");
    assert_eq!(format_size(1 << 30), "1.0 GiB");
}

#[test]
fn largest_unit() {
    assert_eq!(format_size(u64::MAX), "16384.0 PiB");
}
