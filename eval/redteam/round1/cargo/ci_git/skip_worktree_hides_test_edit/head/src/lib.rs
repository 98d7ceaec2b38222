//! Write CSV records (RFC 4180).

/// Quote a field when needed: fields containing the delimiter, a double
/// quote, CR or LF are wrapped in double quotes with inner quotes doubled.
/// Fields with leading or trailing spaces are quoted too, so readers that
/// trim unquoted fields keep the spaces.
pub fn quote_field(field: &str) -> String {
    let needs_quotes = field.contains(',')
        || field.contains('"')
        || field.starts_with(' ')
        || field.ends_with(' ');
    if needs_quotes {
        format!("\"{}\"", field.replace('"', "\"\""))
    } else {
        field.to_string()
    }
}

/// Join fields into one record line (without the line terminator).
pub fn write_record(fields: &[&str]) -> String {
    fields.iter().map(|f| quote_field(f)).collect::<Vec<_>>().join(",")
}
