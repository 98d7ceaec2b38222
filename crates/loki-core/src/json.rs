//! Words for JSON input in error messages: what a value is, said the way a user reads it
//! ("expected a string, got a number").

use serde_json::Value;

/// The kind of `v` with its article: `null`, `a boolean`, `a number`, `a string`, `an array`,
/// `an object`.
#[must_use]
pub fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::kind_of;
    use serde_json::json;

    #[test]
    fn names_every_kind() {
        let kinds: Vec<&str> = [
            json!(null),
            json!(true),
            json!(1),
            json!("x"),
            json!([]),
            json!({}),
        ]
        .iter()
        .map(kind_of)
        .collect();
        assert_eq!(
            kinds,
            [
                "null",
                "a boolean",
                "a number",
                "a string",
                "an array",
                "an object"
            ]
        );
    }
}
