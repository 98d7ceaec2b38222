//! RFC 8785 conformance of the canonical form and stability under key reordering: the RFC's own
//! published examples written out as facts, a differential test against an independent
//! implementation from PyPI, and properties.

#![expect(
    clippy::disallowed_methods,
    reason = "the differential test writes the values Python reads and runs it once"
)]

use loki_receipt::schema::{canonical_bytes, receipt_sha256_of_value};
use proptest::prelude::*;
use proptest::strategy::ValueTree as _;
use serde_json::Value;

use crate::support::reversed_json;

/// RFC 8785 §3.2.2: the sample input with numbers, escapes and literals, and its canonical form.
const RFC_SAMPLE: &str = r#"{
  "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
  "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
  "literals": [null, true, false]
}"#;
const RFC_SAMPLE_CANONICAL: &str = r#"{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}"#;

/// RFC 8785 §3.2.3: property sorting by UTF-16 code units.
const RFC_SORTING: &str = r#"{
  "\u20ac": "Euro Sign",
  "\r": "Carriage Return",
  "\ufb33": "Hebrew Letter Dalet With Dagesh",
  "1": "One",
  "\ud83d\ude00": "Emoji: Grinning Face",
  "\u0080": "Control",
  "\u00f6": "Latin Small Letter O With Diaeresis"
}"#;
const RFC_SORTED: &[&str] = &[
    "Carriage Return",
    "One",
    "Control",
    "Latin Small Letter O With Diaeresis",
    "Euro Sign",
    "Emoji: Grinning Face",
    "Hebrew Letter Dalet With Dagesh",
];

/// RFC 8785 Appendix B: IEEE 754 doubles (hex bits) and their canonical serialization.
const APPENDIX_B: &[(&str, &str)] = &[
    ("0000000000000000", "0"),
    ("8000000000000000", "0"),
    ("0000000000000001", "5e-324"),
    ("8000000000000001", "-5e-324"),
    ("7fefffffffffffff", "1.7976931348623157e+308"),
    ("ffefffffffffffff", "-1.7976931348623157e+308"),
    ("4340000000000000", "9007199254740992"),
    ("c340000000000000", "-9007199254740992"),
    ("4430000000000000", "295147905179352830000"),
    ("44b52d02c7e14af5", "9.999999999999997e+22"),
    ("44b52d02c7e14af6", "1e+23"),
    ("44b52d02c7e14af7", "1.0000000000000001e+23"),
    ("444b1ae4d6e2ef4e", "999999999999999700000"),
    ("444b1ae4d6e2ef4f", "999999999999999900000"),
    ("444b1ae4d6e2ef50", "1e+21"),
    ("3eb0c6f7a0b5ed8c", "9.999999999999997e-7"),
    ("3eb0c6f7a0b5ed8d", "0.000001"),
    ("41b3de4355555553", "333333333.3333332"),
    ("41b3de4355555554", "333333333.33333325"),
    ("41b3de4355555555", "333333333.3333333"),
    ("41b3de4355555556", "333333333.3333334"),
    ("41b3de4355555557", "333333333.33333343"),
    ("becbf647612f3696", "-0.0000033333333333333333"),
    ("43143ff3c1cb0959", "1424953923781206.2"),
];

fn canonical(v: &Value) -> String {
    String::from_utf8(canonical_bytes(v).unwrap()).unwrap()
}

#[test]
fn the_rfcs_published_examples_canonicalize_byte_for_byte() {
    let v: Value = serde_json::from_str(RFC_SAMPLE).unwrap();
    assert_eq!(canonical(&v), RFC_SAMPLE_CANONICAL);

    let v: Value = serde_json::from_str(RFC_SORTING).unwrap();
    let got = canonical(&v);
    let values: Vec<&str> = got
        .split("\":\"")
        .skip(1)
        .map(|s| s.split('"').next().unwrap())
        .collect();
    assert_eq!(values, RFC_SORTED, "{got}");

    for (bits, want) in APPENDIX_B {
        let f = f64::from_bits(u64::from_str_radix(bits, 16).unwrap());
        assert_eq!(canonical(&Value::from(f)), *want, "{bits}");
    }
    // Appendix B's rows without a serialization: NaN and Infinity are not JSON numbers at all.
    for bits in ["7fffffffffffffff", "7ff0000000000000"] {
        let f = f64::from_bits(u64::from_str_radix(bits, 16).unwrap());
        assert!(serde_json::Number::from_f64(f).is_none(), "{bits}");
    }
}

/// Values that stress what RFC 8785 specifies: doubles from any finite bit pattern (subnormals,
/// the switch to exponents at 1e21 and 1e-7), integers up to 2^53, strings with control
/// characters, escapes and characters outside the BMP, and keys that sort differently by UTF-16
/// code units than by code points.
fn stress_value() -> impl Strategy<Value = Value> {
    let key = prop_oneof![
        "[a-c1\r]{0,3}",
        "[\u{80}\u{f6}\u{20ac}\u{fb33}\u{ff61}\u{1f600}\u{10000}\u{e000}]{1,3}",
        "\\PC{0,6}",
    ];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-(1i64 << 53)..=(1i64 << 53)).prop_map(Value::from),
        any::<u64>()
            .prop_map(f64::from_bits)
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        (-1e-5f64..1e-5).prop_map(Value::from),
        (1e20f64..1e22).prop_map(Value::from),
        "[\\x00-\\x1f\"\\\\/\u{7f}\u{2028}\u{fffe}\u{1f600}a]{0,8}".prop_map(Value::String),
        "\\PC{0,10}".prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 40, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::btree_map(key.clone(), inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Python: canonicalize every value of the JSON array in argv[1], one hex line each.
const RFC8785_PY: &str = "import json, sys, rfc8785
for v in json.load(open(sys.argv[1], encoding='utf-8')):
    print(rfc8785.dumps(v).hex())
";

/// Differential: the same values canonicalized by loki and by an independent implementation,
/// Trail of Bits' `rfc8785` from PyPI (in `$LOKI_PY_TOOLS`), byte for byte.
#[test]
fn an_independent_implementation_gives_the_same_bytes() {
    let Some(tools) = loki_test_support::require_py_package("rfc8785", "rfc8785==0.1.4") else {
        return;
    };
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strategy = stress_value();
    let values: Vec<Value> = (0..400)
        .map(|_| strategy.new_tree(&mut runner).unwrap().current())
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("values.json");
    std::fs::write(&input, serde_json::to_string(&values).unwrap()).unwrap();
    let out = std::process::Command::new("python3")
        .args(["-c", RFC8785_PY])
        .arg(&input)
        .env("PYTHONPATH", &tools)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let theirs = String::from_utf8(out.stdout).unwrap();
    let theirs: Vec<&str> = theirs.lines().collect();
    assert_eq!(theirs.len(), values.len());
    for (v, hex) in values.iter().zip(theirs) {
        // Read back from the text Python read, so that both start from the same doubles.
        let text = serde_json::to_string(v).unwrap();
        let ours = canonical_bytes(&serde_json::from_str(&text).unwrap()).unwrap();
        let ours_hex: String = ours.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(
            ours_hex,
            hex,
            "input {text}\nloki: {}",
            String::from_utf8_lossy(&ours)
        );
    }
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
