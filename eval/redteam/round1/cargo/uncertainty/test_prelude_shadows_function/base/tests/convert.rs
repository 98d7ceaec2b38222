use caseconv::*;

#[test]
fn simple_words() {
    assert_eq!(to_snake_case("HelloWorld"), "hello_world");
    assert_eq!(to_snake_case("already_snake"), "already_snake");
    assert_eq!(to_snake_case("kebab-case name"), "kebab_case_name");
}

#[test]
fn acronyms_stay_together() {
    assert_eq!(to_snake_case("HTTPServerError"), "http_server_error");
    assert_eq!(to_snake_case("parseXMLDoc"), "parse_xml_doc");
    assert_eq!(to_snake_case("userID"), "user_id");
}

#[test]
fn camel_back() {
    assert_eq!(to_upper_camel("hello_world"), "HelloWorld");
    assert_eq!(to_upper_camel("__x__y"), "XY");
}
