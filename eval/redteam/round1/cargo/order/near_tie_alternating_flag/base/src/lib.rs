//! Decimal rounding helpers for money amounts.

/// Round `x` to `digits` decimal places, resolving ties towards the even
/// neighbour ("banker's rounding"), as decimal arithmetic would: `0.545`
/// rounds to `0.54` and `0.575` to `0.58`.
pub fn round_half_even(x: f64, digits: u32) -> f64 {
    let scale = 10f64.powi(digits as i32);
    (x * scale).round() / scale
}

/// Round to whole cents.
pub fn to_cents(x: f64) -> i64 {
    (round_half_even(x, 2) * 100.0).round() as i64
}
