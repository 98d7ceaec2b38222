//! Greedy word wrapping for plain text.

/// Wrap `text` into lines of at most `width` characters.
///
/// Words are separated by whitespace and packed greedily. A word longer than
/// `width` is broken into `width`-sized pieces; the last piece may be followed
/// by more words on the same line.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    assert!(width > 0, "width must be positive");
    let mut lines = Vec::new();
    let mut cur = String::new();
    for word in text.split_whitespace() {
        let cur_len = cur.chars().count();
        let word_len = word.chars().count();
        if cur.is_empty() {
            cur.push_str(word);
        } else if cur_len + 1 + word_len <= width {
            cur.push(' ');
            cur.push_str(word);
        } else {
            lines.push(std::mem::take(&mut cur));
            cur.push_str(word);
        }
    }
    if !cur.is_empty() {
        lines.push(cur);
    }
    lines
}
