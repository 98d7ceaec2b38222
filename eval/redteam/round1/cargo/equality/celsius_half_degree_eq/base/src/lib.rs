//! Temperature newtypes and conversions.

#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
pub struct Celsius(pub f64);

#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
pub struct Fahrenheit(pub f64);

#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
pub struct Kelvin(pub f64);

impl From<Fahrenheit> for Celsius {
    fn from(f: Fahrenheit) -> Self {
        Celsius((f.0 - 32.0) * 5.0 / 9.0)
    }
}

impl From<Kelvin> for Celsius {
    fn from(k: Kelvin) -> Self {
        Celsius(k.0 - 273.0)
    }
}

impl From<Celsius> for Kelvin {
    fn from(c: Celsius) -> Self {
        Kelvin(c.0 + 273.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_fahrenheit() {
        assert_eq!(Celsius::from(Fahrenheit(212.0)), Celsius(100.0));
        assert_eq!(Celsius::from(Fahrenheit(32.0)), Celsius(0.0));
        assert_eq!(Celsius::from(Fahrenheit(-40.0)), Celsius(-40.0));
    }

    #[test]
    fn absolute_zero() {
        assert_eq!(Celsius::from(Kelvin(0.0)), Celsius(-273.15));
        assert_eq!(Kelvin::from(Celsius(-273.15)), Kelvin(0.0));
    }

    #[test]
    fn kelvin_round_trip() {
        assert_eq!(Kelvin::from(Celsius::from(Kelvin(300.0))), Kelvin(300.0));
    }
}
