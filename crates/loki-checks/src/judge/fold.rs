//! One finding per removed or broken table, not one per row.
//!
//! Runners that nest tests report the parent and every child as tests of their own: a Go test
//! and its `t.Run` subtests (`pkg/TestToml/decode/invalid/x`), a `node --test` suite and its
//! tests (`file > suite > test`). Deleting a data-driven `TestToml` removes thousands of ids at
//! once; a finding for each buries the one that matters and makes the stop hook's reason
//! unreadable.
//!
//! Rule: a finding about a test whose ancestor (an id it extends with the kind's separator,
//! [`loki_runner::ids::separator`]: `/` for Go, ` > ` for JS runners, `::` for pytest, cargo and
//! Maven) has a finding of the same kind in the same check is folded into the outermost such
//! ancestor's finding, whose detail then says how many were folded and names the first few. Nothing is folded into a finding of another kind or
//! check, and a finding without a test or without such an ancestor stays as it is, so no class
//! of finding can disappear: only rows under a finding that already names their table.

use std::collections::{BTreeMap, BTreeSet};

use loki_protocol::CheckKind;
use loki_protocol::{Finding, FindingKind};

/// Most folded ids a finding names.
const NAMED: usize = 3;

/// Folds findings (whose `path` is still their check's name) as the module doc says.
#[must_use]
pub fn fold_subtests(findings: Vec<Finding>, kinds: &BTreeMap<String, CheckKind>) -> Vec<Finding> {
    let keyed: BTreeSet<(FindingKind, &str, &str)> = findings
        .iter()
        .filter_map(|f| Some((f.kind, f.path.as_str(), f.test.as_deref()?)))
        .collect();
    // Finding index → the outermost ancestor id it folds into.
    let mut into: BTreeMap<usize, String> = BTreeMap::new();
    for (i, f) in findings.iter().enumerate() {
        let Some(id) = f.test.as_deref() else {
            continue;
        };
        let sep = loki_runner::ids::separator(super::identity::kind_of(kinds, &f.path));
        let outermost = id
            .match_indices(sep)
            .map(|(at, _)| &id[..at])
            .find(|a| keyed.contains(&(f.kind, f.path.as_str(), a)));
        if let Some(a) = outermost {
            into.insert(i, a.to_owned());
        }
    }
    if into.is_empty() {
        return findings;
    }
    let mut folded: BTreeMap<(FindingKind, String, String), Vec<String>> = BTreeMap::new();
    for (i, a) in &into {
        let f = &findings[*i];
        folded
            .entry((f.kind, f.path.clone(), a.clone()))
            .or_default()
            .extend(f.test.clone());
    }
    findings
        .into_iter()
        .enumerate()
        .filter(|(i, _)| !into.contains_key(i))
        .map(|(_, mut f)| {
            let key = (f.kind, f.path.clone(), f.test.clone().unwrap_or_default());
            if let Some(children) = folded.get(&key) {
                let named: Vec<&str> = children.iter().take(NAMED).map(String::as_str).collect();
                let more = children.len().saturating_sub(NAMED);
                f.detail = format!(
                    "{}; {} of its subtests have this finding too, folded here ({}{})",
                    f.detail,
                    children.len(),
                    named.join(", "),
                    if more > 0 {
                        format!(" and {more} more")
                    } else {
                        String::new()
                    }
                );
            }
            f
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(kind: FindingKind, check: &str, id: &str) -> Finding {
        Finding::new(kind, check, format!("{id} went")).for_test(id)
    }

    #[test]
    fn rows_fold_into_their_table_and_nothing_else_does() {
        let kinds: BTreeMap<String, CheckKind> = [
            ("go".to_owned(), CheckKind::Go),
            ("node".to_owned(), CheckKind::Node),
        ]
        .into();
        let d = FindingKind::TestDeleted;
        let mut all = vec![
            f(d, "go", "m/TestToml"),
            f(d, "go", "m/TestToml/decode"),
            f(d, "go", "m/TestToml/decode/a"),
            f(d, "go", "m/TestToml/decode/b"),
            f(d, "go", "m/TestToml/encode/c"),
            // Another test whose name starts like the table's: not a row of it.
            f(d, "go", "m/TestTomlNext/x"),
            // Another kind under the same table stays its own finding.
            f(FindingKind::NewlySkipped, "go", "m/TestToml/decode/a"),
            // A row whose table has no finding stays.
            f(d, "go", "m/TestOther/row"),
            f(d, "node", "a.test.js > suite"),
            f(d, "node", "a.test.js > suite > one"),
            Finding::new(FindingKind::SuiteBroken, "go", "no tests"),
        ];
        all.sort();
        let out = fold_subtests(all, &kinds);
        let ids: BTreeSet<(FindingKind, &str)> = out
            .iter()
            .map(|f| (f.kind, f.test.as_deref().unwrap_or("-")))
            .collect();
        assert_eq!(
            ids,
            BTreeSet::from([
                (d, "a.test.js > suite"),
                (d, "m/TestOther/row"),
                (d, "m/TestToml"),
                (d, "m/TestTomlNext/x"),
                (FindingKind::NewlySkipped, "m/TestToml/decode/a"),
                (FindingKind::SuiteBroken, "-"),
            ])
        );
        let table = out
            .iter()
            .find(|f| f.test.as_deref() == Some("m/TestToml"))
            .unwrap();
        assert_eq!(
            table.detail,
            "m/TestToml went; 4 of its subtests have this finding too, folded here (m/TestToml/decode, m/TestToml/decode/a, m/TestToml/decode/b and 1 more)"
        );
        let suite = out
            .iter()
            .find(|f| f.test.as_deref() == Some("a.test.js > suite"))
            .unwrap();
        assert!(
            suite.detail.ends_with(
                "1 of its subtests have this finding too, folded here (a.test.js > suite > one)"
            ),
            "{}",
            suite.detail
        );
    }
}
