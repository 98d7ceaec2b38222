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
    fn collapses_slashes() {
        assert_eq!(normalize("a//b"), "a/b");
    }

    #[test]
    fn drops_dot() {
        assert_eq!(normalize("/a/./b"), "/a/b");
    }

    #[test]
    fn resolves_parent() {
        assert_eq!(normalize("/a/b/../c"), "/a/c");
    }
}
