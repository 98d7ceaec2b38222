//! Maven ([`Maven`]): JUnit 5 through Surefire.
//!
//! - Detection: the topmost directory with a `pom.xml` in each subtree (a parent project runs its
//!   modules): [`MAVEN_TEST`]. Offline: the plugins and dependencies come from the local
//!   repository, never from the network.
//! - Reports: every `TEST-<class>.xml` Surefire wrote under the check's directory
//!   ([`surefire`]: cleared before each run, all read after it), merged; else the summary lines.
//! - Status: offline without a plugin or dependency in the local repository is a missing tool.
//! - Narrowing: `-Dtest=<class>` per file under `src/test/java`, `-Dtest=<class>#<method>` per id
//!   (`<class>::<method>`); a parameterised or repeated case runs as its whole method.
//! - Locating: the class's file in Maven's standard layout and the method's ` <name>(` line.

pub mod surefire;

use std::collections::BTreeSet;
use std::path::Path;

use crate::detect::{Check, Scan, Tools, make, outermost, place, words};
use crate::locate::{CaseSource, Locator, in_check};
use crate::reports::report::TestReport;
use crate::reports::{ParsedRun, junit};
use crate::runners::Runner;
use crate::select::Selection;
use crate::wall::{WallRefusal, WallTest};
use loki_protocol::CheckKind;

/// The Maven check's command: non-interactive, offline (the local repository has what the
/// project needs, or the check is not run), quiet (Surefire's reports carry the results).
pub const MAVEN_TEST: [&str; 5] = ["mvn", "--batch-mode", "--offline", "--quiet", "test"];

/// `mvn test`.
#[derive(Debug)]
pub(crate) struct Maven;

impl Runner for Maven {
    fn markers(&self) -> &'static [&'static str] {
        &["pom.xml"]
    }

    fn detect(&self, root: &Path, scan: &Scan, _tools: Tools, out: &mut Vec<Check>) {
        for rel in scan.dirs.keys() {
            if scan.has(rel, "pom.xml")
                && outermost(rel, |p| scan.has(p, "pom.xml")).as_deref() == Some(rel)
            {
                out.push(make(root, rel, CheckKind::Maven, words(&MAVEN_TEST),
                    format!("pom.xml in {}: `mvn test` runs the project's tests through Surefire, offline, with per-test XML reports", place(rel))));
            }
        }
    }

    fn before_run(&self, check: &Check) {
        surefire::clear(&check.cwd);
    }

    fn found_reports(&self, check: &Check) -> Vec<String> {
        surefire::read(&check.cwd)
    }

    fn parse_file(&self, text: &str) -> Option<TestReport> {
        junit::parse(text)
    }

    fn parse_log(&self, log: &str) -> Option<TestReport> {
        junit::parse_surefire_summary(log)
    }

    /// Surefire writes one report per test class: every one counts, not the first.
    fn parse_run(&self, structured: &[String], log: &str) -> ParsedRun {
        ParsedRun {
            report: junit::merge(structured.iter().filter_map(|s| junit::parse(s)))
                .or_else(|| self.parse_log(log)),
            ..ParsedRun::default()
        }
    }

    // Maven offline (loki runs it so) without a plugin or dependency in its local repository:
    // nothing of the project ran.
    fn missing_tool(&self, _exit_code: i32, log: &str) -> Option<String> {
        (log.contains("offline mode") && log.contains("has not been downloaded")).then(|| {
            "a Maven plugin or dependency is missing from the local repository (Maven runs offline)"
                .into()
        })
    }

    fn narrow(
        &self,
        check: &Check,
        _root: &Path,
        files: Vec<String>,
        sel: &Selection,
    ) -> Option<Check> {
        let mut patterns = BTreeSet::new();
        for f in &files {
            let class = f.strip_prefix("src/test/java/")?.strip_suffix(".java")?;
            patterns.insert(class.replace('/', "."));
        }
        for id in &sel.tests {
            let (class, method) = id.split_once("::")?;
            // Surefire's filter knows a method by its name: a parameterised or repeated case
            // (`sums(int)[2]`) runs as its whole method.
            let method = method.split(['(', '[']).next().unwrap_or(method);
            if class.is_empty() || method.is_empty() || class.contains(['#', ',']) {
                return None;
            }
            patterns.insert(format!("{class}#{method}"));
        }
        let mut out = check.clone();
        out.command.push(format!(
            "-Dtest={}",
            patterns.into_iter().collect::<Vec<_>>().join(",")
        ));
        Some(out)
    }

    fn locate(&self, at: &mut Locator<'_>, check: &Check, id: &str) -> (String, Option<u32>) {
        // `calc.CalcTest::adds`: Maven's standard layout puts the class in
        // `src/test/java/calc/CalcTest.java`.
        let (class, method) = id.split_once("::").unwrap_or((id, ""));
        let class = class.split('$').next().unwrap_or(class);
        let path = in_check(
            check,
            &format!("src/test/java/{}.java", class.replace('.', "/")),
        );
        // `ordinal{int, String}[10]`, `ordinal(int, String)[10]`: JUnit's parameterized
        // invocations carry their signature and index after the name.
        let method = method.split(['(', '{', '[']).next().unwrap_or(method);
        let call = format!(" {method}(");
        let line = (!method.is_empty())
            .then(|| at.line_of(&path, |l| l.contains(&call)))
            .flatten();
        if line.is_none() && at.text(&path).is_none() {
            return (in_check(check, ""), None);
        }
        (path, line)
    }

    // `calc.CalcTest::adds` → `adds`
    fn own_name<'a>(&self, id: &'a str) -> &'a str {
        id.split_once("::").map_or(id, |(_, r)| r)
    }

    // The test class: Surefire runs and reports class by class.
    fn group(&self, id: &str) -> String {
        id.split("::").next().unwrap_or(id).to_owned()
    }

    // Surefire's default includes: `Test*`, `*Test`, `*Tests`, `*TestCase` classes.
    fn runs_as_test_file(&self, path: &str) -> bool {
        let name = path.rsplit('/').next().unwrap_or(path);
        let stem = name.strip_suffix(".java").unwrap_or(name);
        stem.starts_with("Test")
            || stem.ends_with("Test")
            || stem.ends_with("Tests")
            || stem.ends_with("TestCase")
    }

    fn source_extensions(&self) -> &'static [&'static str] {
        &["java"]
    }

    // A JUnit parameterized test's cases are its data source's: `@MethodSource("rows")` (or a
    // bare one, the method of the test's own name) names the factory that holds them.
    fn case_source(&self, test: &str, item: &str) -> Option<CaseSource> {
        method_source(test, item).map(|function| CaseSource {
            function,
            annotation: "@MethodSource",
        })
    }

    fn wall_language(&self) -> Option<&'static str> {
        Some("Java")
    }

    fn wall(&self, file: &WallTest<'_>) -> Option<Result<Check, WallRefusal>> {
        file.name
            .ends_with(".java")
            .then(|| wall(file.path, file.checks))
    }
}

/// The factory method a JUnit `@MethodSource` on `item` names: its argument, or, bare, the test
/// method's own name (from `test`, `pkg.Class::method(..)[i]`).
fn method_source(test: &str, item: &str) -> Option<String> {
    let at = item.find("@MethodSource")?;
    let rest = &item[at + "@MethodSource".len()..];
    let named = rest
        .strip_prefix('(')
        .and_then(|r| r.split(')').next())
        .and_then(|args| args.split('"').nth(1))
        .map(|n| n.rsplit('#').next().unwrap_or(n).to_owned());
    named.or_else(|| {
        let method = test.split_once("::")?.1;
        Some(method.split(['(', '{', '[']).next()?.to_owned())
    })
}

/// A Java wall test `src/test/java/…/loki_wall_<Name>Test.java`: the project's Maven run on that
/// one class (`-Dtest=`; Surefire runs only the classes its default patterns name).
fn wall(path: &str, checks: &[Check]) -> Result<Check, WallRefusal> {
    let Some(c) = crate::wall::owner(checks, path, CheckKind::Maven) else {
        return Err(WallRefusal::NoSuite("Maven project"));
    };
    let Some(class) = crate::wall::rel_to(&c, path)
        .strip_prefix("src/test/java/")
        .and_then(|p| p.strip_suffix(".java"))
        .filter(|p| p.ends_with("Test") || p.ends_with("Tests"))
        .map(|p| p.replace('/', "."))
    else {
        return Err(WallRefusal::Misplaced(
            "a Java wall test is a class named loki_wall_<Name>Test in the project's src/test/java",
        ));
    };
    let mut command = c.command.clone();
    command.push(format!("-Dtest={class}"));
    Ok(Check {
        command,
        why: "wall test: the project's Maven run on this test class".into(),
        ..c
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_junit_method_source_names_its_factory() {
        let test = "words.OrdinalsTest::ordinal{int, String}[10]";
        let item =
            "@ParameterizedTest\n@MethodSource(\"cases\")\nvoid ordinal(int n, String want) {}";
        assert_eq!(method_source(test, item).as_deref(), Some("cases"));
        let bare = "@ParameterizedTest\n@MethodSource\nvoid ordinal(int n, String want) {}";
        assert_eq!(method_source(test, bare).as_deref(), Some("ordinal"));
        let other = "@MethodSource(\"words.Rows#ordinals\")\nvoid ordinal(int n) {}";
        assert_eq!(method_source(test, other).as_deref(), Some("ordinals"));
        assert_eq!(method_source(test, "@Test\nvoid ordinal() {}"), None);
    }
}
