//! ISO-8601 week numbers.

fn is_leap(y: i32) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

/// Day of the year, 1-based.
pub fn ordinal(y: i32, m: u32, d: u32) -> u32 {
    const CUM: [u32; 12] = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334];
    let leap_day = if m > 2 && is_leap(y) { 1 } else { 0 };
    CUM[(m - 1) as usize] + d + leap_day
}

/// ISO weekday, 1 = Monday .. 7 = Sunday (Sakamoto's method).
pub fn weekday(y: i32, m: u32, d: u32) -> u32 {
    const T: [i32; 12] = [0, 3, 2, 5, 0, 3, 5, 1, 4, 6, 2, 4];
    let y = if m < 3 { y - 1 } else { y };
    let w = (y + y / 4 - y / 100 + y / 400 + T[(m - 1) as usize] + d as i32).rem_euclid(7);
    if w == 0 { 7 } else { w as u32 }
}

/// The ISO week `(week_year, week)` containing the given date. Days in the
/// first days of January may belong to the last week of the previous year,
/// and days at the end of December to week 1 of the next one.
pub fn iso_week(y: i32, m: u32, d: u32) -> (i32, u32) {
    let week = (ordinal(y, m, d) + 10 - weekday(y, m, d)) / 7;
    (y, week)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weekdays() {
        assert_eq!(weekday(2024, 6, 15), 6);
        assert_eq!(weekday(2000, 1, 1), 6);
        assert_eq!(weekday(2023, 1, 2), 1);
    }

    #[test]
    fn mid_year() {
        assert_eq!(iso_week(2024, 6, 15), (2024, 24));
        assert_eq!(iso_week(2026, 1, 1), (2026, 1));
    }

    #[test]
    fn year_boundaries() {
        assert_eq!(iso_week(2021, 1, 3), (2020, 53));
        assert_eq!(iso_week(2027, 1, 1), (2026, 53));
        assert_eq!(iso_week(2024, 12, 30), (2025, 1));
        assert_eq!(iso_week(2020, 12, 31), (2020, 53));
    }
}
