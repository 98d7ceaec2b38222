//! vitest and jest, run by a package script: one runner shape, two rows ([`VITEST`], [`JEST`]).
//! Each reads its JSON report (vitest's `--reporter=json`, jest's `--json`, added to the
//! runner's command in the script by [`crate::script`]), else its summary lines; is narrowed to
//! paths after `--` (regex-escaped for jest, which takes regexes) and `-t <full names>`; and is
//! located by a test's title (for jest, also its `describe` blocks' titles joined with spaces).
//! Detection, status and isolation are the family's ([`super`]).

use std::path::Path;

use crate::detect::Check;
use crate::isolate::Isolation;
use crate::locate::Locator;
use crate::reports::js;
use crate::reports::report::TestReport;
use crate::runners::Runner;
use crate::script::{ScriptFlags, shell_quote};
use crate::select::Selection;
use crate::wall::WallRefusal;

/// A JavaScript test runner that a package script runs and that writes a JSON report.
#[derive(Debug)]
pub(crate) struct Scripted {
    /// The program's name in a script (`vitest`).
    program: &'static str,
    /// The flags that make it write its JSON report to a file, given the quoted path.
    report_flags: fn(&str) -> String,
    /// jest: paths are regexes (escaped when narrowing) and a test's title may be its
    /// `describe` blocks' titles and its own joined with spaces.
    jest: bool,
}

/// vitest in a package script.
pub(crate) const VITEST: Scripted = Scripted {
    program: "vitest",
    report_flags: |path| format!(" --reporter=default --reporter=json --outputFile.json={path}"),
    jest: false,
};

/// jest in a package script.
pub(crate) const JEST: Scripted = Scripted {
    program: "jest",
    report_flags: |path| format!(" --json --outputFile={path}"),
    jest: true,
};

impl Runner for Scripted {
    fn script_flags(
        &self,
        program: &str,
        _args: &[&str],
        tmp: &Path,
        n: usize,
    ) -> Option<ScriptFlags> {
        let report = tmp.join(format!("script-report-{n}.json"));
        (program == self.program).then(|| ScriptFlags {
            flags: (self.report_flags)(&shell_quote(&report.to_string_lossy())),
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
        super::narrow_script(check, root, paths, names, self.jest)
    }

    fn locate(&self, at: &mut Locator<'_>, check: &Check, id: &str) -> (String, Option<u32>) {
        super::locate(at, check, id, self.jest)
    }

    fn isolation(&self) -> Isolation {
        Isolation::JavaScript
    }

    // vitest and jest find test files in every subdirectory.
    fn searches_subpackages(&self) -> bool {
        true
    }

    fn id_separator(&self) -> &'static str {
        super::ID_SEPARATOR
    }

    fn id_file_separator(&self) -> Option<&'static str> {
        Some(super::ID_SEPARATOR)
    }

    fn own_name<'a>(&self, id: &'a str) -> &'a str {
        super::own_name(id)
    }

    fn group(&self, id: &str) -> String {
        super::file_of(id).to_owned()
    }

    fn home<'a>(&self, id: &'a str) -> &'a str {
        super::file_of(id)
    }

    fn runs_as_test_file(&self, path: &str) -> bool {
        let name = path.rsplit('/').next().unwrap_or(path);
        name.contains(".test.") || name.contains(".spec.") || super::in_dir(path, "__tests__")
    }

    fn loads_other_sources(&self) -> bool {
        true
    }

    // The package's script with the file after `--`; jest runs JavaScript only.
    fn wall_in_suite(&self, suite: Check, file: String) -> Result<Check, WallRefusal> {
        if self.jest && !super::is_js_wall(&file) {
            return Err(WallRefusal::Misplaced(
                "a jest wall test is JavaScript (.test.js)",
            ));
        }
        let mut command = suite.command.clone();
        command.extend(["--".to_string(), file]);
        Ok(Check {
            command,
            why: format!(
                "wall test: the package's {} run on this file",
                suite.kind.as_str()
            ),
            ..suite
        })
    }
}
