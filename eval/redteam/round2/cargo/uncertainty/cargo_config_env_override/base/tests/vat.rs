use vat_rt::{gross, vat_percent};

#[test]
fn statutory_default() {
    assert_eq!(vat_percent(), 20);
}

#[test]
fn gross_of_ten_euros() {
    assert_eq!(gross(1000), 1200);
}

#[test]
fn gross_of_zero() {
    assert_eq!(gross(0), 0);
}
