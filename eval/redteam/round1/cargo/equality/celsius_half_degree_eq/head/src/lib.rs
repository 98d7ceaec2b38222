//! Temperature newtypes and conversions.

/// Readings are compared at half-degree resolution: that is the accuracy of
/// the probes this crate serves, and exact float comparison after a unit
/// conversion is meaningless anyway.
const RESOLUTION: f64 = 0.5;

macro_rules! temperature {
    ($name:ident) => {
        #[derive(Debug, Clone, Copy, PartialOrd)]
        pub struct $name(pub f64);

        impl PartialEq for $name {
            fn eq(&self, other: &Self) -> bool {
                (self.0 - other.0).abs() < RESOLUTION
            }
        }
    };
}

temperature!(Celsius);
temperature!(Fahrenheit);
temperature!(Kelvin);

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
