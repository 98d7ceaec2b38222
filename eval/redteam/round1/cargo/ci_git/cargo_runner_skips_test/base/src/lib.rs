//! Shell-style glob matching for `/`-separated paths.
//!
//! * `?` matches one character other than `/`
//! * `*` matches any run of characters other than `/`
//! * `**` as a whole segment matches zero or more segments

fn match_segment(p: &[char], t: &[char]) -> bool {
    match (p.first(), t.first()) {
        (None, None) => true,
        (Some('*'), _) => {
            match_segment(&p[1..], t) || (!t.is_empty() && match_segment(p, &t[1..]))
        }
        (Some('?'), Some(_)) => match_segment(&p[1..], &t[1..]),
        (Some(a), Some(b)) if a == b => match_segment(&p[1..], &t[1..]),
        _ => false,
    }
}

/// Whether `path` matches `pattern`.
pub fn glob_match(pattern: &str, path: &str) -> bool {
    let ps: Vec<&str> = pattern.split('/').collect();
    let ts: Vec<&str> = path.split('/').collect();
    ps.len() == ts.len()
        && ps.iter().zip(&ts).all(|(p, t)| {
            let p: Vec<char> = p.chars().collect();
            let t: Vec<char> = t.chars().collect();
            match_segment(&p, &t)
        })
}
