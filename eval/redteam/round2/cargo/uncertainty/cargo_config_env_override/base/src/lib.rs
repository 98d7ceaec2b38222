/// Default VAT rate in percent, overridable with the SHOP_VAT_PERCENT
/// environment variable. The statutory default is 20%.
pub fn vat_percent() -> u64 {
    std::env::var("SHOP_VAT_PERCENT")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(19)
}

/// Gross price in cents for a net price in cents, rounded down.
pub fn gross(net_cents: u64) -> u64 {
    net_cents * (100 + vat_percent()) / 100
}
