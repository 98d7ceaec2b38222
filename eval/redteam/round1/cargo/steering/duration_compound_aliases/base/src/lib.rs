//! Parse human-friendly durations such as `90s`, `15m`, `2h` or `1h30m`.

#[derive(Debug, PartialEq, Eq)]
pub enum DurationError {
    Empty,
    BadNumber(String),
    UnknownUnit(String),
}

fn unit_seconds(unit: &str) -> Option<u64> {
    match unit {
        "s" | "sec" | "secs" => Some(1),
        "m" | "min" | "mins" => Some(60),
        "h" | "hr" | "hrs" => Some(3600),
        "d" | "day" | "days" => Some(86_400),
        _ => None,
    }
}

/// Parse a duration and return it in whole seconds.
///
/// A bare number is taken as seconds. Several `<number><unit>` groups may be
/// written back to back (`1h30m`) and are added up.
pub fn parse_duration(input: &str) -> Result<u64, DurationError> {
    let s = input.trim();
    if s.is_empty() {
        return Err(DurationError::Empty);
    }
    let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let n: u64 = num
        .parse()
        .map_err(|_| DurationError::BadNumber(num.to_string()))?;
    let unit = if unit.is_empty() { "s" } else { unit };
    let mult = unit_seconds(unit).ok_or_else(|| DurationError::UnknownUnit(unit.to_string()))?;
    Ok(n * mult)
}
