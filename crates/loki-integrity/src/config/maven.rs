//! Maven and the JUnit Platform: the settings of `pom.xml` that decide which tests run and what
//! a failure means, `.mvn/maven.config` / `.mvn/jvm.config` (flags every `mvn` run takes), and
//! `junit-platform.properties` (how JUnit discovers, orders, disables and extends tests).
//!
//! # pom.xml
//! A setting is one of:
//! - the configuration of a Surefire or Failsafe plugin (anywhere: `build`, `pluginManagement`,
//!   profiles, executions), each element flattened to its path (`surefire excludes/exclude`) with
//!   its values, and the plugin's version (Surefire before 2.22 does not see JUnit 5 tests);
//! - a property whose name Surefire, Failsafe or Maven's test phase reads (`skipTests`,
//!   `maven.test.skip`, `maven.test.failure.ignore`, `surefire.*`, `failsafe.*`, `test`, `groups`,
//!   `excludedGroups`, `junit.*`, ...), in the project's or a profile's `properties`;
//! - `build/testSourceDirectory`, `build/testOutputDirectory` and `build/testResources`.
//!
//! Settings are judged by meaning, with `${property}` references resolved from the pom's own
//! properties: a hit names the setting, its old and new values and the line of the new one when
//! it can change which tests run or what a failure means (skips, ignored failures, includes and
//! excludes, groups, reruns, test directories and classpath, JUnit Platform parameters that
//! deactivate conditions, autodetect extensions or order tests; Surefire moved below 2.22, which
//! does not run JUnit 5 tests; an `argLine` that gains a `-javaagent`). Parallelism, forks,
//! reports and other knobs, an exclusion emptied, a skip or failure-ignore turned off, and
//! dependencies and other plugins are not: an honest change touches them. A pom that no longer parses as XML is a hit (it
//! cannot be read, so nothing can be said about it); a pom added where there was none is a new
//! build, not a change of one.

use std::collections::BTreeMap;

use crate::testcmd::runs::Hit;

/// A setting's path, with its values in document order and the line of the first.
type Settings = BTreeMap<String, (Vec<String>, u32)>;

/// Properties read by Maven's test phase, Surefire, Failsafe or the JUnit Platform.
fn test_property(name: &str) -> bool {
    const EXACT: &[&str] = &[
        "skipTests",
        "skipITs",
        "test",
        "it.test",
        "groups",
        "excludedGroups",
        "testFailureIgnore",
        "failIfNoTests",
        "failIfNoSpecifiedTests",
        "argLine",
    ];
    const PREFIXES: &[&str] = &[
        "maven.test.",
        "surefire.",
        "failsafe.",
        "junit.",
        "jacoco.skip",
    ];
    EXACT.contains(&name) || PREFIXES.iter().any(|p| name.starts_with(p))
}

fn line_of(doc: &roxmltree::Document, node: roxmltree::Node) -> u32 {
    doc.text_pos_at(node.range().start).row
}

fn child<'a, 'i>(node: roxmltree::Node<'a, 'i>, name: &str) -> Option<roxmltree::Node<'a, 'i>> {
    node.children()
        .find(|c| c.is_element() && c.tag_name().name() == name)
}

fn text_of(node: roxmltree::Node) -> String {
    node.text()
        .unwrap_or("")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Every element under `node` with no element children, as its path below `node`.
fn leaves(doc: &roxmltree::Document, node: roxmltree::Node, prefix: &str, out: &mut Settings) {
    for c in node.children().filter(roxmltree::Node::is_element) {
        let path = format!("{prefix}/{}", c.tag_name().name());
        if c.children().any(|g| g.is_element()) {
            leaves(doc, c, &path, out);
        } else {
            let entry = out
                .entry(path)
                .or_insert_with(|| (Vec::new(), line_of(doc, c)));
            entry.0.push(text_of(c));
        }
    }
}

/// The test settings of a pom, or `None` when it is not well-formed XML.
fn settings(text: &str) -> Option<Settings> {
    let doc = roxmltree::Document::parse(text).ok()?;
    let mut out = Settings::new();
    let props: BTreeMap<String, String> = doc
        .descendants()
        .filter(|n| n.is_element() && n.tag_name().name() == "properties")
        .filter(|n| n.parent().is_some_and(|p| p.tag_name().name() == "project"))
        .flat_map(|n| n.children().filter(roxmltree::Node::is_element))
        .map(|p| (p.tag_name().name().to_owned(), text_of(p)))
        .collect();
    for n in doc.descendants().filter(roxmltree::Node::is_element) {
        match n.tag_name().name() {
            "plugin" => {
                let artifact = child(n, "artifactId").map(text_of).unwrap_or_default();
                let runner = if artifact.contains("surefire") {
                    "surefire"
                } else if artifact.contains("failsafe") {
                    "failsafe"
                } else {
                    continue;
                };
                if let Some(v) = child(n, "version") {
                    out.insert(
                        format!("{runner} version"),
                        (vec![text_of(v)], line_of(&doc, v)),
                    );
                }
                for conf in n
                    .descendants()
                    .filter(|d| d.is_element() && d.tag_name().name() == "configuration")
                {
                    leaves(&doc, conf, runner, &mut out);
                }
            }
            "properties" => {
                for p in n.children().filter(roxmltree::Node::is_element) {
                    let name = p.tag_name().name();
                    if test_property(name) {
                        out.insert(
                            format!("property {name}"),
                            (vec![text_of(p)], line_of(&doc, p)),
                        );
                    }
                }
            }
            "testSourceDirectory" | "testOutputDirectory" => {
                out.insert(
                    format!("build {}", n.tag_name().name()),
                    (vec![text_of(n)], line_of(&doc, n)),
                );
            }
            "testResources" => leaves(&doc, n, "build testResources", &mut out),
            _ => {}
        }
    }
    for (values, _) in out.values_mut() {
        for v in values.iter_mut() {
            *v = resolve(v, &props);
        }
    }
    Some(out)
}

/// Configuration elements (the first below `configuration`) that decide which tests run or what
/// a failure means.
const MEANINGFUL: &[&str] = &[
    "skip",
    "skipTests",
    "skipExec",
    "skipITs",
    "testFailureIgnore",
    "excludes",
    "includes",
    "excludesFile",
    "includesFile",
    "excludedGroups",
    "groups",
    "test",
    "failIfNoTests",
    "failIfNoSpecifiedTests",
    "skipAfterFailureCount",
    "rerunFailingTestsCount",
    "testSourceDirectory",
    "testClassesDirectory",
    "classesDirectory",
    "classpathDependencyExcludes",
    "classpathDependencyScopeExclude",
    "additionalClasspathElements",
    "dependenciesToScan",
    "properties",
    "configurationParameters",
    "systemPropertyVariables",
    "argLine",
    "version",
];

/// Settings whose emptying removes a filter (nothing excluded), and switches whose `false`
/// (or, for `failIfNoTests`, `true`) makes the run stricter.
fn harmless(root: &str, values: &[String]) -> bool {
    let one = |v: &str| values.iter().all(|x| x.eq_ignore_ascii_case(v));
    match root {
        "excludes" | "excludedGroups" | "classpathDependencyExcludes" | "excludesFile" => {
            values.iter().all(String::is_empty)
        }
        "skip" | "skipTests" | "skipExec" | "skipITs" | "testFailureIgnore" => one("false"),
        "failIfNoTests" | "failIfNoSpecifiedTests" => one("true"),
        _ => false,
    }
}

/// JUnit Platform parameters that change which tests run, how they are found or extended, or
/// their order (parallelism, timeouts and display names do not).
fn junit_key_matters(key: &str) -> bool {
    [
        "deactivate",
        "autodetection",
        "order",
        "tags",
        "filter",
        "engine",
        "discovery",
        "exclude",
        "include",
    ]
    .iter()
    .any(|w| key.contains(w))
}

/// The root element of a setting's path (`surefire/excludes/exclude` → `excludes`), or the
/// property's name.
fn root_of(key: &str) -> &str {
    if let Some(p) = key.strip_prefix("property ") {
        return p.rsplit('.').next().unwrap_or(p);
    }
    key.split(['/', ' ']).nth(1).unwrap_or(key)
}

/// Whether a changed setting means something (see the module doc).
fn matters(key: &str, old: Option<&[String]>, new: Option<&[String]>) -> bool {
    let root = root_of(key);
    if key.starts_with("build ") || key.starts_with("property ") && root != "argLine" {
        return new.is_none_or(|v| !harmless(root, v));
    }
    if !MEANINGFUL.contains(&root) {
        return false;
    }
    let joined = |v: Option<&[String]>| v.map(|v| v.join("\n")).unwrap_or_default();
    match root {
        "version" => new.is_some_and(|v| v.iter().any(|x| before_junit5(x))),
        "argLine" => {
            let (o, n) = (joined(old), joined(new));
            n.matches("-javaagent").count() > o.matches("-javaagent").count()
        }
        "properties" | "configurationParameters" | "systemPropertyVariables" => {
            let (o, n) = (joined(old), joined(new));
            let (o, n) = (properties(&o), properties(&n));
            n.iter()
                .filter(|(k, (v, _))| o.get(*k).map(|x| &x.0) != Some(v))
                .chain(o.iter().filter(|(k, _)| !n.contains_key(*k)))
                .any(|(k, _)| {
                    junit_key_matters(k) || key.ends_with(k.as_str()) && junit_key_matters(key)
                })
                || junit_key_matters(key) && o != n
        }
        _ => new.is_none_or(|v| !harmless(root, v)),
    }
}

/// A Surefire or Failsafe version before 2.22.0, which does not run JUnit 5 tests.
fn before_junit5(version: &str) -> bool {
    let mut parts = version.split(['.', '-']).map(|p| p.parse::<u32>().ok());
    match (parts.next().flatten(), parts.next().flatten()) {
        (Some(major), Some(minor)) => major < 2 || major == 2 && minor < 22,
        _ => false,
    }
}

/// `${name}` references replaced by the values of the pom's own properties (one level).
fn resolve(value: &str, props: &BTreeMap<String, String>) -> String {
    let mut out = value.to_owned();
    for (k, v) in props {
        out = out.replace(&format!("${{{k}}}"), v);
    }
    out
}

fn show(values: &[String]) -> String {
    values
        .iter()
        .map(|v| format!("`{v}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The hits of a `pom.xml` change (see the module doc).
pub(super) fn pom(existed: bool, base: &str, head: &str) -> Vec<Hit> {
    if !existed || head.is_empty() {
        return Vec::new();
    }
    let Some(h) = settings(head) else {
        return vec![Hit {
            line: None,
            detail: "pom.xml no longer parses as XML: which tests Maven runs cannot be read"
                .to_owned(),
        }];
    };
    let b = settings(base).unwrap_or_default();
    let mut out = Vec::new();
    for (key, (values, line)) in &h {
        let old = b.get(key).map(|(v, _)| v.as_slice());
        if old == Some(values.as_slice()) || !matters(key, old, Some(values)) {
            continue;
        }
        let detail = match b.get(key) {
            Some((old, _)) if old == values => continue,
            Some((old, _)) => format!(
                "pom.xml {key} changed from {} to {}: it decides which tests run and what a failure means",
                show(old),
                show(values)
            ),
            None => format!(
                "pom.xml {key} set to {}: it decides which tests run and what a failure means",
                show(values)
            ),
        };
        out.push(Hit {
            line: Some(*line),
            detail,
        });
    }
    for (key, (old, _)) in b
        .iter()
        .filter(|(k, (v, _))| !h.contains_key(*k) && matters(k, Some(v), None))
    {
        out.push(Hit {
            line: None,
            detail: format!("pom.xml {key} removed (was {})", show(old)),
        });
    }
    out
}

/// `.mvn/maven.config` and `.mvn/jvm.config`: flags of every Maven run, any change.
pub(super) fn mvn_config(name: &str, existed: bool, present: bool) -> Vec<Hit> {
    let what = match (existed, present) {
        (false, _) => "added",
        (true, false) => "deleted",
        (true, true) => "changed",
    };
    vec![Hit {
        line: None,
        detail: format!(
            ".mvn/{name} {what}: its flags go to every `mvn` run (which tests run, whether a failure fails the build)"
        ),
    }]
}

/// `key = value` lines of a Java properties file (`=` or `:`, comments `#` and `!`).
fn properties(text: &str) -> BTreeMap<String, (String, u32)> {
    let mut out = BTreeMap::new();
    for (i, raw) in text.lines().enumerate() {
        let l = raw.trim();
        if l.is_empty() || l.starts_with('#') || l.starts_with('!') {
            continue;
        }
        let (k, v) = l.split_once(['=', ':']).unwrap_or((l, ""));
        out.insert(
            k.trim().to_owned(),
            (
                v.trim().to_owned(),
                u32::try_from(i + 1).unwrap_or(u32::MAX),
            ),
        );
    }
    out
}

/// `junit-platform.properties`: every key added, removed or changed that changes how JUnit
/// discovers, filters, orders or extends tests ([`junit_key_matters`]).
pub(super) fn junit_platform(base: &str, head: &str) -> Vec<Hit> {
    let (b, h) = (properties(base), properties(head));
    let mut out = Vec::new();
    for (k, (v, line)) in &h {
        if b.get(k).map(|x| &x.0) == Some(v) || !junit_key_matters(k) {
            continue;
        }
        out.push(Hit {
            line: Some(*line),
            detail: format!(
                "junit-platform.properties `{k}` set to `{v}`: it changes how JUnit finds, runs or reports tests"
            ),
        });
    }
    for (k, (v, _)) in b
        .iter()
        .filter(|(k, _)| !h.contains_key(*k) && junit_key_matters(k))
    {
        out.push(Hit {
            line: None,
            detail: format!("junit-platform.properties `{k}` removed (was `{v}`)"),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const POM: &str = "<project>\n  <properties>\n    <maven.compiler.source>17</maven.compiler.source>\n  </properties>\n  <dependencies>\n    <dependency><artifactId>junit-jupiter</artifactId><version>5.9.2</version></dependency>\n  </dependencies>\n  <build>\n    <plugins>\n      <plugin><artifactId>maven-surefire-plugin</artifactId><version>2.22.3</version></plugin>\n    </plugins>\n  </build>\n</project>\n";

    fn details(hits: &[Hit]) -> String {
        hits.iter()
            .map(|h| h.detail.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn settings_that_decide_which_tests_run_are_hits() {
        let with = |conf: &str| {
            POM.replace(
                "<version>2.22.3</version></plugin>",
                &format!("<version>2.22.3</version>\n        <configuration>{conf}</configuration>\n      </plugin>"),
            )
        };
        for (head, says) in [
            (with("<testFailureIgnore>true</testFailureIgnore>"), "surefire/testFailureIgnore"),
            (with("<skipTests>true</skipTests>"), "surefire/skipTests"),
            (with("<excludes><exclude>**/ClampTest.java</exclude></excludes>"), "surefire/excludes/exclude"),
            (with("<excludedGroups>slow</excludedGroups>"), "surefire/excludedGroups"),
            (POM.replace("2.22.3", "2.12.4"), "surefire version changed from `2.22.3` to `2.12.4`"),
            (
                POM.replace("<properties>\n", "<properties>\n    <maven.test.failure.ignore>true</maven.test.failure.ignore>\n"),
                "property maven.test.failure.ignore",
            ),
            (
                POM.replace("</build>", "</build>\n  <profiles><profile><properties><skipTests>true</skipTests></properties></profile></profiles>"),
                "property skipTests",
            ),
            (POM.replace("<build>\n", "<build>\n    <testSourceDirectory>src/none</testSourceDirectory>\n"), "build testSourceDirectory"),
            ("<project><build>".to_owned(), "no longer parses"),
        ] {
            let hits = pom(true, POM, &head);
            assert!(details(&hits).contains(says), "{says}: {}", details(&hits));
        }
        // Removing a setting is a change too.
        let hits = pom(
            true,
            &with("<includes><include>**/*Test.java</include></includes>"),
            POM,
        );
        assert!(
            details(&hits).contains("surefire/includes/include removed"),
            "{}",
            details(&hits)
        );
    }

    #[test]
    fn dependencies_and_other_plugins_are_not_test_configuration() {
        for head in [
            POM.replace("5.9.2", "5.10.0"),
            POM.replace("<maven.compiler.source>17", "<maven.compiler.source>21"),
            POM.replace("</plugins>", "  <plugin><artifactId>maven-jar-plugin</artifactId><version>3.3.0</version></plugin>\n    </plugins>"),
            POM.replace("  <dependencies>\n", "  <dependencies>\n    <dependency><artifactId>gson</artifactId><version>2.10</version></dependency>\n"),
        ] {
            assert!(pom(true, POM, &head).is_empty(), "{head}");
        }
        // A new build is not a change of one.
        assert!(pom(false, "", POM).is_empty());
    }

    /// Knobs that change how tests run but not which run or what a failure means, as maintainers
    /// change them (jsoup's history): parallelism, a group filter moved into an empty property.
    #[test]
    fn settings_are_judged_by_meaning() {
        let with = |conf: &str| {
            POM.replace(
                "<version>2.22.3</version></plugin>",
                &format!("<version>2.22.3</version>\n        <configuration>{conf}</configuration>\n      </plugin>"),
            )
        };
        let base = with("<parallel>methods</parallel><threadCount>8</threadCount>");
        for head in [
            with(
                "<properties><configurationParameters>junit.jupiter.execution.parallel.enabled = true</configurationParameters></properties>",
            ),
            with("<excludedGroups>${failsafe.excludedGroups}</excludedGroups>").replace(
                "<properties>\n",
                "<properties>\n    <failsafe.excludedGroups></failsafe.excludedGroups>\n",
            ),
            with(
                "<skipTests>false</skipTests><useModulePath>false</useModulePath><argLine>-Xmx1g</argLine>",
            ),
            base.replace("2.22.3", "3.2.5"),
        ] {
            assert!(
                pom(true, &base, &head).is_empty(),
                "{}",
                details(&pom(true, &base, &head))
            );
        }
        for (head, says) in [
            (
                with(
                    "<properties><configurationParameters>junit.jupiter.conditions.deactivate = *</configurationParameters></properties>",
                ),
                "configurationParameters",
            ),
            (with("<argLine>-javaagent:fake.jar</argLine>"), "argLine"),
            (
                with("<excludedGroups>${skipped}</excludedGroups>").replace(
                    "<properties>\n",
                    "<properties>\n    <skipped>slow</skipped>\n",
                ),
                "`slow`",
            ),
        ] {
            let hits = pom(true, &base, &head);
            assert!(details(&hits).contains(says), "{says}: {}", details(&hits));
        }
    }

    #[test]
    fn junit_platform_keys_and_maven_flags() {
        let hits = junit_platform(
            "junit.jupiter.execution.parallel.enabled = false\n",
            "junit.jupiter.execution.parallel.enabled = false\njunit.jupiter.extensions.autodetection.enabled=true\n",
        );
        assert_eq!(hits.len(), 1, "{}", details(&hits));
        assert_eq!(hits[0].line, Some(2));
        assert!(hits[0].detail.contains("autodetection"));
        assert!(junit_platform("# a\n", "# b\n").is_empty());
        assert!(junit_platform("", "junit.jupiter.execution.parallel.enabled=true\n").is_empty());
        assert!(
            mvn_config("maven.config", false, true)[0]
                .detail
                .contains("added")
        );
    }
}
