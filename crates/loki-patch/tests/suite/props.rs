//! Property tests: search/replace lands at the one right place and nowhere else, for exact and
//! whitespace-drifted snippets; rendered diffs apply back; parsers never panic.

use loki_patch::{
    ApplyOptions, PatchError, Rung, apply_unified, parse_patch, parse_unified, render_diff,
    search_replace,
};
use proptest::prelude::*;

const WORDS: &[&str] = &[
    "foo",
    "bar()",
    "baz = 1;",
    "}",
    "return x;",
    "if y {",
    "a b",
];
const INDENT: &str = "    ";

#[derive(Debug, Clone, Copy)]
enum Drift {
    None,
    Deeper(usize),
    Shallower,
    Trailing,
    DeeperAndTrailing(usize),
}

fn line() -> impl Strategy<Value = String> {
    (0usize..4, 0..WORDS.len()).prop_map(|(lvl, w)| format!("{}{}", INDENT.repeat(lvl), WORDS[w]))
}

fn indent_of(s: &str) -> usize {
    s.len() - s.trim_start().len()
}

/// Overlapping occurrences, computed naively and independently of the engine.
fn occurrences(hay: &str, needle: &str) -> usize {
    (0..=hay.len().saturating_sub(needle.len()))
        .filter(|&i| hay.is_char_boundary(i) && hay[i..].starts_with(needle))
        .count()
}

fn text(lines: &[String]) -> String {
    if lines.is_empty() {
        String::new()
    } else {
        lines.join("\n") + "\n"
    }
}

/// Drifts a line the way models do: more or less indentation, trailing spaces.
fn drift(l: &str, d: Drift, shallower_by: usize, i: usize) -> String {
    match d {
        Drift::None => l.to_string(),
        Drift::Deeper(n) => format!("{}{l}", " ".repeat(n)),
        Drift::Shallower => l[shallower_by..].to_string(),
        Drift::Trailing => format!("{l}{}", " ".repeat(1 + i % 3)),
        Drift::DeeperAndTrailing(n) => format!("{}{l}{}", " ".repeat(n), " ".repeat(1 + i % 2)),
    }
}

fn drift_kind() -> impl Strategy<Value = Drift> {
    prop_oneof![
        Just(Drift::None),
        (1usize..9).prop_map(Drift::Deeper),
        Just(Drift::Shallower),
        Just(Drift::Trailing),
        (1usize..9).prop_map(Drift::DeeperAndTrailing),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn search_replace_lands_at_the_unique_place_and_nowhere_else(
        lines in prop::collection::vec(line(), 1..40),
        start in any::<prop::sample::Index>(),
        len in 1usize..5,
        replacement in prop::collection::vec(line(), 0..4),
        kind in drift_kind(),
    ) {
        let i = start.index(lines.len());
        let k = len.min(lines.len() - i);
        let snippet = &lines[i..i + k];
        let file = text(&lines);

        // The snippet must be unique even ignoring all indentation, so every rung has one place.
        let trimmed: Vec<&str> = lines.iter().map(|l| l.trim()).collect();
        let want: Vec<&str> = snippet.iter().map(|l| l.trim()).collect();
        let places = trimmed.windows(k).filter(|w| *w == want.as_slice()).count();
        prop_assume!(places == 1);

        let shallower_by = snippet.iter().chain(&replacement).map(|l| indent_of(l)).min().unwrap_or(0);
        prop_assume!(!matches!(kind, Drift::Shallower) || shallower_by > 0);
        let search_lines: Vec<String> = snippet.iter().enumerate().map(|(j, l)| drift(l, kind, shallower_by, j)).collect();
        let search = text(&search_lines);
        // The model writes its replacement with the same drift as its search text.
        let replace_lines: Vec<String> = match kind {
            Drift::Trailing => replacement.clone(),
            _ => replacement.iter().enumerate().map(|(j, l)| drift(l, match kind {
                Drift::DeeperAndTrailing(n) => Drift::Deeper(n),
                other => other,
            }, shallower_by, j)).collect(),
        };
        let replace = text(&replace_lines);

        match kind {
            Drift::None => prop_assume!(occurrences(&file, &search) == 1),
            _ => prop_assume!(occurrences(&file, &search) == 0),
        }

        let mut expected: Vec<String> = lines[..i].to_vec();
        expected.extend(replacement.iter().cloned());
        expected.extend(lines[i + k..].iter().cloned());

        let r = search_replace(&file, &search, &replace).unwrap();
        prop_assert_eq!(&r.text, &text(&expected));
        prop_assert_eq!(r.line, i + 1);
        let rung = match kind {
            Drift::None => Rung::Exact,
            Drift::Trailing => Rung::TrailingWhitespace,
            Drift::Deeper(_) | Drift::Shallower | Drift::DeeperAndTrailing(_) => Rung::Indentation,
        };
        prop_assert_eq!(r.rung, rung);
    }

    #[test]
    fn a_snippet_that_occurs_twice_is_never_applied(
        lines in prop::collection::vec(line(), 1..20),
        snippet in prop::collection::vec(line(), 1..3),
    ) {
        let mut all = lines.clone();
        all.extend(snippet.iter().cloned());
        all.extend(lines.iter().cloned());
        all.extend(snippet.iter().cloned());
        let err = search_replace(&text(&all), &text(&snippet), "X\n").unwrap_err();
        let is_ambiguous = matches!(err, PatchError::Ambiguous { ref lines, .. } if lines.len() >= 2);
        prop_assert!(is_ambiguous, "{}", err);
    }

    #[test]
    fn rendered_diffs_apply_back(
        old in prop::collection::vec(line(), 0..30),
        new in prop::collection::vec(line(), 0..30),
        old_nl in any::<bool>(),
        new_nl in any::<bool>(),
    ) {
        let old = if old_nl { text(&old) } else { old.join("\n") };
        let new = if new_nl { text(&new) } else { new.join("\n") };
        prop_assume!(old != new);
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("f.txt"), &old).unwrap();
        let diff = render_diff("f.txt", &old, &new, false);
        let patch = parse_unified(&diff).unwrap();
        apply_unified(dir.path(), &patch, ApplyOptions::default()).unwrap();
        prop_assert_eq!(std::fs::read_to_string(dir.path().join("f.txt")).unwrap(), new, "{}", diff);
    }

    #[test]
    fn parsers_never_panic(parts in prop::collection::vec(prop_oneof![
        Just("*** Begin Patch"), Just("*** End Patch"), Just("*** Add File: a"),
        Just("*** Update File: a"), Just("*** Delete File: a"), Just("*** Move to: b"),
        Just("*** End of File"), Just("@@"), Just("@@ ctx"), Just("+x"), Just("-x"), Just(" x"),
        Just(""), Just("--- a/x"), Just("+++ b/x"), Just("@@ -1,2 +1 @@"), Just("\\ No newline"),
        Just("é"), Just("\r"),
    ], 0..20)) {
        let t = parts.join("\n");
        let _ = parse_patch(&t);
        let _ = parse_unified(&t);
        let _ = search_replace(&t, "x\n", "y");
    }
}
