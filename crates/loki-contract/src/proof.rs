//! A build run's delivery contract: the file it is read from ([`load`]), what the wall author and
//! the implementer are told, and which criteria the sealed wall proves. The criteria themselves
//! come from [`crate::parse`]; which contract a run is judged against is the engine's choice.
//!
//! # Naming convention ([`ids_in_test`])
//! A wall test proves criterion `AC-<n>` only when its *name* carries the id: `test_ac_1_sums`
//! (Python), `ac_1_sums` (Rust), `TestAC1Sums` (Go), a title `AC-1: sums` (JavaScript). Read
//! from the test's id with its file's path and name removed: `ac` or `AC` not preceded by a
//! letter or digit (an upper-case `AC` may follow a lower-case letter: `TestAC1`), then an
//! optional `-` or `_`, then the number, not followed by a digit. So `vac_1`, `BAC1`, `ac_12` for
//! `AC-1` do not count.
//!
//! # Proof ([`prove`])
//! A criterion is **proven** by a wall test that names it and that (1) failed on the base (the
//! gate's run reported it failed, or the file's run failed without reporting it passed or
//! skipped: a test that cannot import what does not exist yet), (2) passed on the head (the last
//! verification reported it passed) and (3) ran unchanged since sealed (the file had its sealed
//! bytes when it ran and the sealed copy still has its hash). Its evidence is every such test's
//! id. Otherwise it is **not proven**, with the reasons of the tests that name it (or "no wall
//! test names it", or "no wall was sealed": the run ended before, or the author wrote nothing
//! that could run). For a criterion of new behaviour, a test that already passed on the base
//! proves nothing about the change.
//!
//! A criterion that asks for existing behaviour to keep working ([`CriterionKind::Preserved`])
//! cannot fail on a correct base: it is **held** by a wall test that names it, passed on the
//! base (the gate's run reported it passed), passed on the head and ran unchanged. A test that
//! failed on the base and passes on the head proves it too (`proven`: it was broken and now
//! works). Held evidence is listed like proven evidence; a criterion with both is `proven`.

use std::path::Path;

use loki_core::layout::Repo;
use loki_protocol::CheckStatus;
use loki_receipt::schema::{Criterion as ReceiptCriterion, CriterionStatus};
use loki_runner::{CheckResult, TestStatus};

use crate::{CONTRACT_FILE, Contract, ContractError, CriterionKind};

/// The source name of a contract derived from the run's task text.
pub const TASK_SOURCE: &str = "task";

/// The contract at `path`, checked; `None` when there is no file.
pub fn load(path: &Path) -> Result<Option<Contract>, ContractError> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(ContractError::io("read", path, e)),
    };
    let bad = |reason: String| ContractError::BadContract {
        path: path.to_path_buf(),
        reason,
    };
    let contract: Contract = serde_json::from_slice(&bytes).map_err(|e| bad(e.to_string()))?;
    contract.check().map_err(|e| bad(e.to_string()))?;
    Ok(Some(contract))
}

/// `.loki/contract.json` of `repo`.
#[must_use]
pub fn repo_contract_path(repo: &Repo) -> std::path::PathBuf {
    repo.loki_dir().join(CONTRACT_FILE)
}

/// What the wall author is told about the criteria and how to name tests.
#[must_use]
pub fn wall_rules(contract: &Contract) -> String {
    let mut s = String::from(
        "The delivery contract: write at least one test per acceptance criterion below, and put the criterion's id in the test's name so the receipt can map each criterion to the tests that prove it: `test_ac_1_<what>` (Python), `ac_1_<what>` (Rust), `TestAC1<What>` (Go), a test title starting `AC-1: ` (JavaScript). A test for two criteria carries both ids (`test_ac_1_ac_2_<what>`). Each such test must fail on the code as it is now and pass once the criterion is met, except for a criterion marked (keeps working): its test checks existing behaviour, so it passes now and must still pass after the change; a criterion no test names is reported NOT PROVEN.\n",
    );
    for c in &contract.criteria {
        let kept = if c.kind == CriterionKind::Preserved {
            " (keeps working)"
        } else {
            ""
        };
        s.push_str(&format!("- {}{kept}: {}\n", c.id, c.text));
    }
    s
}

/// What the implementer is told: the criteria, each proven by the sealed tests named after it.
#[must_use]
pub fn implement_rules(contract: &Contract) -> String {
    let mut s = String::from(
        "\nThe delivery contract (each criterion is proven only by the sealed acceptance tests named after its id):\n",
    );
    for c in &contract.criteria {
        s.push_str(&format!("- {}: {}\n", c.id, c.text));
    }
    s
}

/// The criterion numbers a test's name carries (see the module doc). `file` is the path of the
/// test's file, removed from the id first so `loki_wall_ac_1_test.py` names nothing.
#[must_use]
pub fn ids_in_test(test_id: &str, file: &str) -> Vec<u32> {
    let mut name = test_id.replace(file, " ");
    if let Some(stem) = file
        .rsplit('/')
        .next()
        .and_then(|n| n.split('.').next())
        .filter(|s| !s.is_empty())
    {
        name = name.replace(stem, " ");
    }
    ids_in_text(&name)
}

/// The criterion numbers `text` names (`AC-1`, `ac_1`, `AC1`; see the module doc).
#[must_use]
pub fn ids_in_text(text: &str) -> Vec<u32> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i + 1 < chars.len() {
        let (a, c) = (chars[i], chars[i + 1]);
        let upper = a == 'A' && c == 'C';
        if !(upper || (a.eq_ignore_ascii_case(&'a') && c.eq_ignore_ascii_case(&'c'))) {
            i += 1;
            continue;
        }
        let boundary = match i.checked_sub(1).map(|p| chars[p]) {
            None => true,
            Some(p) => !p.is_alphanumeric() || (upper && p.is_lowercase()),
        };
        let mut j = i + 2;
        if j < chars.len() && (chars[j] == '-' || chars[j] == '_') {
            j += 1;
        }
        let start = j;
        while j < chars.len() && chars[j].is_ascii_digit() {
            j += 1;
        }
        if boundary && j > start {
            let n: String = chars[start..j].iter().collect();
            if let Ok(n) = n.parse::<u32>()
                && !out.contains(&n)
            {
                out.push(n);
            }
        }
        i = j.max(i + 1);
    }
    out
}

/// What the run knows about one sealed wall file.
#[derive(Debug, Clone)]
pub struct WallEvidence {
    pub path: String,
    /// It ran with its sealed bytes and its sealed copy still has its hash.
    pub unchanged: bool,
    /// Its run on the unchanged base (the gate), if it ran there.
    pub base: Option<CheckResult>,
    /// Its run in the last verification, if there was one.
    pub head: Option<CheckResult>,
}

/// What a named test shows for its criterion of `kind`: proven, held, or why neither.
fn judge_test(
    test: &str,
    w: &WallEvidence,
    kind: CriterionKind,
) -> Result<CriterionStatus, String> {
    if !w.unchanged {
        return Err(format!("{test} changed after it was sealed"));
    }
    let status = |r: &CheckResult| r.tests.iter().find(|t| t.id == test).map(|t| t.status);
    let Some(base) = &w.base else {
        return Err(format!("{test} did not run on the base"));
    };
    let met = match (status(base), kind) {
        (Some(TestStatus::Failed), _) => CriterionStatus::Proven,
        (None, _) if base.run.result == CheckStatus::Fail => CriterionStatus::Proven,
        (Some(TestStatus::Passed), CriterionKind::Preserved) => CriterionStatus::Held,
        (Some(TestStatus::Passed), CriterionKind::New) => {
            return Err(format!("{test} passed already on the base"));
        }
        (Some(TestStatus::Skipped), _) => return Err(format!("{test} was skipped on the base")),
        (None, _) => return Err(format!("{test} did not run on the base")),
    };
    match w.head.as_ref().map(status) {
        Some(Some(TestStatus::Passed)) => Ok(met),
        Some(Some(TestStatus::Failed)) => Err(format!("{test} failed on the head")),
        Some(Some(TestStatus::Skipped)) => Err(format!("{test} was skipped on the head")),
        Some(None) | None => Err(format!("{test} did not run on the head")),
    }
}

/// Each criterion of `contract`, proven or not, from what the wall did (see the module doc).
#[must_use]
pub fn prove(contract: &Contract, walls: &[WallEvidence]) -> Vec<ReceiptCriterion> {
    contract
        .criteria
        .iter()
        .map(|c| {
            let number = c.number();
            // Every test of the head or the base run that names the criterion.
            let mut named: Vec<(&str, &WallEvidence)> = Vec::new();
            for w in walls {
                let runs = w.head.iter().chain(w.base.iter());
                for t in runs.flat_map(|r| r.tests.iter()) {
                    if number.is_some_and(|n| ids_in_test(&t.id, &w.path).contains(&n))
                        && !named.iter().any(|(id, _)| *id == t.id)
                    {
                        named.push((t.id.as_str(), w));
                    }
                }
            }
            let mut evidence = Vec::new();
            let mut reasons: Vec<String> = Vec::new();
            let mut status = CriterionStatus::NotProven;
            for (test, w) in &named {
                match judge_test(test, w, c.kind) {
                    Ok(met) => {
                        evidence.push((*test).to_string());
                        // Proven (fail-then-pass) is the stronger evidence: it wins over held.
                        if status != CriterionStatus::Proven {
                            status = met;
                        }
                    }
                    Err(r) => reasons.push(r),
                }
            }
            if walls.is_empty() {
                reasons.push("no wall was sealed".to_string());
            } else if named.is_empty() {
                reasons.push("no wall test names it".to_string());
            }
            let proven = status.is_met();
            ReceiptCriterion {
                id: c.id.clone(),
                text: c.text.clone(),
                status,
                evidence,
                reason: (!proven).then(|| reasons.join("; ")),
                advisory: c.advisory,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use loki_protocol::CheckKind;
    use loki_runner::TestCase;

    use super::*;
    use crate::Criterion;

    #[test]
    fn a_test_names_a_criterion_only_by_the_convention() {
        let f = "loki_wall_ac_2_test.py";
        assert_eq!(
            ids_in_test("loki_wall_ac_2_test.py::test_ac_1_sums", f),
            [1]
        );
        assert_eq!(
            ids_in_test("calc::ac_3_and_ac_12_hold", "tests/loki_wall_x.rs"),
            [3, 12]
        );
        assert_eq!(
            ids_in_test("calc/TestAC4Sums", "calc/loki_wall_x_test.go"),
            [4]
        );
        assert_eq!(
            ids_in_test(
                "test/loki_wall_a.test.js > AC-5: sums",
                "test/loki_wall_a.test.js"
            ),
            [5]
        );
        for none in [
            "test_vac_1",
            "TestBAC1",
            "test_acme_1",
            "test_sums",
            "test_ac_",
        ] {
            assert!(ids_in_test(none, f).is_empty(), "{none}");
        }
        assert_eq!(ids_in_text("Keep ac1, drop AC-2."), [1, 2]);
    }

    fn run(result: CheckStatus, tests: &[(&str, TestStatus)]) -> CheckResult {
        CheckResult {
            run: loki_protocol::CheckRun {
                name: "wall:loki_wall_add_test.py".into(),
                kind: CheckKind::Pytest,
                cmd: String::new(),
                result,
                executed: 0,
                passed: 0,
                failed: 0,
                skipped: 0,
            },
            failing_ids: Vec::new(),
            duration_s: 0.0,
            log_sha256: String::new(),
            log_path: std::path::PathBuf::new(),
            reason: None,
            exit_code: None,
            attempts: 1,
            report_source: None,
            tests: tests
                .iter()
                .map(|(id, status)| TestCase {
                    id: (*id).to_string(),
                    status: *status,
                })
                .collect(),
            environment: None,
        }
    }

    fn contract(n: usize) -> Contract {
        Contract {
            schema: crate::SCHEMA.into(),
            source: "task".into(),
            sha256: String::new(),
            criteria: (1..=n)
                .map(|i| Criterion {
                    id: format!("AC-{i}"),
                    text: format!("criterion {i}"),
                    advisory: false,
                    kind: crate::CriterionKind::New,
                })
                .collect(),
        }
    }

    const T1: &str = "loki_wall_add_test.py::test_ac_1_sums";
    const T2: &str = "loki_wall_add_test.py::test_ac_2_zero";
    const T3: &str = "loki_wall_add_test.py::test_ac_3_old";

    fn evidence(unchanged: bool) -> WallEvidence {
        WallEvidence {
            path: "loki_wall_add_test.py".into(),
            unchanged,
            base: Some(run(
                CheckStatus::Fail,
                &[
                    (T1, TestStatus::Failed),
                    (T2, TestStatus::Failed),
                    (T3, TestStatus::Passed),
                ],
            )),
            head: Some(run(
                CheckStatus::Fail,
                &[
                    (T1, TestStatus::Passed),
                    (T2, TestStatus::Failed),
                    (T3, TestStatus::Passed),
                ],
            )),
        }
    }

    #[test]
    fn proven_means_failed_on_the_base_passed_on_the_head_and_unchanged() {
        let got = prove(&contract(4), &[evidence(true)]);
        let summary: Vec<(CriterionStatus, Vec<String>, Option<String>)> = got
            .into_iter()
            .map(|c| (c.status, c.evidence, c.reason))
            .collect();
        assert_eq!(
            summary,
            vec![
                (CriterionStatus::Proven, vec![T1.to_string()], None),
                (
                    CriterionStatus::NotProven,
                    vec![],
                    Some(format!("{T2} failed on the head"))
                ),
                (
                    CriterionStatus::NotProven,
                    vec![],
                    Some(format!("{T3} passed already on the base"))
                ),
                (
                    CriterionStatus::NotProven,
                    vec![],
                    Some("no wall test names it".into())
                ),
            ]
        );
        let changed = prove(&contract(1), &[evidence(false)]);
        assert_eq!(
            changed[0].reason.as_deref(),
            Some(format!("{T1} changed after it was sealed").as_str())
        );
    }

    #[test]
    fn a_file_that_failed_to_load_on_the_base_counts_as_failed_there() {
        let mut w = evidence(true);
        w.base = Some(run(CheckStatus::Fail, &[]));
        assert_eq!(
            prove(&contract(1), &[w.clone()])[0].status,
            CriterionStatus::Proven
        );
        // A base run that never ran (a timeout, no runner) proves nothing.
        w.base = Some(run(CheckStatus::NotRun, &[]));
        assert_eq!(
            prove(&contract(1), &[w])[0].reason.as_deref(),
            Some(format!("{T1} did not run on the base").as_str())
        );
    }

    #[test]
    fn a_preserved_criterion_is_held_by_a_test_that_passed_on_the_base_and_the_head() {
        let mut c = contract(3);
        c.criteria[2].kind = CriterionKind::Preserved;
        let got = prove(&c, &[evidence(true)]);
        assert_eq!(got[2].status, CriterionStatus::Held);
        assert_eq!(got[2].evidence, [T3]);
        assert_eq!(got[2].reason, None);
        // A new criterion with the same test still needs fail-then-pass.
        assert_eq!(got[0].status, CriterionStatus::Proven);
        // Broken on the head: not held, and why.
        let mut w = evidence(true);
        w.head = Some(run(
            CheckStatus::Fail,
            &[(T1, TestStatus::Passed), (T3, TestStatus::Failed)],
        ));
        let got = prove(&c, &[w]);
        assert_eq!(got[2].status, CriterionStatus::NotProven);
        assert_eq!(
            got[2].reason.as_deref(),
            Some(format!("{T3} failed on the head").as_str())
        );
        // Broken on the base and fixed by the change: proven, the stronger evidence.
        c.criteria[1].kind = CriterionKind::Preserved;
        let mut w = evidence(true);
        w.head = Some(run(CheckStatus::Pass, &[(T2, TestStatus::Passed)]));
        assert_eq!(prove(&c, &[w])[1].status, CriterionStatus::Proven);
        // Changed after sealing: neither.
        assert_eq!(
            prove(&c, &[evidence(false)])[2].status,
            CriterionStatus::NotProven
        );
    }
}
