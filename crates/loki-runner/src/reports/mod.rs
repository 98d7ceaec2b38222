//! Pure parsers: runner output in, [`TestReport`] out. None of them panics on any input (each has a
//! proptest saying so); each returns `None` when the text holds nothing it recognises, which is how
//! "could not tell" stays distinct from "zero tests".
//!
//! - [`report`]: the result types ([`TestReport`], [`report::TestCase`], [`report::TestStatus`]),
//!   one per test, with the runner's own id.
//! - [`parse_run`] picks the parsers for a [`CheckKind`] (which runner ran) and reads its
//!   structured reports first, its summary lines last.
//! - one module per format: [`cargo`] (libtest and nextest), [`gotest`] (`go test -json`), [`js`]
//!   (jest and vitest JSON), [`junit`] (nextest, pytest and Maven Surefire), [`pytest`] (loki's plugin and the terminal summary),
//!   [`tap`] (node's test runner).
//!
//! # Invariants
//! Every parser is a pure function of text: no I/O, no process, no panic on any input.

pub mod cargo;
pub mod gotest;
pub mod js;
pub mod junit;
pub mod pytest;
pub mod report;
pub mod tap;

use loki_protocol::CheckKind;

use crate::reports::report::TestReport;

/// What one run's output says, and where it contradicts itself.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParsedRun {
    pub report: Option<TestReport>,
    /// Discrepancies between the output's own channels (see [`cargo::LibtestRun::anomalies`]).
    pub anomalies: Vec<String>,
    /// The exit status the runner itself reported at the end of its session (pytest's plugin).
    pub reported_exit: Option<i64>,
    /// The arguments the runner says it was started with (pytest's plugin), to compare with
    /// what was run: a wrapper between them changes what runs.
    pub started_with: Option<Vec<String>>,
}

/// Parses one run of a check of `kind`: `structured` are the report files the runner wrote, best
/// first (the first that parses wins), `log` the whole output; see [`report_for`] for the order.
#[must_use]
pub fn parse_run(kind: CheckKind, structured: &[String], log: &str) -> ParsedRun {
    match kind {
        CheckKind::Pytest => {
            if let Some(p) = structured.iter().find_map(|s| pytest::parse_plugin(s)) {
                let mut anomalies = Vec::new();
                if p.finished.is_none() {
                    anomalies.push(
                        "pytest's session ended before it finished (something exited the process)"
                            .to_owned(),
                    );
                }
                if !p.env_addopts.trim().is_empty() {
                    anomalies.push(format!(
                        "PYTEST_ADDOPTS was set around the run (`{}`): something between loki and pytest changed its options",
                        p.env_addopts.trim()
                    ));
                }
                // The project's own ini may deselect (`-m "not slow"`): that is committed and
                // judged as configuration. Anything else that deselects is not loki's doing.
                let configured = ["-m", "-k", "--deselect"]
                    .iter()
                    .any(|f| p.ini_addopts.split_whitespace().any(|w| w.starts_with(f)));
                if !p.deselected.is_empty() && !configured {
                    let shown: Vec<&str> =
                        p.deselected.iter().take(3).map(String::as_str).collect();
                    anomalies.push(format!(
                        "{} tests were deselected, so they never ran ({}{})",
                        p.deselected.len(),
                        shown.join(", "),
                        if p.deselected.len() > 3 { ", ..." } else { "" }
                    ));
                }
                return ParsedRun {
                    report: Some(p.report),
                    anomalies,
                    reported_exit: p.finished,
                    started_with: Some(p.args),
                };
            }
            ParsedRun {
                report: structured
                    .iter()
                    .find_map(|s| junit::parse(s))
                    .or_else(|| pytest::parse_text(log)),
                ..ParsedRun::default()
            }
        }
        CheckKind::Cargo => match cargo::parse_libtest_run(log) {
            Some(run) => ParsedRun {
                anomalies: run.anomalies(),
                report: Some(run.report),
                reported_exit: None,
                started_with: None,
            },
            None => ParsedRun::default(),
        },
        // Surefire writes one report per test class: every one counts, not the first.
        CheckKind::Maven => ParsedRun {
            report: junit::merge(structured.iter().filter_map(|s| junit::parse(s)))
                .or_else(|| report_for(kind, None, log)),
            ..ParsedRun::default()
        },
        _ => ParsedRun {
            report: structured
                .iter()
                .find_map(|s| report_for(kind, Some(s), ""))
                .or_else(|| report_for(kind, None, log)),
            ..ParsedRun::default()
        },
    }
}

/// The report for one run of a check of `kind`: the structured report (`structured`, the file the
/// runner wrote) when it parses, else the fallback parsers over the captured log, in order of trust.
#[must_use]
pub fn report_for(kind: CheckKind, structured: Option<&str>, log: &str) -> Option<TestReport> {
    let from_file = structured.and_then(|s| match kind {
        CheckKind::Nextest | CheckKind::Maven => junit::parse(s),
        CheckKind::Pytest => pytest::parse_plugin(s)
            .map(|p| p.report)
            .or_else(|| junit::parse(s)),
        CheckKind::Vitest | CheckKind::Jest => js::parse_json(s),
        CheckKind::Node => tap::parse_node_events(s).or_else(|| tap::parse_tap(s)),
        CheckKind::Cargo | CheckKind::Npm | CheckKind::Go => None,
    });
    if from_file.is_some() {
        return from_file;
    }
    match kind {
        CheckKind::Nextest => {
            cargo::parse_nextest_summary(log).or_else(|| cargo::parse_libtest(log))
        }
        CheckKind::Cargo => cargo::parse_libtest(log),
        CheckKind::Pytest => pytest::parse_text(log),
        CheckKind::Vitest | CheckKind::Jest => js::parse_summary(log),
        CheckKind::Node => tap::parse_tap(log).or_else(|| tap::parse_node_summary(log)),
        CheckKind::Npm => tap::parse_tap(log)
            .or_else(|| tap::parse_node_summary(log))
            .or_else(|| js::parse_summary(log)),
        CheckKind::Go => gotest::parse_json(log).or_else(|| gotest::parse_text(log)),
        CheckKind::Maven => junit::parse_surefire_summary(log),
    }
}
