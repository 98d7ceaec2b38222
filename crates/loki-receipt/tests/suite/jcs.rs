//! RFC 8785 conformance of the canonical form and stability under key reordering.

use loki_receipt::schema::{canonical_bytes, receipt_sha256_of_value};
use proptest::prelude::*;
use serde_json::Value;

use crate::support::reversed_json;

#[test]
fn rfc8785_test_data_canonicalizes_byte_for_byte() {
    let Some(dir) = loki_test_support::require_shared_fixtures("jcs") else {
        return;
    };
    let mut seen = 0;
    let mut inputs: Vec<_> = std::fs::read_dir(dir.join("input"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    inputs.sort();
    for input in inputs {
        let name = input.file_name().unwrap();
        let want = std::fs::read(dir.join("output").join(name)).unwrap();
        let value: Value = serde_json::from_slice(&std::fs::read(&input).unwrap()).unwrap();
        let got = canonical_bytes(&value).unwrap();
        assert_eq!(
            String::from_utf8_lossy(&got),
            String::from_utf8_lossy(&want),
            "{}",
            input.display()
        );
        assert_eq!(got, want, "{}", input.display());
        seen += 1;
    }
    assert_eq!(seen, 6, "the RFC test data has six vectors");
}

#[test]
fn edge_cases_of_numbers_and_strings() {
    let cases = [
        ("1e21", "1e+21"),
        ("1e-7", "1e-7"),
        ("-0.0", "0"),
        ("9007199254740993", "9007199254740992"),
        ("0.000001", "0.000001"),
        ("\"\\u2028\\u001f/\"", "\"\u{2028}\\u001f/\""),
        ("{\"\u{FB33}\":1,\"😂\":2}", "{\"😂\":2,\"\u{FB33}\":1}"),
    ];
    for (input, want) in cases {
        let v: Value = serde_json::from_str(input).unwrap();
        assert_eq!(
            String::from_utf8(canonical_bytes(&v).unwrap()).unwrap(),
            want,
            "{input}"
        );
    }
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        (-1e15f64..1e15).prop_map(Value::from),
        "\\PC{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::btree_map("\\PC{0,8}", inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #[test]
    fn canonical_form_ignores_key_order_and_round_trips(v in json_value()) {
        let forward = serde_json::to_string(&v).unwrap();
        let reversed = reversed_json(&v);
        let a: Value = serde_json::from_str(&forward).unwrap();
        let b: Value = serde_json::from_str(&reversed).unwrap();
        let ca = canonical_bytes(&a).unwrap();
        prop_assert_eq!(&ca, &canonical_bytes(&b).unwrap());
        // The canonical form is itself JSON whose canonical form is the same bytes.
        let again: Value = serde_json::from_slice(&ca).unwrap();
        prop_assert_eq!(&canonical_bytes(&again).unwrap(), &ca);
        prop_assert_eq!(receipt_sha256_of_value(&a).unwrap(), receipt_sha256_of_value(&b).unwrap());
    }
}
