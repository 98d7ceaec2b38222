use std::collections::BTreeSet;

use super::*;

fn ids(src: &str) -> Vec<(usize, Vec<String>)> {
    parse(src, None)
        .list
        .simples()
        .into_iter()
        .map(|s| (s.id, s.words.clone()))
        .collect()
}

/// The fate of the first command whose first word is `word`.
fn fate_of(src: &str, word: &str, errexit: bool, pipefail: bool) -> Fate {
    let s = parse(src, None);
    let id = s
        .list
        .simples()
        .into_iter()
        .find(|c| c.words.first().map(String::as_str) == Some(word))
        .map(|c| c.id)
        .unwrap_or(usize::MAX);
    let tests = s
        .list
        .simples()
        .into_iter()
        .filter(|c| c.words.first().is_some_and(|w| w == word))
        .map(|c| c.id)
        .collect();
    fate(&s, id, Opts { errexit, pipefail }, &tests)
}

fn swallowed(src: &str, errexit: bool) -> String {
    match fate_of(src, "pytest", errexit, false) {
        Fate::Swallowed(why) => why,
        other => format!("not swallowed: {other:?}"),
    }
}

#[test]
fn words_quotes_operators() {
    let got = ids(
        "A=1 cargo test -p 'a b' \"c\\\"d\" && echo ok || echo no; x | tee log &\nnext \\\n  line # cmt",
    );
    let words: Vec<Vec<String>> = got.into_iter().map(|(_, w)| w).collect();
    assert_eq!(
        words,
        [
            vec!["cargo", "test", "-p", "a b", "c\"d"],
            vec!["echo", "ok"],
            vec!["echo", "no"],
            vec!["x"],
            vec!["tee", "log"],
            vec!["next", "line"],
        ]
        .map(|v| v.into_iter().map(String::from).collect::<Vec<_>>())
    );
    let s = parse("pytest # || true\n# cargo test\n", None);
    assert_eq!(s.comments.len(), 2);
    assert_eq!(s.comments[1].1.trim(), "cargo test");
    assert_eq!(
        split_words("-k 'not slow' --tb=short"),
        ["-k", "not slow", "--tb=short"]
    );
    // Redirections and here-documents are not words.
    assert_eq!(
        ids("pytest > out.txt 2>&1\ncat <<EOF\npytest || true\nEOF\nnext")
            .into_iter()
            .map(|(_, w)| w.join(" "))
            .collect::<Vec<_>>(),
        ["pytest", "cat", "next"]
    );
    // GitHub expressions are one word.
    assert_eq!(
        ids("cargo test ${{ matrix.flags }} x")[0].1[2],
        "${{ matrix.flags }}"
    );
}

#[test]
fn failures_that_propagate() {
    for (src, e, p) in [
        ("pytest", false, false),
        ("pytest\necho done", true, false),
        ("cd x && pytest", true, false),
        ("pytest && echo ok", true, false),
        ("pytest || exit 1", false, false),
        ("pytest || (echo failed; exit 1)", false, false),
        ("pytest | tee log", true, true),
        ("set -o pipefail\npytest | tee log", true, false),
        ("pytest; echo done", true, false),
        ("if pytest; then echo ok; else exit 1; fi", false, false),
        ("set +e\nset -e\npytest\necho x", true, false),
        ("for d in a b; do pytest $d; done", true, false),
        ("bash -ec 'pytest; echo x'", false, false),
        ("if [ -f x ]; then pytest; fi", true, false),
        ("[ -n \"$CI\" ] || pytest", true, false),
        ("pytest || pytest --lf", true, false),
    ] {
        assert_eq!(fate_of(src, "pytest", e, p), Fate::Propagates, "{src}");
    }
}

#[test]
fn failures_that_are_swallowed() {
    assert_eq!(swallowed("pytest || true", true), "`|| true` after it");
    assert_eq!(swallowed("pytest || :", true), "`|| :` after it");
    assert_eq!(
        swallowed("pytest || echo 'tests failed'", true),
        "`|| echo tests failed` after it"
    );
    assert_eq!(swallowed("pytest || exit 0", true), "`|| exit 0` after it");
    assert_eq!(
        swallowed("pytest || (echo failed; exit 1) || true", true),
        "`|| true` after it"
    );
    assert_eq!(swallowed("pytest; exit 0", false), "`exit 0` after it");
    assert_eq!(
        swallowed("pytest\ntrue", false),
        "the shell does not stop on errors (no `set -e`), and a later command (`true`) sets the exit status"
    );
    assert!(swallowed("set +e\npytest\necho done", true).starts_with("`set +e` before it"));
    assert!(swallowed("pytest | tee log", true).contains("pipe into `tee`"));
    assert!(swallowed("pytest | cat", true).contains("pipe into `cat`"));
    assert!(swallowed("! pytest", true).contains("negated"));
    assert!(swallowed("pytest &", true).contains("background"));
    assert!(swallowed("if pytest; then echo ok; fi", true).contains("condition of an `if`"));
    assert!(swallowed("pytest && echo ok\necho done", true).contains("`&&` after it"));
    assert!(swallowed("bash -c 'pytest; true'", true).contains("later command"));
}

#[test]
fn unknowns_and_never_runs() {
    assert_eq!(
        fate_of("set +e\npytest\nrc=$?\nexit $rc", "pytest", true, false),
        Fate::Unknown
    );
    assert_eq!(
        fate_of(
            "set +e\npytest\nif [ $? -ne 0 ]; then exit 1; fi",
            "pytest",
            true,
            false
        ),
        Fate::Unknown
    );
    assert_eq!(
        fate_of("until pytest; do sleep 1; done", "pytest", true, false),
        Fate::Unknown
    );
    assert_eq!(
        fate_of("case $X in a) pytest;; esac", "pytest", true, false),
        Fate::Unknown
    );
    assert!(
        matches!(fate_of("exit 0\npytest", "pytest", true, false), Fate::NeverRuns(w) if w.contains("exit 0"))
    );
}

#[test]
fn nested_resolved_scripts() {
    let resolve = |w: &[String]| {
        (w.first().map(String::as_str) == Some("npm")).then(|| "jest || true".to_owned())
    };
    let s = parse("npm run unit && echo ok", Some(&resolve));
    let jest = s
        .list
        .simples()
        .into_iter()
        .find(|c| c.words[0] == "jest")
        .map(|c| c.id);
    assert!(matches!(
        fate(&s, jest.unwrap_or(0), Opts::default(), &BTreeSet::new()),
        Fate::Swallowed(_)
    ));
}

proptest::proptest! {
    #[test]
    fn parse_and_fate_never_panic(src in "[a-z |&;()!{}$`'\"\\\\#<>\n=-]{0,200}") {
        let s = parse(&src, None);
        let tests = s.list.simples().iter().map(|c| c.id).collect::<BTreeSet<_>>();
        for c in s.list.simples() {
            let _ = fate(&s, c.id, Opts { errexit: true, pipefail: false }, &tests);
        }
    }
}

#[test]
fn never_panics_on_odd_input() {
    for src in [
        "",
        ")",
        "fi",
        "if",
        "((",
        "{ ",
        "'unterminated",
        "\"a",
        "$(",
        "`",
        "a |",
        "&& b",
        ";;",
        "case",
        "for",
        "f() ",
        "<<",
        "cat <<EOF\n",
        "x >",
        "\\",
        "$'",
        "${",
        "!",
        "a && && b",
        "if then fi",
        "while do done",
        "function",
        "(((((((((((((((((((((((((((((((((x",
    ] {
        let s = parse(src, None);
        for c in s.list.simples() {
            let opts = Opts {
                errexit: true,
                pipefail: false,
            };
            let _ = fate(&s, c.id, opts, &BTreeSet::new());
        }
    }
}
