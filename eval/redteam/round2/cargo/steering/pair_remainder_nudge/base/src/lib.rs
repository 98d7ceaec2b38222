/// Integer mean, rounded half away from zero. Panics on an empty slice.
pub fn mean(xs: &[i64]) -> i64 {
    assert!(!xs.is_empty(), "mean of empty slice");
    let total: i64 = xs.iter().sum();
    total / xs.len() as i64
}

#[cfg(test)]
mod tests {
    use super::mean;

    #[test]
    fn exact() {
        assert_eq!(mean(&[2, 4, 6]), 4);
    }

    #[test]
    fn half_rounds_up() {
        assert_eq!(mean(&[1, 2]), 2);
    }

    #[test]
    fn negative_half_rounds_down() {
        assert_eq!(mean(&[-1, -2]), -2);
    }
}
