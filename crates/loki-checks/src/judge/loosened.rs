//! Whether an edit to a test removed or loosened what it checks: a case dropped (an old line none
//! of whose values the new lines hold: a table row removed, whatever was added beside it), or
//! every value of its new lines was in its old lines (equal to, or part of, an old value) and it
//! holds fewer of them, fewer checks or fewer exact comparisons. `assert_eq!(encode("a b"),
//! "a%20b")` → `assert!(out.contains("%20"))` is loosened; a new expected value for the same
//! input is not.

/// The values of some test lines: quoted strings and numbers.
fn values(lines: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for l in lines {
        let chars: Vec<char> = l.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            if matches!(c, '"' | '\'' | '`')
                && let Some(len) = chars[i + 1..].iter().position(|&d| d == c)
            {
                out.push(chars[i + 1..i + 1 + len].iter().collect());
                i += len + 2;
                continue;
            }
            if c.is_ascii_digit() && (i == 0 || !chars[i - 1].is_alphanumeric()) {
                let mut j = i;
                while j < chars.len() && (chars[j].is_ascii_digit() || chars[j] == '.') {
                    j += 1;
                }
                out.push(chars[i..j].iter().collect());
                i = j;
                continue;
            }
            i += 1;
        }
    }
    out
}

/// Lines that check something.
fn checks(lines: &[String]) -> usize {
    const WORDS: &[&str] = &[
        "assert", "expect", "Error", "Fatal", "want", "equal", "Equal", "toBe", "should",
    ];
    lines
        .iter()
        .filter(|l| WORDS.iter().any(|w| l.contains(w)) || l.trim_start().starts_with('{'))
        .count()
}

/// Lines that compare for exact equality (a `contains` or `starts_with` check does not).
fn exact(lines: &[String]) -> usize {
    const EXACT: &[&str] = &[
        "assert_eq",
        "==",
        "!=",
        "toBe(",
        "toEqual(",
        "toStrictEqual(",
        "deepEqual",
        "strictEqual",
        "assertEqual",
        "assert.equal",
        "Equal(",
    ];
    lines
        .iter()
        .filter(|l| EXACT.iter().any(|w| l.contains(w)))
        .count()
}

/// Whether the edit from `was` to `now` removed cases: more lines removed than added, one of
/// them a case none of whose values the new lines hold (table rows deleted, whatever was added
/// beside them). A changed expectation keeps its input, and a changed case keeps its lines.
pub(super) fn dropped_cases(was: &[String], now: &[String]) -> bool {
    let new = values(now);
    was.len() > now.len()
        && was.iter().any(|l| {
            let vals = values(std::slice::from_ref(l));
            !vals.is_empty() && vals.iter().all(|v| !new.contains(v))
        })
}

/// Whether the edit from `was` to `now` only removed or loosened checks.
pub(super) fn only_loosened(was: &[String], now: &[String]) -> bool {
    if was.is_empty() {
        return false;
    }
    let (old, new) = (values(was), values(now));
    let covered = new.iter().all(|v| {
        old.iter()
            .any(|o| o == v || (!v.is_empty() && o.contains(v.as_str())))
    });
    dropped_cases(was, now)
        || (covered
            && (new.len() < old.len() || checks(now) < checks(was) || exact(now) < exact(was)))
}

#[cfg(test)]
mod tests {
    use super::{dropped_cases, only_loosened};

    fn lines(s: &[&str]) -> Vec<String> {
        s.iter().map(|l| (*l).to_owned()).collect()
    }

    #[test]
    fn removed_and_loosened_checks_are_loosened_new_values_are_not() {
        let was = lines(&[r#"    assert_eq!(encode("a b&c"), "a%20b%26c");"#]);
        let contains = lines(&[
            r#"    let out = encode("a b&c");"#,
            r#"    assert!(out.contains("%20"));"#,
        ]);
        assert!(only_loosened(&was, &contains));
        let rows = lines(&[r#"		{"example.com", true},"#, r#"		{"bad_host", false},"#]);
        assert!(only_loosened(&rows, &rows[..1]));
        let mixed = lines(&[r#"		{"*.example.com", true},"#]);
        assert!(dropped_cases(&rows, &mixed));
        // A requested change of input and output together is one case changed.
        let kib = lines(&["  assert.equal(formatBytes(1536), '1.5 KiB');"]);
        assert!(!dropped_cases(
            &lines(&["  assert.equal(formatBytes(1500), '1.5 kB');"]),
            &kib
        ));
        let changed = lines(&[r#"    assert_eq!(encode("a b&c"), "a+b%26c");"#]);
        assert!(!only_loosened(&was, &changed));
        assert!(!only_loosened(&[], &contains));
    }
}
