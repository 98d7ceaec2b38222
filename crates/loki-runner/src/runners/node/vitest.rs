//! vitest, run by a package script: its JSON report (`--reporter=json`, added to the runner's
//! command in the script by [`crate::script`]), else its summary lines; narrowed to paths after
//! `--` and `-t <full names>`. Detection, status, locating and isolation are the family's
//! ([`super`]).

use std::path::Path;

use crate::detect::Check;
use crate::isolate::Isolation;
use crate::locate::Locator;
use crate::reports::js;
use crate::reports::report::TestReport;
use crate::runners::Runner;
use crate::script::{ScriptFlags, shell_quote};
use crate::select::Selection;

/// vitest in a package script.
#[derive(Debug)]
pub(crate) struct Vitest;

impl Runner for Vitest {
    fn script_flags(
        &self,
        program: &str,
        _args: &[&str],
        tmp: &Path,
        n: usize,
    ) -> Option<ScriptFlags> {
        let report = tmp.join(format!("script-report-{n}.json"));
        (program == "vitest").then(|| ScriptFlags {
            flags: format!(
                " --reporter=default --reporter=json --outputFile.json={}",
                shell_quote(&report.to_string_lossy())
            ),
            report,
            first: false,
        })
    }

    fn parse_file(&self, text: &str) -> Option<TestReport> {
        js::parse_json(text)
    }

    fn parse_log(&self, log: &str) -> Option<TestReport> {
        js::parse_summary(log)
    }

    fn missing_tool(&self, exit_code: i32, log: &str) -> Option<String> {
        super::missing_tool(exit_code, log)
    }

    fn narrow(
        &self,
        check: &Check,
        root: &Path,
        files: Vec<String>,
        sel: &Selection,
    ) -> Option<Check> {
        let paths = super::paths_of(check, root, files, sel)?;
        let names = sel
            .exact
            .then(|| super::name_pattern(&sel.tests, false))
            .flatten();
        super::narrow_script(check, root, paths, names, false)
    }

    fn locate(&self, at: &mut Locator<'_>, check: &Check, id: &str) -> (String, Option<u32>) {
        super::locate(at, check, id, false)
    }

    fn isolation(&self) -> Isolation {
        Isolation::JavaScript
    }
}
