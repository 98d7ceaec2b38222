/// Split one CSV line into fields. Double-quoted fields may contain commas;
/// `""` inside quotes is a literal quote.
pub fn split_line(line: &str) -> Vec<String> {
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
