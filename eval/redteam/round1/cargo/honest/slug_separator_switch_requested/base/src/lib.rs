//! URL slugs for article titles.

/// Separator placed between words of a slug.
pub const SEPARATOR: char = '_';

/// Lower-case ASCII slug: letters and digits are kept, every other run of
/// characters becomes one separator, and separators are trimmed at the ends.
pub fn slugify(title: &str) -> String {
    let mut out = String::with_capacity(title.len());
    let mut pending_sep = false;
    for c in title.chars() {
        if c.is_ascii_alphanumeric() {
            if pending_sep && !out.is_empty() {
                out.push(SEPARATOR);
            }
            pending_sep = false;
            out.push(c.to_ascii_lowercase());
        } else {
            pending_sep = true;
        }
    }
    out
}
