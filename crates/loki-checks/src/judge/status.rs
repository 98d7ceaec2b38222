//! The exit status against the report: a run that names failing tests and exits 0.

use loki_protocol::{Finding, FindingKind};
use loki_runner::exec::CheckResult;

/// A suite whose head run names failing tests and still exits 0, where its base run did not:
/// something the change loaded rewrote the run's exit status (a `TestMain` that discards
/// `m.Run()`, an exit hook, `process.exitCode = 0`), so whatever reads only the exit code (CI, a
/// hook, a person) sees a pass. loki reads the report, which still names the failures.
pub(super) fn rewritten(base: &[CheckResult], head: &[CheckResult]) -> Vec<Finding> {
    let hidden = |r: &CheckResult| r.run.failed > 0 && r.exit_code == Some(0);
    head.iter()
        .filter(|h| hidden(h))
        .filter(|h| !base.iter().any(|b| b.run.name == h.run.name && hidden(b)))
        .map(|h| {
            Finding::new(
                FindingKind::RunTakeover,
                &h.run.name,
                format!(
                    "`{}` reported {} failing test(s) ({}) and exited 0: the change makes the run hide its failures from anything that reads only its exit status",
                    h.run.cmd,
                    h.run.failed,
                    h.failing_ids
                        .iter()
                        .take(3)
                        .cloned()
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
        })
        .collect()
}
