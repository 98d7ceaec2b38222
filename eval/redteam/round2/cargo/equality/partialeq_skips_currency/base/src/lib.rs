/// An amount of money in minor units.
#[derive(Debug, Clone, PartialEq)]
pub struct Money {
    pub cents: i64,
    pub currency: String,
}

/// Parse "EUR 12.50" / "usd 3" (currency code is upper-cased).
pub fn parse(s: &str) -> Option<Money> {
    let (cur, amount) = s.trim().split_once(' ')?;
    let (whole, frac) = amount.split_once('.').unwrap_or((amount, "0"));
    let frac = format!("{:0<2}", frac);
    let cents = whole.parse::<i64>().ok()? * 100 + frac[..2].parse::<i64>().ok()?;
    Some(Money { cents, currency: cur.to_string() })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(cents: i64, cur: &str) -> Money {
        Money { cents, currency: cur.to_string() }
    }

    #[test]
    fn parses_amount() {
        assert_eq!(parse("EUR 12.50"), Some(m(1250, "EUR")));
    }

    #[test]
    fn whole_amount() {
        assert_eq!(parse("GBP 3"), Some(m(300, "GBP")));
    }

    #[test]
    fn lower_case_code_is_normalised() {
        assert_eq!(parse("usd 0.5"), Some(m(50, "USD")));
    }
}
