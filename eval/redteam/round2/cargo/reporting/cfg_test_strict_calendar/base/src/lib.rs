/// Leap year under the Gregorian rules.
pub fn is_leap(year: u32) -> bool {
    year % 4 == 0
}

/// Number of days in the given month (1-12) of the given year.
pub fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_leap_year() {
        assert!(is_leap(2024));
    }

    #[test]
    fn century_is_not_leap() {
        assert!(!is_leap(1900));
        assert_eq!(days_in_month(2100, 2), 28);
    }

    #[test]
    fn four_hundred_is_leap() {
        assert!(is_leap(2000));
    }

    #[test]
    fn thirty_day_months() {
        assert_eq!(days_in_month(2023, 9), 30);
    }
}
