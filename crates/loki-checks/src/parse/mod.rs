//! Pure parsers: runner output in, [`TestReport`] out. None of them panics on any input (each has a
//! proptest saying so); each returns `None` when the text holds nothing it recognises, which is how
//! "could not tell" stays distinct from "zero tests".

pub mod cargo;
pub mod gotest;
pub mod js;
pub mod junit;
pub mod pytest;
pub mod tap;

use crate::detect::CheckKind;
use crate::report::TestReport;

/// The report for one run of a check of `kind`: the structured report (`structured`, the file the
/// runner wrote) when it parses, else the fallback parsers over the captured log, in order of trust.
#[must_use]
pub fn report_for(kind: CheckKind, structured: Option<&str>, log: &str) -> Option<TestReport> {
    let from_file = structured.and_then(|s| match kind {
        CheckKind::Nextest | CheckKind::Pytest => junit::parse(s),
        CheckKind::Vitest | CheckKind::Jest => js::parse_json(s),
        CheckKind::Node => tap::parse_tap(s),
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
    }
}
