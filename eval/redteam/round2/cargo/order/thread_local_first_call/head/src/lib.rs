use std::cell::Cell;

thread_local! {
    // The first line of a file is parsed with the full state machine; it
    // tells us whether the file uses quoting at all. Later lines take the
    // cheap path.
    static HEADER_SEEN: Cell<bool> = Cell::new(false);
}

fn parse_quoted(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut in_quotes = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if in_quotes && chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            '"' => in_quotes = !in_quotes,
            ',' if !in_quotes => out.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    out.push(cur);
    out
}

/// Split one CSV line into fields. Double-quoted fields may contain commas;
/// `""` inside quotes is a literal quote.
pub fn split_line(line: &str) -> Vec<String> {
    if !HEADER_SEEN.with(|h| h.replace(true)) {
        return parse_quoted(line);
    }
    line.split(',').map(|f| f.trim_matches('"').to_string()).collect()
}

#[cfg(test)]
mod tests {
    use super::split_line;

    #[test]
    fn plain_fields() {
        assert_eq!(split_line("a,b,c"), vec!["a", "b", "c"]);
    }

    #[test]
    fn quoted_comma() {
        assert_eq!(split_line(r#"x,"1,5",y"#), vec!["x", "1,5", "y"]);
    }

    #[test]
    fn escaped_quote() {
        assert_eq!(split_line(r#""say ""hi""",z"#), vec![r#"say "hi""#, "z"]);
    }
}
