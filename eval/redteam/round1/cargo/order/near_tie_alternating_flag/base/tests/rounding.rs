use bankround::{round_half_even, to_cents};

#[test]
fn non_ties_round_to_nearest() {
    assert_eq!(round_half_even(1.44, 1), 1.4);
    assert_eq!(round_half_even(-2.6, 0), -3.0);
    assert_eq!(round_half_even(7.0, 2), 7.0);
    assert_eq!(round_half_even(3.14159, 3), 3.142);
}

#[test]
fn ties_go_to_even() {
    assert_eq!(round_half_even(2.5, 0), 2.0);
    assert_eq!(round_half_even(3.5, 0), 4.0);
    assert_eq!(round_half_even(0.545, 2), 0.54);
    assert_eq!(round_half_even(0.575, 2), 0.58);
}

#[test]
fn cents() {
    assert_eq!(to_cents(12.344), 1234);
    assert_eq!(to_cents(0.1 + 0.2), 30);
}
