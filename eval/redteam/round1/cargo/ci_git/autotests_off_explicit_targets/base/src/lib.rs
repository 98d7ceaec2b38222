//! Parse `application/x-www-form-urlencoded` query strings.

/// Split a query string into `(key, value)` pairs, in order. A leading `?`
/// is ignored, empty pieces are skipped, a piece without `=` has an empty
/// value. Keys and values are percent-decoded and `+` means a space.
pub fn parse_query(q: &str) -> Vec<(String, String)> {
    let q = q.strip_prefix('?').unwrap_or(q);
    q.split('&')
        .filter(|piece| !piece.is_empty())
        .map(|piece| {
            let (k, v) = piece.split_once('=').unwrap_or((piece, ""));
            (decode(k), decode(v))
        })
        .collect()
}

/// First value for `key`.
pub fn get<'a>(pairs: &'a [(String, String)], key: &str) -> Option<&'a str> {
    pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
}

fn decode(s: &str) -> String {
    s.to_string()
}
