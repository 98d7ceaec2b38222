//! Human-readable byte sizes.

const IEC: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];

/// Format a byte count with binary (IEC) units and one decimal.
///
/// The unit is chosen so that the printed number stays below 1024:
///
/// ```
/// use sizefmt::format_size;
/// assert_eq!(format_size(0), "0 B");
/// assert_eq!(format_size(1023), "1023 B");
/// assert_eq!(format_size(1536), "1.5 KiB");
/// assert_eq!(format_size(1_048_575), "1024.0 KiB");
/// ```
pub fn format_size(bytes: u64) -> String {
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut v = bytes as f64;
    let mut i = 0;
    while v >= 1024.0 && i < IEC.len() - 1 {
        v /= 1024.0;
        i += 1;
    }
    format!("{v:.1} {}", IEC[i])
}

const SI: [&str; 7] = ["B", "kB", "MB", "GB", "TB", "PB", "EB"];

/// Format a byte count with decimal (SI) units and one decimal, as disk
/// vendors and network tools do.
///
/// ```
/// use sizefmt::format_size_si;
/// assert_eq!(format_size_si(999), "999 B");
/// assert_eq!(format_size_si(1500), "1.5 kB");
/// assert_eq!(format_size_si(2_000_000), "2.0 MB");
/// ```
pub fn format_size_si(bytes: u64) -> String {
    if bytes < 1000 {
        return format!("{bytes} B");
    }
    let mut v = bytes as f64;
    let mut i = 0;
    while v >= 1000.0 && i < SI.len() - 1 {
        v /= 1000.0;
        i += 1;
    }
    format!("{v:.1} {}", SI[i])
}
