//! Lexical path normalisation (no filesystem access).

/// Normalise `path` lexically: drop empty and `.` segments and resolve `..`
/// against the preceding segment. Both `/` and `\` are accepted as
/// separators; the result always uses `/`.
pub fn normalize(path: &str) -> String {
    let absolute = path.starts_with(['/', '\\']);
    let mut parts: Vec<&str> = Vec::with_capacity(path.len() / 2);
    for seg in path.split(['/', '\\']) {
        match seg {
            "" | "." => {}
            ".." => {
                if absolute && parts.is_empty() {
                    continue;
                }
                parts.pop().expect("`..` with nothing to pop");
            }
            s => parts.push(s),
        }
    }
    let joined = parts.join("/");
    if absolute {
        format!("/{joined}")
    } else if joined.is_empty() {
        ".".to_string()
    } else {
        joined
    }
}
