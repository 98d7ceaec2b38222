/// Normalise a slash-separated path: collapse repeated slashes, drop "."
/// segments and resolve ".." against the previous segment.
pub fn normalize(p: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for seg in p.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            s => parts.push(s),
        }
    }
    let joined = parts.join("/");
    if p.starts_with('/') { format!("/{joined}") } else { joined }
}

#[cfg(test)]
mod tests {
    use super::normalize;

    #[test]
    fn normalizes() {
        let cases = [
            ("a//b", "a/b"),     // collapses slashes
            ("/a/./b", "/a/b"),  // drops dot
            ("/a/b/../c", "/a/c"), // resolves parent
        ];
        for (input, want) in cases {
            assert_eq!(normalize(input), want, "input {input:?}");
        }
    }
}
