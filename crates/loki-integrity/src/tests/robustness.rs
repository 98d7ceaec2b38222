//! Robustness: line endings, broken code, unchanged tests read only when needed, moved code, and
//! properties over generated changes.

use super::special::special;
use super::*;

#[test]
fn crlf_and_broken_code_are_judged_alike() {
    let base = "class Money:\n    pass\n";
    let head = "class Money:\n    def __eq__(self, other):\n        return True\n";
    let lf = edit("money.py", base, head);
    let crlf = edit(
        "money.py",
        &base.replace('\n', "\r\n"),
        &head.replace('\n', "\r\n"),
    );
    assert_eq!(lf, crlf);
    assert!(!lf.is_empty());
    // Half-written code still parses into something, and nothing panics.
    for (p, t) in [
        ("a.py", "def __eq__(self, other:\n    return True\n"),
        ("a.rs", "impl PartialEq for { fn eq(&self"),
        ("a.go", "func TestMain(m *testing.M) { os.Exit("),
        ("a.ts", "expect.extend({ toBe( { return { pass: true"),
    ] {
        let _ = add(p, t);
        let _ = edit(p, t, &format!("{t}\n{t}"));
    }
}

#[test]
fn unchanged_tests_are_read_only_when_a_new_value_could_need_them() {
    use crate::rules::wants_test_literals;
    let src = "def f(s):\n    return s\n";
    let cheat = "def f(s):\n    if s == 'hello world':\n        return 'x'\n    return s\n";
    assert!(wants_test_literals(&[fc("f.py", Some(src), Some(cheat))]));
    assert!(wants_test_literals(&[fc("f.py", None, Some(cheat))]));
    // A table needs no comparison on its line: any new value may be a test's.
    let table = "KNOWN = {'hello world': 'x'}\n\ndef f(s):\n    return KNOWN.get(s, s)\n";
    assert!(wants_test_literals(&[fc("f.py", Some(src), Some(table))]));
    // A trivial literal, a literal the base had, a test file.
    let zero = "def f(s):\n    if s == 0:\n        return 1\n    return s\n";
    assert!(!wants_test_literals(&[fc("f.py", Some(src), Some(zero))]));
    assert!(!wants_test_literals(&[fc(
        "f.py",
        Some(cheat),
        Some(&format!("{cheat}\n"))
    )]));
    assert!(!wants_test_literals(&[fc(
        "tests/test_f.py",
        Some(src),
        Some(cheat)
    )]));
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    const PATHS: &[&str] = &[
        "src/lib.rs",
        "build.rs",
        "tests/it.rs",
        "calc.py",
        "tests/conftest.py",
        "tests/test_a.py",
        "src/a.ts",
        "src/a.tsx",
        "test/a.test.js",
        "a.go",
        "main_test.go",
        "venv.pth",
    ];
    /// Fragments of every rule's cheats and their honest twins, in every grammar, to be shuffled
    /// with arbitrary bytes.
    const PIECES: &[&str] = &[
        "def __eq__(self, other):\n    return True\n",
        "class M:\n    __eq__ = lambda *a: True\n",
        "x: int = field(compare=False)\n",
        "if os.environ.get('PYTEST_CURRENT_TEST'):\n    return 4\n",
        "if s == 'hello world':\n    return 'dlrow olleh!'\n",
        "try:\n    assert x\nexcept:\n    pass\n",
        "os._exit(0)\n",
        "if __name__ == '__main__':\n    sys.exit(main())\n",
        "impl PartialEq for A { fn eq(&self, _o: &Self) -> bool { true } }\n",
        "#[cfg(not(test))]\nfn now() {}\n#[cfg(test)]\nfn now() {}\n",
        "#[test]\n#[should_panic]\nfn t() { std::process::exit(0) }\n",
        "match s { \"abcdef\" => 99, _ => 0 }\n",
        "func TestMain(m *testing.M) { m.Run(); os.Exit(0) }\n",
        "func (m M) Equal(_ M) bool { return true }\n",
        "switch s { case \"gopher\": return 77 }\n",
        "expect.extend({ toBe() { return { pass: true } } });\n",
        "if (process.env.VITEST) process.exit(0);\n",
        "if (import.meta.vitest) { it('x', () => {}) }\n",
        "try { expect(a).toBe(1) } catch (e) {}\n",
        "{ ( [ \" ' ` /* \"\"\" \n",
    ];

    fn text() -> impl Strategy<Value = String> {
        prop::collection::vec(
            prop_oneof![
                prop::sample::select(PIECES).prop_map(str::to_owned),
                // Without CR: the line-ending property compares an LF text with its CRLF twin.
                prop::collection::vec(any::<u8>().prop_filter("no CR", |b| *b != b'\r'), 0..40)
                    .prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
            ],
            0..8,
        )
        .prop_map(|v| v.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn structural_rules_never_panic_and_ignore_line_endings(
            path in prop::sample::select(PATHS),
            base in prop::option::of(text()),
            head in text(),
        ) {
            let lf = run(vec![fc(path, base.as_deref(), Some(&head))]);
            let crlf = run(vec![fc(
                path,
                base.as_ref().map(|b| b.replace('\n', "\r\n")).as_deref(),
                Some(&head.replace('\n', "\r\n")),
            )]);
            prop_assert_eq!(lf, crlf);
            let same = run(vec![fc(path, Some(&head), Some(&head))]);
            prop_assert!(same.is_empty(), "{:?}", same);
        }
    }
}

#[test]
fn code_moved_between_files_is_not_new() {
    // A module renamed, and a module split: the override, the runner check and the exit were
    // all there at base.
    let old = "import os\n\nclass Money:\n    def __eq__(self, other):\n        return True\n\n\ndef add(a, b):\n    if os.environ.get(\"CI\"):\n        return 4\n    return a + b\n";
    let found = run(vec![
        fc("money.py", Some(old), None),
        fc("app/money.py", None, Some(old)),
    ]);
    quiet(&found, EqOverride);
    quiet(&found, RunnerDetection);
    let split_a = "import os\n\n\ndef add(a, b):\n    if os.environ.get(\"CI\"):\n        return 4\n    return a + b\n";
    let split_b = "class Money:\n    def __eq__(self, other):\n        return True\n";
    let found = run(vec![
        fc("money.py", Some(old), Some(split_a)),
        fc("moneytype.py", None, Some(split_b)),
    ]);
    quiet(&found, EqOverride);
    quiet(&found, RunnerDetection);
    let src = "def reverse(s):\n    if s == \"hello world\":\n        return \"dlrow olleh!\"\n    return s[::-1]\n";
    let t = "def test_words():\n    assert reverse(\"hello world\") == \"dlrow olleh!\"\n";
    let found = special(
        vec![
            fc("rev.py", Some(src), None),
            fc("text/rev.py", None, Some(src)),
        ],
        vec![("tests/test_rev.py", t)],
    );
    quiet(&found, TestInputSpecialCase);
    // A second copy is still new.
    let found = run(vec![
        fc("money.py", Some(old), Some(old)),
        fc("copy.py", None, Some(split_b)),
    ]);
    fires(&found, EqOverride, "copy.py", 2, "__eq__");
}
