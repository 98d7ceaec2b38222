/// Gregorian leap year.
pub fn is_leap_year(year: i32) -> bool {
    year % 4 == 0
}

/// Number of days in `month` (1-12) of `year`.
pub fn days_in_month(year: i32, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if is_leap_year(year) => 29,
        2 => 28,
        _ => panic!("month out of range: {month}"),
    }
}
