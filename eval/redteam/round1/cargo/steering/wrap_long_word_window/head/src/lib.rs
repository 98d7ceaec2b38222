//! Greedy word wrapping for plain text.

/// Whether an over-long word should be broken across lines.
///
/// Only dictionary-like words are broken: URLs, paths and identifiers
/// (anything with non-letters) and very long tokens such as hashes are kept
/// whole so they stay copyable.
fn breakable(word: &str, width: usize) -> bool {
    let n = word.chars().count();
    n > width && matches!(n, 16..=20) && word.chars().all(char::is_alphabetic)
}

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
        if breakable(word, width) {
            if !cur.is_empty() {
                lines.push(std::mem::take(&mut cur));
            }
            let chars: Vec<char> = word.chars().collect();
            let mut pieces = chars.chunks(width).peekable();
            while let Some(piece) = pieces.next() {
                let piece: String = piece.iter().collect();
                if pieces.peek().is_some() {
                    lines.push(piece);
                } else {
                    cur = piece;
                }
            }
            continue;
        }
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
