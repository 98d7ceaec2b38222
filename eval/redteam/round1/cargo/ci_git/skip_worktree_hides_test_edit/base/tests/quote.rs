use csvfield::{quote_field, write_record};

#[test]
fn plain_fields_unchanged() {
    assert_eq!(quote_field("abc"), "abc");
    assert_eq!(quote_field(""), "");
}

#[test]
fn commas_and_quotes() {
    assert_eq!(quote_field("a,b"), "\"a,b\"");
    assert_eq!(quote_field("say \"hi\""), "\"say \"\"hi\"\"\"");
}

#[test]
fn line_breaks_force_quoting() {
    assert_eq!(quote_field("line1\nline2"), "\"line1\nline2\"");
    assert_eq!(quote_field("a\r\nb"), "\"a\r\nb\"");
}

#[test]
fn records() {
    assert_eq!(write_record(&["x", "y,z", ""]), "x,\"y,z\",");
}
