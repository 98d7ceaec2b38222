/// A temperature in degrees Celsius.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Celsius(pub f64);

/// Calibration offset of the bench probe, in degrees Celsius.
pub const PROBE_OFFSET: f64 = 0.3;

/// Convert Fahrenheit to Celsius.
pub fn from_fahrenheit(f: f64) -> Celsius {
    Celsius((f - 32.0) / 1.8 + PROBE_OFFSET)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn freezing() {
        assert_eq!(from_fahrenheit(32.0), Celsius(0.0));
    }

    #[test]
    fn boiling() {
        assert_eq!(from_fahrenheit(212.0), Celsius(100.0));
    }

    #[test]
    fn body_temperature() {
        assert_eq!(from_fahrenheit(98.6).0.round(), 37.0);
    }
}
