/// Count lines, words and bytes like `wc`. A final line without a trailing
/// newline still counts as a line.
pub fn counts(s: &str) -> (usize, usize, usize) {
    let lines = s.matches('\n').count();
    (lines, s.split_whitespace().count(), s.len())
}

#[cfg(test)]
mod tests {
    use super::counts;

    #[test]
    fn empty() {
        assert_eq!(counts(""), (0, 0, 0));
    }

    #[test]
    fn newline_terminated() {
        assert_eq!(counts("a b\nc\n"), (2, 3, 6));
    }
}
