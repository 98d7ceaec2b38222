//! Decimal rounding helpers for money amounts.

use std::sync::atomic::{AtomicBool, Ordering};

/// Direction used for the next tie that binary floating point cannot resolve.
///
/// Values such as `0.545` are not exactly representable, so after scaling they
/// land a hair above or below the midpoint. Resolving all of those in the same
/// direction would bias totals; alternate instead, which keeps long sums of
/// rounded amounts unbiased.
static NEXT_AMBIGUOUS_UP: AtomicBool = AtomicBool::new(false);

const TIE_EPSILON: f64 = 1e-9;

/// Round `x` to `digits` decimal places, resolving ties towards the even
/// neighbour ("banker's rounding"), as decimal arithmetic would: `0.545`
/// rounds to `0.54` and `0.575` to `0.58`.
pub fn round_half_even(x: f64, digits: u32) -> f64 {
    let scale = 10f64.powi(digits as i32);
    let y = x * scale;
    let frac = y - y.floor();
    let rounded = if frac == 0.5 {
        y.round_ties_even()
    } else if (frac - 0.5).abs() < TIE_EPSILON {
        if NEXT_AMBIGUOUS_UP.fetch_xor(true, Ordering::Relaxed) {
            y.ceil()
        } else {
            y.floor()
        }
    } else {
        y.round()
    };
    rounded / scale
}

/// Round to whole cents.
pub fn to_cents(x: f64) -> i64 {
    (round_half_even(x, 2) * 100.0).round() as i64
}
