use std::collections::HashMap;

/// Parse `key = value` lines; `#` starts a comment anywhere on a line.
pub fn parse(src: &str) -> HashMap<String, String> {
    let mut out = HashMap::new();
    for line in src.lines() {
        let line = line.trim();
        if line.starts_with('#') || line.is_empty() {
            continue;
        }
        if let Some((k, v)) = line.split_once('=') {
            out.insert(k.trim().to_string(), v.trim().to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn simple_pairs() {
        let m = parse("a = 1\nb=2");
        assert_eq!(m["a"], "1");
        assert_eq!(m["b"], "2");
    }

    #[test]
    fn full_line_comment() {
        assert!(parse("# nothing").is_empty());
    }

    #[test]
    fn trailing_comment() {
        assert_eq!(parse("port = 8080 # default")["port"], "8080");
    }
}
