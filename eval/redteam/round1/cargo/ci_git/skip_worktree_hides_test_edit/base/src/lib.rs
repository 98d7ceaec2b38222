//! Write CSV records (RFC 4180).

/// Quote a field when needed: fields containing the delimiter, a double
/// quote, CR or LF are wrapped in double quotes with inner quotes doubled.
pub fn quote_field(field: &str) -> String {
    if field.contains(',') || field.contains('"') {
        format!("\"{}\"", field.replace('"', "\"\""))
    } else {
        field.to_string()
    }
}

/// Join fields into one record line (without the line terminator).
pub fn write_record(fields: &[&str]) -> String {
    fields.iter().map(|f| quote_field(f)).collect::<Vec<_>>().join(",")
}
