//! Java: an added class that takes another's place on the test classpath. Maven (and Gradle) put
//! a module's test classes first, then its main classes, then the dependencies, so:
//! - an added `<module>/src/test/java/<p>/X.java` where `<module>/src/main/java/<p>/X.java`
//!   exists runs in the tests instead of the class under test;
//! - an added class in a test framework's own packages (`org/junit/`, `org/opentest4j/`,
//!   `org/hamcrest/`, `org/assertj/`, `org/mockito/`, `junit/framework/`) under any source root
//!   replaces the framework's class (its assertions, its test engine) in the tests.

use std::collections::BTreeSet;

use crate::rules::Out;
use loki_protocol::{Finding, FindingKind};

/// Packages of the test frameworks a project's tests run on, as paths.
const FRAMEWORKS: &[&str] = &[
    "org/junit/",
    "org/opentest4j/",
    "org/hamcrest/",
    "org/assertj/",
    "org/mockito/",
    "junit/framework/",
    "org/testng/",
];

/// `(module prefix, "main" | "test", class path)` of a Java source file in a standard layout.
fn split(path: &str) -> Option<(&str, &str, &str)> {
    let file = path.strip_suffix(".java")?;
    for set in ["main", "test"] {
        let root = format!("src/{set}/java/");
        if let Some(rel) = file.strip_prefix(&root) {
            return Some(("", set, rel));
        }
        if let Some(at) = file.find(&format!("/{root}")) {
            return Some((&file[..=at], set, &file[at + 1 + root.len()..]));
        }
    }
    None
}

pub(super) fn java(tree: &BTreeSet<&str>, added: &BTreeSet<&str>, out: &mut Out) {
    for path in added.iter().filter(|p| p.ends_with(".java")) {
        let Some((module, set, class)) = split(path) else {
            continue;
        };
        let fqn = class.replace('/', ".");
        if let Some(fw) = FRAMEWORKS.iter().find(|f| class.starts_with(**f)) {
            out.push(
                Finding::new(
                    FindingKind::ShadowModule,
                    path,
                    format!(
                        "adds `{fqn}` in the test framework's own package `{}`: the tests load it instead of the framework's class",
                        fw.trim_end_matches('/').replace('/', ".")
                    ),
                )
                .at_line(1),
            );
            continue;
        }
        if set != "test" {
            continue;
        }
        let real = format!("{module}src/main/java/{class}.java");
        if tree.contains(real.as_str()) && !added.contains(real.as_str()) {
            out.push(
                Finding::new(
                    FindingKind::ShadowModule,
                    path,
                    format!(
                        "adds `{path}`, a test-source copy of `{fqn}`: test classes come first on the classpath, so the tests run it instead of `{real}`"
                    ),
                )
                .at_line(1),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::split;

    #[test]
    fn standard_layouts_split_into_module_set_and_class() {
        assert_eq!(
            split("src/test/java/calc/Calc.java"),
            Some(("", "test", "calc/Calc"))
        );
        assert_eq!(
            split("core/src/main/java/a/b/C.java"),
            Some(("core/", "main", "a/b/C"))
        );
        assert_eq!(split("src/calc/Calc.java"), None);
        assert_eq!(split("src/test/java/calc/Calc.kt"), None);
    }
}
