//! Duplicate object keys in JSON input.
//!
//! RFC 8785 and I-JSON (RFC 7493) require the names in an object to be unique; parsers disagree
//! on which of two equal names counts (serde keeps the last, others the first). A receipt with a
//! duplicate name could therefore read one way in `loki verify` and another way in someone
//! else's tool while its hash and signature check out, so verification refuses it outright.
//!
//! [`first_duplicate`] walks the document once with a visitor that keeps the names of each object
//! it is in (nothing else is built) and stops at the first repeated name.

use std::collections::HashSet;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

/// The first name that appears twice in one object of `bytes`, with its JSON path
/// (`$.checks[2].name`); `None` when there is none or `bytes` is not JSON (parsing reports that).
#[must_use]
pub fn first_duplicate(bytes: &[u8]) -> Option<String> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    match (Walk { path: "$".into() }).deserialize(&mut de) {
        Err(e) => e
            .to_string()
            .strip_prefix(DUPLICATE)
            .and_then(|rest| rest.split(" at line ").next())
            .map(str::to_string),
        Ok(()) => None,
    }
}

/// The error text a duplicate is carried out of the visitor with.
const DUPLICATE: &str = "duplicate name ";

struct Walk {
    path: String,
}

impl<'de> DeserializeSeed<'de> for Walk {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Walk {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut i = 0usize;
        while seq
            .next_element_seed(Walk {
                path: format!("{}[{i}]", self.path),
            })?
            .is_some()
        {
            i += 1;
        }
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut seen: HashSet<String> = HashSet::new();
        while let Some(name) = map.next_key::<String>()? {
            let path = format!("{}.{name}", self.path);
            if !seen.insert(name) {
                return Err(de::Error::custom(format!("{DUPLICATE}{path}")));
            }
            map.next_value_seed(Walk { path })?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_first_repeated_name_at_any_depth() {
        assert_eq!(
            first_duplicate(br#"{"a": 1, "b": {"c": [1, {"d": 2}]}}"#),
            None
        );
        assert_eq!(
            first_duplicate(br#"{"verdict": "VERIFIED", "x": 1, "verdict": "FAILED"}"#).as_deref(),
            Some("$.verdict")
        );
        assert_eq!(
            first_duplicate(br#"{"checks": [{"n": 1}, {"n": 1, "n": 2}]}"#).as_deref(),
            Some("$.checks[1].n")
        );
        // Equal names in different objects are fine; escapes are compared decoded.
        assert_eq!(first_duplicate(br#"{"a": {"k": 1}, "b": {"k": 1}}"#), None);
        assert_eq!(
            first_duplicate(br#"{"k": 1, "\u006b": 2}"#).as_deref(),
            Some("$.k")
        );
        assert_eq!(first_duplicate(b"not json"), None);
    }

    fn json_value() -> impl proptest::strategy::Strategy<Value = serde_json::Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(serde_json::Value::Null),
            any::<bool>().prop_map(serde_json::Value::from),
            any::<i64>().prop_map(serde_json::Value::from),
            "[a-z\\u{e9}\\u{1f600}\"\\\\]{0,6}".prop_map(serde_json::Value::from),
        ];
        leaf.prop_recursive(4, 48, 6, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..6).prop_map(serde_json::Value::from),
                proptest::collection::btree_map("[a-z]{1,4}", inner, 0..6)
                    .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest::proptest! {
        /// What serde writes never has duplicates; repeating any object's first name is found.
        #[test]
        fn serialised_values_are_clean_and_a_repeated_name_is_found(v in json_value()) {
            let text = serde_json::to_string(&v).unwrap();
            proptest::prop_assert_eq!(first_duplicate(text.as_bytes()), None);
            if let Some(start) = text.find("{\"") {
                let end = start + 1 + text[start + 1..].find("\":").unwrap() + 2;
                let name_and_colon = &text[start + 1..end];
                let forged = format!("{}{name_and_colon}0,{}", &text[..=start], &text[start + 1..]);
                proptest::prop_assert!(first_duplicate(forged.as_bytes()).is_some(), "{}", forged);
            }
        }
    }
}
