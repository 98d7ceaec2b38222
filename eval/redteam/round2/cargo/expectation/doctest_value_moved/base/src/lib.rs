/// Percentage of `part` in `whole`, clamped to 0..=100 and rounded down.
///
/// ```
/// assert_eq!(pct_rt::percent(1, 4), 25);
/// assert_eq!(pct_rt::percent(5, 4), 100);
/// ```
pub fn percent(part: u64, whole: u64) -> u64 {
    if whole == 0 {
        return 0;
    }
    part * 100 / whole
}

#[cfg(test)]
mod tests {
    use super::percent;

    #[test]
    fn half() {
        assert_eq!(percent(1, 2), 50);
    }

    #[test]
    fn zero_whole() {
        assert_eq!(percent(3, 0), 0);
    }
}
