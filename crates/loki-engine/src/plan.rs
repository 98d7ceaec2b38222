//! The plan stage: what the implementer should look at first, computed from the repository map
//! and the test map, deterministically (no model call: the model's budget goes to implementing).
//!
//! The plan is the files most relevant to the task with their top-level symbols, the test files
//! among them, and the test suites that will judge the change. It runs beside the wall author.

use crate::intake::Intake;

/// Files shown with their symbols.
const PLAN_FILES: usize = 15;
/// Symbols shown per file.
const PLAN_SYMBOLS: usize = 12;
/// Test files named as likely impacted.
const PLAN_TESTS: usize = 8;

/// The plan and the files it points at.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Plan {
    pub text: String,
    pub files: Vec<String>,
    pub impacted_tests: Vec<String>,
}

/// Builds the plan for `task` from what intake found.
#[must_use]
pub fn run(task: &str, intake: &Intake) -> Plan {
    let ranked = intake.map.rank(task, PLAN_FILES);
    let mut text = String::from("Files most related to the task (with top-level symbols):\n");
    for f in &ranked {
        let syms: Vec<&str> = f
            .symbols
            .iter()
            .take(PLAN_SYMBOLS)
            .map(String::as_str)
            .collect();
        if syms.is_empty() {
            text.push_str(&format!("- {}\n", f.path));
        } else {
            text.push_str(&format!("- {}: {}\n", f.path, syms.join(", ")));
        }
    }
    let all_ranked = intake.map.rank(task, intake.map.files.len());
    let impacted_tests: Vec<String> = all_ranked
        .iter()
        .filter(|f| intake.tests.test_files.contains(&f.path))
        .take(PLAN_TESTS)
        .map(|f| f.path.clone())
        .collect();
    if !impacted_tests.is_empty() {
        text.push_str("\nTests most likely impacted:\n");
        for t in &impacted_tests {
            text.push_str(&format!("- {t}\n"));
        }
    }
    if !intake.tests.checks.is_empty() {
        text.push_str("\nTest suites that will judge the change:\n");
        for c in &intake.tests.checks {
            text.push_str(&format!(
                "- {} (in {}): `{}`\n",
                c.name,
                c.dir,
                c.command_line()
            ));
        }
    }
    let langs: Vec<String> = intake
        .map
        .languages
        .iter()
        .map(|(l, n)| format!("{l} {n}"))
        .collect();
    if !langs.is_empty() {
        text.push_str(&format!("\nLanguages (files): {}\n", langs.join(", ")));
    }
    Plan {
        text,
        files: ranked.iter().map(|f| f.path.clone()).collect(),
        impacted_tests,
    }
}
