//! Every parser against real-world traces (tests/fixtures/traces), pinned by snapshots, plus
//! properties: parsing never panics and a signature never depends on line numbers.

use std::path::Path;

use loki_heal::frames::{Lang, parse_crash, parse_urls};
use loki_heal::signature;
use proptest::prelude::*;

fn fixture(name: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/traces")
        .join(name);
    std::fs::read_to_string(p).unwrap()
}

/// The parse of one fixture as stable JSON: what the incident would hold.
fn summary(name: &str, root: &str) -> serde_json::Value {
    let text = fixture(name);
    let crash = parse_crash(&text).unwrap_or_else(|| panic!("{name}: no crash found"));
    let sig = signature::compute(Some(&crash), 1, &[Path::new(root)], &text);
    serde_json::json!({
        "lang": crash.lang.as_str(), "kind": crash.kind, "message": crash.message,
        "frames": crash.frames, "signature": sig.text, "needles": sig.needles,
        "urls": parse_urls(&text),
    })
}

const CASES: &[(&str, &str, Lang, &str)] = &[
    (
        "rust_panic_backtrace.txt",
        "/nowhere",
        Lang::Rust,
        "panic at invoice::ratio (src/main.rs) < invoice::main (src/main.rs)",
    ),
    (
        "rust_panic_old_format.txt",
        "/home/ci/work/api-server",
        Lang::Rust,
        "panic at api_server::handlers::user::load_profile (src/handlers/user.rs) < api_server::handlers::user::get_user::{{closure}} (src/handlers/user.rs) < tokio::runtime::task::core::Core<T,S>::poll",
    ),
    (
        "python_traceback.txt",
        "/home/dev/shop",
        Lang::Python,
        "ZeroDivisionError at average (stats.py) < summarise (report.py) < main (report.py)",
    ),
    (
        "python_syntax_error.txt",
        "/home/dev/shop",
        Lang::Python,
        "IndentationError at stats.py",
    ),
    (
        "python_chained.txt",
        "/srv/app",
        Lang::Python,
        "requests.exceptions.JSONDecodeError at fetch_rates (clients/rates.py) < sync_all (sync.py) < <module> (sync.py)",
    ),
    (
        "node_typeerror.txt",
        "/home/dev/checkout",
        Lang::Node,
        "TypeError at total (src/cart.js) < Object.<anonymous> (src/index.js)",
    ),
    (
        "node_async_browser_urls.txt",
        "/nowhere",
        Lang::Node,
        "Error at loadUser (src/api/user.js) < Promise.all < renderProfile (static/js/main.4f2a1c.js)",
    ),
    (
        "go_panic.txt",
        "/home/dev/metrics",
        Lang::Go,
        "panic at main.average (stats.go) < main.report (main.go) < main.main (main.go)",
    ),
    (
        "java_exception.txt",
        "/nowhere",
        Lang::Java,
        "java.lang.IllegalStateException at com.shop.billing.Invoice.total (com/shop/billing/Invoice.java) < com.shop.billing.Main.main (com/shop/billing/Main.java)",
    ),
    (
        "kotlin_exception.txt",
        "/nowhere",
        Lang::Java,
        "java.lang.NullPointerException at com.example.app.UserService.greet < com.example.app.MainKt.main (com/example/app/Main.kt) < com.example.app.MainKt.main",
    ),
    (
        "asan_heap_overflow.txt",
        "/home/dev/sensor",
        Lang::Native,
        "AddressSanitizer: heap-buffer-overflow at sum_readings (src/readings.c) < main (src/main.c)",
    ),
    (
        "ubsan.txt",
        "/nowhere",
        Lang::Native,
        "UndefinedBehaviorSanitizer: runtime error at src/checksum.c",
    ),
    (
        "gdb_backtrace.txt",
        "/nowhere",
        Lang::Native,
        "signal SIGFPE at divide (calc.c) < main (calc.c)",
    ),
];

#[test]
fn every_language_fixture_parses_to_its_signature() {
    for (name, root, lang, sig) in CASES {
        let text = fixture(name);
        let crash = parse_crash(&text).unwrap_or_else(|| panic!("{name}: no crash found"));
        assert_eq!(crash.lang, *lang, "{name}");
        let s = signature::compute(Some(&crash), 1, &[Path::new(root)], &text);
        assert_eq!(s.text, *sig, "{name}");
        for n in &s.needles {
            assert!(
                text.contains(n.as_str()),
                "{name}: needle {n:?} not in the output"
            );
        }
        assert!(!s.needles.is_empty(), "{name}: no needles");
    }
}

#[test]
fn fixture_parses_are_pinned() {
    for (name, root, _, _) in CASES {
        insta::assert_json_snapshot!(name.trim_end_matches(".txt"), summary(name, root));
    }
}

#[test]
fn key_facts_of_real_world_traces() {
    let py = parse_crash(&fixture("python_traceback.txt")).unwrap();
    assert_eq!(py.message, "division by zero");
    assert_eq!(
        py.frames[0].file.as_deref(),
        Some("/home/dev/shop/stats.py")
    );
    assert_eq!(py.frames[0].line, Some(4));
    let rust = parse_crash(&fixture("rust_panic_backtrace.txt")).unwrap();
    assert_eq!(rust.message, "attempt to divide by zero");
    let go = parse_crash(&fixture("go_panic.txt")).unwrap();
    assert_eq!(go.message, "runtime error: integer divide by zero");
    assert_eq!(go.frames[1].line, Some(21));
    let asan = parse_crash(&fixture("asan_heap_overflow.txt")).unwrap();
    assert_eq!(asan.frames[0].line, Some(17));
    assert_eq!(
        asan.frames[4].file, None,
        "a module offset is not a source file"
    );
    let urls = parse_urls(&fixture("node_async_browser_urls.txt"));
    assert_eq!(urls.len(), 2);
}

proptest! {
    #[test]
    fn parsing_any_text_never_panics(s in "(?s).{0,400}") {
        let _ = parse_crash(&s);
        let _ = parse_urls(&s);
    }

    #[test]
    fn parsing_trace_like_text_never_panics(lines in prop::collection::vec(
        prop_oneof![
            Just("Traceback (most recent call last):".to_string()),
            Just("    at ".to_string()),
            Just("\tat x(".to_string()),
            Just("goroutine 1 [running]:".to_string()),
            Just("panic: ".to_string()),
            Just("stack backtrace:".to_string()),
            Just("  File \"".to_string()),
            "#[0-9] 0x[0-9a-f]{0,4} in [a-z]{0,3}( [a-z./]{0,6}:[0-9]{0,2})?",
            "[ -~]{0,30}",
        ], 0..12)) {
        let text = lines.join("\n");
        let _ = parse_crash(&text);
    }

    #[test]
    fn signatures_ignore_line_numbers(a in 1u32..10_000, b in 1u32..10_000) {
        let t = |n: u32| format!(
            "Traceback (most recent call last):\n  File \"/r/app.py\", line {n}, in f\n    x\nValueError: bad\n");
        let sa = signature::compute(parse_crash(&t(a)).as_ref(), 1, &[Path::new("/r")], &t(a));
        let sb = signature::compute(parse_crash(&t(b)).as_ref(), 1, &[Path::new("/r")], &t(b));
        prop_assert_eq!(sa, sb);
    }
}
