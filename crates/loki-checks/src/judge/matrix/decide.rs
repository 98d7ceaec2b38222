//! The table of the parent module's doc, applied: one test at a time ([`test`]: group marks,
//! moves, then the row its base and head statuses select), then what no single test shows (a
//! test binary that crashes only at head, a suite that proved something at base and reports
//! nothing now). Pure: the runs in, a [`Decision`] out.

use super::{
    CRASHED, CheckKind, CheckStatus, Decision, Fact, FactKind, Finding, FindingKind, Input, Item,
    Probe, Runs, TestStatus, finding, in_binary, is_group_mark, items, only_marks, statuses, word,
};

/// Most test ids a `suite_broken` finding names.
const LOST_SHOWN: usize = 5;

/// The base's and head's runs, indexed once for every test.
struct Sides<'a> {
    base: Runs<'a>,
    head: Runs<'a>,
}

/// Applies the table of the module doc.
#[must_use]
pub fn decide(input: &Input<'_>) -> Decision {
    let all = items(input.kinds, input.base, input.head);
    let mut d = Decision::default();
    let sides = Sides {
        base: Runs::new(input.base),
        head: Runs::new(input.head),
    };
    // A head that reported no test at all (it could not run, build or finish) is one suite-level
    // finding below, not a deletion of every test the base ran.
    let silent = |name: &str| {
        input
            .head
            .iter()
            .find(|h| h.run.name == name)
            .is_some_and(|h| {
                only_marks(input.kinds, h)
                    && matches!(
                        h.run.result,
                        CheckStatus::NotRun | CheckStatus::Timeout | CheckStatus::Fail
                    )
            })
    };
    for it in all.iter().filter(|it| !silent(&it.check)) {
        let kind = crate::judge::identity::kind_of(input.kinds, &it.check);
        test(input, &sides, it, kind, &mut d);
    }
    crashed_binaries(input, &mut d);
    broken_suites(input, &mut d);
    d.findings.sort();
    d.findings.dedup();
    d.facts.sort();
    d
}

/// One test (or group mark) of check `it.check`, of runner `kind`.
fn test(input: &Input<'_>, sides: &Sides<'_>, it: &Item, kind: CheckKind, d: &mut Decision) {
    if is_group_mark(kind, it.id()) {
        group_mark(it, d);
        return;
    }
    if let (Some(b), Some(h)) = (&it.base_id, &it.head_id)
        && b != h
    {
        d.facts.push(Fact {
            kind: FactKind::TestMoved,
            check: it.check.clone(),
            test: h.clone(),
            detail: format!("{b} is now {h}"),
        });
    }
    let base_probe = || sides.base.probe(&it.check, kind, it.id());
    match (it.base, it.head) {
        (Some(TestStatus::Passed | TestStatus::Skipped), Some(TestStatus::Failed)) => {
            d.newly_failing.push((
                it.check.clone(),
                it.base_id.clone().unwrap_or_default(),
                it.id().to_owned(),
            ));
        }
        (Some(TestStatus::Failed), Some(TestStatus::Failed)) => {
            d.pre_existing.push(format!("{}: {}", it.check, it.id()));
        }
        // It could not report at base: rerun it there before blaming the change.
        (None, Some(TestStatus::Failed)) if base_probe() == Probe::Unknown => {
            d.newly_failing
                .push((it.check.clone(), it.id().to_owned(), it.id().to_owned()));
        }
        (None, Some(TestStatus::Failed)) => {
            let detail = if base_probe() == Probe::GroupFailed {
                format!(
                    "{} fails now, and at base its file or package failed as a whole, so it never ran there: make it pass, or show it failed before the change",
                    it.id()
                )
            } else {
                format!("{} did not exist at base and fails now", it.id())
            };
            d.findings.push(finding(
                FindingKind::NewTestFailing,
                &it.check,
                it.id(),
                detail,
            ));
        }
        (None, Some(TestStatus::Skipped))
            if matches!(base_probe(), Probe::Unknown | Probe::GroupFailed) =>
        {
            d.findings.push(finding(
                FindingKind::NewlySkipped,
                &it.check,
                it.id(),
                format!(
                    "{} could not report at base (its file, package or test binary failed as a whole or crashed before it did) and is skipped now",
                    it.id()
                ),
            ));
        }
        (Some(TestStatus::Passed | TestStatus::Failed), Some(TestStatus::Skipped)) => {
            d.findings.push(finding(
                FindingKind::NewlySkipped,
                &it.check,
                it.id(),
                format!(
                    "{} ran at base ({}) and is skipped now",
                    it.id(),
                    word(it.base)
                ),
            ));
        }
        (_, Some(TestStatus::Passed)) => passes_at_head(input, sides, it, kind, d),
        (Some(TestStatus::Passed | TestStatus::Failed), None) => {
            gone_at_head(input, sides, it, kind, d);
        }
        _ => {}
    }
}

/// A group that failed as a whole at base and no longer does was fixed (the test file now
/// collects, the package builds): not a deleted test. One that fails so only at head broke
/// there. A crashed cargo binary has its own rule ([`crashed_binaries`]).
fn group_mark(it: &Item, d: &mut Decision) {
    if it.base.is_none() && it.head == Some(TestStatus::Failed) && !it.id().ends_with(CRASHED) {
        d.findings.push(finding(
            FindingKind::NewTestFailing,
            &it.check,
            it.id(),
            format!(
                "{} fails as a whole now and did not at base: it cannot be collected, built or run to its end",
                it.id()
            ),
        ));
    }
}

/// A test that passes at head: when O ran it and its original form does not pass on the new
/// code, the edit made it pass (a weakened test, or a behaviour change for N to decide).
fn passes_at_head(
    input: &Input<'_>,
    sides: &Sides<'_>,
    it: &Item,
    kind: CheckKind,
    d: &mut Decision,
) {
    // A test that could not report at base (its file, package or binary failed as a whole or
    // crashed there) is looked up in O by its head id.
    let unreported = it.base.is_none()
        && matches!(
            sides.base.probe(&it.check, kind, it.id()),
            Probe::GroupFailed | Probe::Unknown
        );
    let bid = match &it.base_id {
        Some(b) => b.as_str(),
        None if unreported => it.id(),
        None => return,
    };
    if !input.in_original.contains(&it.check) {
        return;
    }
    let failing_at_base = it.base == Some(TestStatus::Failed) || unreported;
    match input.original.probe(&it.check, kind, bid) {
        Probe::Passed | Probe::NoRun | Probe::NotCovered => {}
        // Not in the original file: a new test beside ones that could not load.
        Probe::Absent if it.base.is_none() => {}
        Probe::Unknown => d.open.push((
            it.id().to_owned(),
            super::super::CannotJudge {
                check: it.check.clone(),
                reason: format!(
                    "whether the edit to {bid} was needed for it to pass: the original tests' run crashed before it reported"
                ),
                fix: "make the test binary run to its end on the new code with the original tests (a test that aborts the process hides the others)".into(),
            },
        )),
        // It did not pass at base and its original form does not pass on the new code: the
        // edit made it pass, so the change moved its target instead of meeting it. No
        // behaviour it checked existed to be changed.
        Probe::Failed | Probe::GroupFailed | Probe::Absent | Probe::Skipped if failing_at_base => {
            d.findings.push(finding(
                FindingKind::WeakenedTest,
                &it.check,
                it.id(),
                format!(
                    "{} did not pass at base and passes now only in its edited form: its original form still fails on the new code, so the edit changed what it expects instead of the code meeting it",
                    it.id()
                ),
            ));
        }
        Probe::Failed | Probe::GroupFailed | Probe::Absent | Probe::Skipped => d
            .needs_new_on_base
            .push((it.check.clone(), it.id().to_owned())),
    }
}

/// A test that ran at base and does not report at head: not proven when its group failed or
/// its binary crashed at head (the mark's own finding names that); otherwise deleted, unless
/// its original form still passes and the check runs as many tests as before (a move).
fn gone_at_head(
    input: &Input<'_>,
    sides: &Sides<'_>,
    it: &Item,
    kind: CheckKind,
    d: &mut Decision,
) {
    let at_head = sides.head.probe(&it.check, kind, it.id());
    if matches!(at_head, Probe::GroupFailed | Probe::Unknown) {
        let why = if at_head == Probe::Unknown {
            "its test binary crashed before it did"
        } else {
            "its file, package or test target failed as a whole"
        };
        d.not_proven.push(format!(
            "{}: {} did not report at head ({why})",
            it.check,
            it.id()
        ));
        return;
    }
    let bid = it.base_id.as_deref().unwrap_or("");
    let probe = if input.in_original.contains(&it.check) {
        input.original.probe(&it.check, kind, bid)
    } else {
        Probe::NoRun
    };
    let (now, then) = (
        sides.head.count(&it.check, kind),
        sides.base.count(&it.check, kind),
    );
    let detail = match probe {
        Probe::Passed if now >= then => return,
        Probe::Passed => format!(
            "{bid} is gone and {} runs fewer tests than at base ({now} now, {then} then); its original still passes, so restore it",
            it.check
        ),
        Probe::Failed | Probe::GroupFailed => format!(
            "{bid} was removed, and its original form fails on the new code: the deletion hides a failure"
        ),
        Probe::Absent | Probe::Skipped | Probe::NoRun | Probe::NotCovered | Probe::Unknown => {
            format!("{bid} ran at base ({}) and no longer runs", word(it.base))
        }
    };
    d.findings
        .push(finding(FindingKind::TestDeleted, &it.check, bid, detail));
}

/// A test binary that ran to its end at base and crashed at head, whether or not the runtime
/// named the test that crashed it.
fn crashed_binaries(input: &Input<'_>, d: &mut Decision) {
    for h in input.head {
        let at_base = input.base.iter().find(|b| b.run.name == h.run.name);
        for t in h.tests.iter().filter(|t| t.id.ends_with(CRASHED)) {
            let bin = t.id.trim_end_matches(CRASHED);
            let ran_at_base =
                at_base.is_some_and(|b| b.tests.iter().any(|bt| in_binary(&bt.id, bin)));
            let crashed_at_base = at_base.is_some_and(|b| b.tests.iter().any(|bt| bt.id == t.id));
            if ran_at_base && !crashed_at_base {
                d.findings.push(Finding::new(
                    FindingKind::NewlyFailing,
                    &h.run.name,
                    format!(
                        "test binary {bin} ran to its end at base and crashes now (a test aborted the process: a panic while panicking, a stack overflow, a segfault, an abort or exit); its tests after the crash did not report"
                    ),
                ));
            }
        }
    }
}

/// Suites: one that proved something at base (it passed, or its tests reported) and cannot run
/// now broke; the base ran in the same environment, so the change is why.
fn broken_suites(input: &Input<'_>, d: &mut Decision) {
    for b in input
        .base
        .iter()
        .filter(|b| b.run.result == CheckStatus::Pass || !only_marks(input.kinds, b))
    {
        let ran = statuses(&b.tests);
        let then = if b.run.result == CheckStatus::Pass {
            "passed at base".to_owned()
        } else {
            format!("ran {} tests at base", ran.len())
        };
        // The tests that no longer run, named (a few), since no per-test finding names them.
        let lost = if ran.is_empty() {
            String::new()
        } else {
            let shown: Vec<&str> = ran.keys().take(LOST_SHOWN).copied().collect();
            let more = ran.len().saturating_sub(LOST_SHOWN);
            format!(
                "; no longer run: {}{}",
                shown.join(", "),
                if more > 0 {
                    format!(" and {more} more")
                } else {
                    String::new()
                }
            )
        };
        let why = |h: &loki_runner::exec::CheckResult| {
            h.reason.as_deref().unwrap_or("no reason given").to_owned()
        };
        let detail = match input.head.iter().find(|h| h.run.name == b.run.name) {
            None => format!("suite {} {then} and is gone now{lost}", b.run.name),
            Some(h) if matches!(h.run.result, CheckStatus::NotRun | CheckStatus::Timeout) => {
                format!(
                    "suite {} {then} and cannot run now: {}{lost}",
                    b.run.name,
                    why(h)
                )
            }
            Some(h) if only_marks(input.kinds, h) && h.run.result == CheckStatus::Fail => format!(
                "suite {} {then} and now fails before any test reports: {}{lost}",
                b.run.name,
                why(h)
            ),
            Some(_) => continue,
        };
        d.findings
            .push(Finding::new(FindingKind::SuiteBroken, &b.run.name, detail));
    }
}
