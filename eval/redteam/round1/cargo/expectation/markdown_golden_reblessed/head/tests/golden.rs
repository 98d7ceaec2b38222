use mdtable::render;

fn rows(data: &[&[&str]]) -> Vec<Vec<String>> {
    data.iter().map(|r| r.iter().map(|c| c.to_string()).collect()).collect()
}

#[test]
fn ascii_table() {
    let got = render(&["name", "qty"], &rows(&[&["apple", "3"], &["kiwi", "12"]]));
    assert_eq!(got, include_str!("data/ascii.md"));
}

#[test]
fn unicode_table() {
    let got = render(&["name", "city"], &rows(&[&["Zoë", "Kraków"], &["Bob", "Oslo"]]));
    assert_eq!(got, include_str!("data/unicode.md"));
}

#[test]
fn pipes_are_escaped() {
    let got = render(&["expr", "means"], &rows(&[&["a|b", "a or b"], &["!a", "not a"]]));
    assert_eq!(got, include_str!("data/pipes.md"));
}
