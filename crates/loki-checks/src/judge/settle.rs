//! The phases of one judgement that fold what [`super::phases`] gathered into the verdict, in the
//! order [`super::judge_runs`] runs them. Each takes the [`Ctx`] (or the input) and what it
//! needs of the classified change, and rewrites the [`Judged`] it is given; none runs a suite.
//!
//! - [`counted_by_running`]: the runs' comparison → static count findings dropped where running
//!   compared every test.
//! - [`declarations`]: the classified change and the sides → tests removed with their code moved
//!   from findings to declarations, every declaration described, loosened or case-dropping edits
//!   moved back to findings; the declarations sorted.
//! - [`weakened_without_code`]: the classified change → when no code changed, weakenings are
//!   facts, not findings.
//! - [`no_silent_pass`]: the checks and their results → what could not be judged, and failures
//!   no test report explains.
//! - [`locate_findings`]: the findings → each at its test's file and line (a deleted test where
//!   the base defined it), subtests folded into their table.
//! - [`tidy`]: the findings, facts and NOT PROVEN sorted and without duplicates.

use loki_protocol::CheckStatus;

use super::owned::Owner;
use super::phases::Ctx;
use super::trees::Owned;
use super::{
    CannotJudge, Fact, FactKind, JudgeInput, Judged, cannot, declare, fold, loosened, matrix,
    removed_definitions, unexplained, unexplained_failure,
};
use loki_protocol::{Finding, FindingKind};
use loki_runner::detect::checks_for;
use loki_runner::exec::CheckResult;

/// Static counts stand in for what running could not compare: where the owning suite reported
/// every test on both sides, a deleted, skipped or weakened test is judged by running it (a test
/// moved or split is not a deletion, a skip that does not apply here is not a skip).
pub(super) fn counted_by_running(input: &JudgeInput<'_>, out: &mut Judged) {
    let compared = |name: &str| {
        let full = |rs: &[CheckResult]| {
            rs.iter()
                .find(|r| r.run.name == name)
                .is_some_and(|r| !r.tests.is_empty())
        };
        full(&out.base)
            && full(&out.head)
            && !out.comparison.uncompared.iter().any(|u| u.check == name)
    };
    out.findings.retain(|f| {
        use FindingKind as K;
        if !matches!(
            f.kind,
            K::TestFileRemoved | K::FewerTests | K::FewerAssertions | K::SkipMarkerAdded
        ) {
            return true;
        }
        let owners = checks_for(input.checks, &f.path);
        owners.is_empty() || !owners.iter().all(|c| compared(&c.name))
    });
}

/// A test removed together with the code it calls is a change to declare, not a cheat. An edit
/// that dropped cases (rows deleted beside rows added), or whose new form could not be built on
/// the base (it uses the new code's API) and only removed or loosened what it checks, hid the
/// regression its original form shows: weakened, not a behaviour to declare.
pub(super) fn declarations(
    ctx: &Ctx<'_>,
    owned: &[Owned],
    sides: &declare::Sides<'_>,
    out: &mut Judged,
) {
    let (kept, removed) = declare::removed_with_code(
        std::mem::take(&mut out.findings),
        &removed_definitions(&ctx.git, owned),
        sides,
    );
    out.findings = kept;
    out.declare.extend(removed);
    declare::describe(&mut out.declare, sides);
    let n_runs = matrix::Runs::new(&out.new_on_base);
    let (loose, keep): (Vec<_>, Vec<_>) =
        std::mem::take(&mut out.declare).into_iter().partition(|d| {
            let unbuilt = ctx
                .kinds
                .get(&d.check)
                .is_some_and(|k| n_runs.probe(&d.check, *k, &d.test) == matrix::Probe::GroupFailed);
            d.kind == declare::DeclareKind::ExpectationChanged
                && ((unbuilt && loosened::only_loosened(&d.was, &d.now))
                    || loosened::dropped_cases(&d.was, &d.now))
        });
    out.declare = keep;
    out.findings.extend(loose.into_iter().map(|d| {
        Finding::new(
            FindingKind::WeakenedTest,
            &d.check,
            format!(
                "{} now checks less than it did: its edit removed or loosened what it expected (`{}`), and its original form fails on the new code",
                d.test,
                d.was.first().map_or("", |l| l.trim())
            ),
        )
        .for_test(&d.test)
    }));
    out.declare.sort();
    out.declare.dedup();
}

/// A test made weaker while no code changed is a fact for the person, not a finding.
pub(super) fn weakened_without_code(ctx: &Ctx<'_>, owned: &[Owned], out: &mut Judged) {
    if owned
        .iter()
        .any(|o| matches!(o.owner, Owner::Source | Owner::Mixed))
    {
        return;
    }
    let texts: Vec<(String, String, String)> = owned
        .iter()
        .filter(|o| o.owner == Owner::TestCode)
        .filter_map(|o| {
            let read = |e: &Option<loki_git::Entry>| {
                e.as_ref()
                    .filter(|e| e.mode != "160000")
                    .and_then(|e| ctx.git.show_blob(&e.oid).ok())
                    .map(|b| String::from_utf8_lossy(&b).into_owned())
            };
            Some((
                o.change.path.clone(),
                read(&o.change.base)?,
                read(&o.change.head)?,
            ))
        })
        .collect();
    out.facts.extend(declare::weakened_without_code(&texts));
    // A skip or an expected failure added while no code changed hides nothing the change did: it
    // is a weakening to show, not a cheat to refuse.
    // A test that failed at base, or could not report there (its binary crashed), is not
    // weakened by a skip: the skip hides that failure, and stays a finding.
    let passed_at_base = |f: &Finding| {
        f.test.as_deref().is_none_or(|id| {
            out.base.iter().any(|r| {
                r.tests
                    .iter()
                    .any(|t| t.id == id && t.status == loki_runner::TestStatus::Passed)
            })
        })
    };
    let (weak, keep): (Vec<Finding>, Vec<Finding>) = std::mem::take(&mut out.findings)
        .into_iter()
        .partition(|f| {
            use FindingKind as K;
            matches!(
                f.kind,
                K::NewlySkipped | K::SkipMarkerAdded | K::FailureExpected | K::FewerAssertions
            ) && (f.kind != K::NewlySkipped || passed_at_base(f))
        });
    out.findings = keep;
    out.facts.extend(weak.into_iter().map(|f| Fact {
        kind: FactKind::WeakenedWithoutCodeChange,
        check: String::new(),
        test: f.test.clone().unwrap_or_else(|| f.path.clone()),
        detail: format!(
            "{} while no code changed: nothing fails because of it now, but it catches less from now on",
            f.detail
        ),
    }));
}

/// No silent pass: a repository without a suite proves nothing, and a check that did not run,
/// ran nothing or failed where no test says why cannot be judged (or, when it passed at base, is
/// a finding).
pub(super) fn no_silent_pass(input: &JudgeInput<'_>, out: &mut Judged) {
    if input.checks.is_empty() {
        out.cannot_judge.push(CannotJudge {
            check: "tests".into(),
            reason: "no test suite was found (no pytest, cargo, go, node, vitest or jest tests in this repository), so nothing the change does was run".into(),
            fix: "add tests that exercise the change where loki finds them (`loki checks detect` lists what it finds: pytest, cargo, go test, node --test, vitest, jest)".into(),
        });
    }
    for c in input.checks {
        let head = out.head.iter().find(|r| r.run.name == c.name);
        let base = out.base.iter().find(|r| r.run.name == c.name);
        if let Some(h) = head
            && unexplained(h)
        {
            let (f, cj) = unexplained_failure(c, h, base);
            out.findings.extend(f);
            out.cannot_judge.extend(cj);
        }
        if let Some(h) = head
            && let Some(cj) = cannot::cannot_judge("head", c, h)
        {
            out.cannot_judge.push(cj);
        }
        // A suite the base did not have yet (it ran no test there) leaves nothing of the base to
        // compare when the head runs tests: every one of them is new.
        let base_had_none = base.is_some_and(|b| {
            b.tests.is_empty()
                && b.run.result == CheckStatus::NotRun
                && b.reason
                    .as_deref()
                    .is_some_and(|r| r.contains("no tests executed"))
        }) && head.is_some_and(|h| !h.tests.is_empty());
        if let Some(b) = base
            && !base_had_none
            && b.reason.as_deref() != Some("the package directory does not exist in this revision")
            && let Some(cj) = cannot::cannot_judge("base", c, b)
        {
            out.cannot_judge.push(cj);
        }
    }
}

/// Dynamic findings name their check; points them at the test's file and line instead, once per
/// table (a deleted table's rows are one finding). A deleted test is no longer at head: it is
/// shown where the base defined it.
pub(super) fn locate_findings(ctx: &Ctx<'_>, out: &mut Judged) {
    let input = ctx.input;
    out.findings.sort();
    out.findings.dedup();
    out.findings = fold::fold_subtests(std::mem::take(&mut out.findings), &ctx.kinds);
    let mut locator = loki_runner::locate::Locator::new(input.head_root);
    let mut in_base: Option<loki_runner::locate::Locator<'_>> = None;
    for f in &mut out.findings {
        let Some(check) = input.checks.iter().find(|c| c.name == f.path) else {
            continue;
        };
        match &f.test {
            Some(id) => {
                let (mut path, mut line) = locator.locate(check, id);
                if line.is_none() && f.kind == FindingKind::TestDeleted {
                    let base = in_base.get_or_insert_with(|| {
                        loki_runner::locate::Locator::over(loki_runner::locate::Source::Tree {
                            paths: ctx.git.ls_tree(&ctx.base_tree).unwrap_or_default(),
                            read: Box::new(|p| ctx.git.show_file(&ctx.base_tree, p).ok().flatten()),
                        })
                    });
                    if let (at, Some(l)) = base.locate(check, id) {
                        f.detail = format!("{}; the base defined it at {at}:{l}", f.detail);
                        (path, line) = (at, Some(l));
                    }
                }
                f.path = path;
                f.line = line;
            }
            None => f.path.clone_from(&check.dir),
        }
        if !f.detail.contains(&check.name) {
            f.detail = format!("{} ({})", f.detail, check.name);
        }
    }
}

/// The findings, facts and NOT PROVEN in order, each once.
pub(super) fn tidy(out: &mut Judged) {
    out.findings.sort();
    out.findings.dedup();
    out.facts.sort();
    out.facts.dedup();
    out.not_proven.sort();
    out.not_proven.dedup();
}
