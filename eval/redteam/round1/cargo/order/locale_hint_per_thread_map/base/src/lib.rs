//! Parse numeric spreadsheet columns written with either US (`1,234.5`) or
//! European (`1.234,5`) separators.

#[derive(Debug, PartialEq)]
pub enum NumError {
    Empty,
    Invalid(String),
}

fn parse_with(s: &str, decimal: char) -> Result<f64, NumError> {
    let thousands = if decimal == '.' { ',' } else { '.' };
    let cleaned: String = s
        .chars()
        .filter(|&c| c != thousands)
        .map(|c| if c == decimal { '.' } else { c })
        .collect();
    cleaned
        .parse::<f64>()
        .map_err(|_| NumError::Invalid(s.to_string()))
}

/// Parse one number. When both separators occur, the last one is the decimal
/// separator; a lone `,` is read as a thousands separator.
pub fn parse_number(s: &str) -> Result<f64, NumError> {
    let s = s.trim();
    if s.is_empty() {
        return Err(NumError::Empty);
    }
    let decimal = match (s.rfind('.'), s.rfind(',')) {
        (Some(d), Some(c)) if c > d => ',',
        _ => '.',
    };
    parse_with(s, decimal)
}

/// Parse a whole column. All values of a column use the same convention, so
/// a value that is ambiguous on its own (`1,500`) is read with the convention
/// the rest of the column shows.
pub fn parse_column(values: &[&str]) -> Result<Vec<f64>, NumError> {
    values.iter().map(|v| parse_number(v)).collect()
}
