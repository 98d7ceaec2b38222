//! pytest and tox configuration judged by meaning (rules 4 and 11).
//!
//! pytest settings are read from `pytest.ini`/`.pytest.ini` `[pytest]`, `tox.ini` `[pytest]`,
//! `setup.cfg` `[tool:pytest]` and `pyproject.toml` `[tool.pytest.ini_options]` (and pytest 9's
//! native `[tool.pytest]`). Findings (`test_config_changed`, with the key, the line and what
//! changed):
//! - `addopts` gaining arguments that select, deselect, ignore, stop early, load plugins or change
//!   outcomes (the pytest table of [`crate::testcmd`], read as test configuration: `-k`, `-m`,
//!   `--deselect`, `--ignore*`, `-p plugin`, `-p no:<core plugin>`, `--co`, `--lf`, `-x`,
//!   `--maxfail`, `--continue-on-collection-errors`, `-o key=...`, test paths), or losing
//!   `--doctest-modules`/`--doctest-glob`;
//! - `testpaths` dropping a path no remaining path covers, or newly limited to subdirectories or
//!   files; `python_files`/`python_classes`/`python_functions` losing a pattern (pytest's defaults
//!   when unset); `norecursedirs` adding a directory that may hold tests; `xfail_strict` /
//!   `strict_xfail` / `strict` turned off; `pythonpath` gaining an entry (it can shadow the module
//!   under test); `collect_imported_tests` turned off.
//! - `conftest.py`: `collect_ignore` / `collect_ignore_glob` gaining entries (fixtures, hooks and
//!   helpers are judged by the outcome and test-code rules, not here).
//! - `tox.ini`: a `[testenv*]` `commands` test command weakened like a CI step (a `-` prefix makes
//!   tox ignore its exit code), `ignore_outcome = true`, `envlist` losing environments,
//!   `skip_missing_interpreters` turned on (module `tox`).
//!
//! Everything else is honest: `markers`, `filterwarnings`, `minversion`, `log_*`, `asyncio_mode`,
//! `timeout`, `required_plugins`, `doctest_optionflags`, `--strict-markers`, `-ra`/`-v`/`--tb`,
//! `--durations`, `-n`, `--runxfail`, new test paths, dependency changes.

use std::collections::{BTreeMap, BTreeSet};

mod tox;

use crate::shell::split_words;
use crate::testcmd::runs::Hit;
use crate::testcmd::{self as testcmd, Mode};
use loki_syntax::cfgparse::{self, IniSection, Node, Tv};
use loki_syntax::lex::{Lang, find_token, lex, matching};
use tox::tox;

/// A pytest setting as configured.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Val {
    Text(String),
    List(Vec<String>),
    Bool(bool),
}

impl Val {
    /// The value as pytest's "args"/"paths"/"linelist" types read it: whitespace-split words.
    fn words(&self) -> Vec<String> {
        match self {
            Val::Text(s) => split_words(s),
            // A TOML array already holds one argument per item.
            Val::List(l) => l.clone(),
            Val::Bool(b) => vec![b.to_string()],
        }
    }

    fn truthy(&self) -> bool {
        match self {
            Val::Bool(b) => *b,
            Val::Text(s) => matches!(
                s.trim().to_ascii_lowercase().as_str(),
                "y" | "yes" | "t" | "true" | "on" | "1"
            ),
            Val::List(_) => false,
        }
    }
}

type Settings = BTreeMap<String, (Val, u32)>;

fn from_ini(s: &IniSection) -> Settings {
    s.entries
        .iter()
        .map(|e| (e.key.clone(), (Val::Text(e.value.clone()), e.line)))
        .collect()
}

fn from_toml(t: &Node) -> Settings {
    let Some(t) = t.table() else {
        return Settings::new();
    };
    t.iter()
        .map(|(k, n)| {
            let v = match &n.v {
                Tv::Str(s) | Tv::Other(s) => Val::Text(s.clone()),
                Tv::Bool(b) => Val::Bool(*b),
                Tv::Arr(_) => Val::List(n.strings()),
                Tv::Tab(_) => Val::Text(n.render()),
            };
            (k.clone(), (v, n.line))
        })
        .collect()
}

/// pytest's settings in a file, by its name; `None` when the file has none.
fn settings(name: &str, text: &str) -> Option<Settings> {
    match name {
        "pytest.ini" | ".pytest.ini" | "tox.ini" | "setup.cfg" => {
            let want = if name == "setup.cfg" {
                "tool:pytest"
            } else {
                "pytest"
            };
            cfgparse::ini(text)
                .iter()
                .find(|s| s.name == want)
                .map(from_ini)
        }
        "pyproject.toml" => {
            let doc = cfgparse::toml(text)?;
            let mut s = doc
                .at(&["tool", "pytest", "ini_options"])
                .map(from_toml)
                .unwrap_or_default();
            if let Some(native) = doc.at(&["tool", "pytest"]) {
                let mut n = from_toml(native);
                n.remove("ini_options");
                s.extend(n);
            }
            (doc.at(&["tool", "pytest"]).is_some()).then_some(s)
        }
        _ => None,
    }
}

const DEFAULT_PYTHON_FILES: &[&str] = &["test_*.py", "*_test.py"];
const DEFAULT_PYTHON_CLASSES: &[&str] = &["Test"];
const DEFAULT_PYTHON_FUNCTIONS: &[&str] = &["test"];
/// Directories that never hold a project's tests: excluding them from recursion is housekeeping.
const NON_TEST_DIRS: &[&str] = &[
    "*.egg",
    ".*",
    "_darcs",
    "build",
    "CVS",
    "dist",
    "node_modules",
    "venv",
    "{arch}",
    ".venv",
    "env",
    ".env",
    ".tox",
    ".nox",
    ".git",
    "target",
    "vendor",
    ".eggs",
    "*.egg-info",
    "site-packages",
    "__pycache__",
    "docs",
    "doc",
    "tmp",
    ".mypy_cache",
    ".pytest_cache",
    "htmlcov",
    "_build",
    "third_party",
    "3rdparty",
    "scripts",
    "benchmarks",
    "examples",
    "*.egg-info/*",
];

fn norm(p: &str) -> String {
    let p = p.strip_prefix("./").unwrap_or(p).trim_end_matches('/');
    if p.is_empty() { ".".into() } else { p.into() }
}

/// What changed in pytest's settings, as findings.
fn pytest_changes(file: &str, b: &Settings, h: &Settings) -> Vec<Hit> {
    let mut found: Vec<(&str, String)> = Vec::new();
    found.extend(addopts(b, h).map(|w| ("addopts", w)));
    found.extend(testpaths(b, h).map(|w| ("testpaths", w)));
    found.extend(lost_patterns(b, h));
    found.extend(norecursedirs(b, h).map(|w| ("norecursedirs", w)));
    found.extend(strict_xfail_off(b, h));
    found.extend(pythonpath(b, h).map(|w| ("pythonpath", w)));
    found.extend(imported_tests_off(b, h).map(|w| ("collect_imported_tests", w)));
    found
        .into_iter()
        .map(|(k, what)| Hit {
            line: h.get(k).map(|(_, l)| *l),
            detail: format!("{file} `{k}` {what}"),
        })
        .collect()
}

fn get(s: &Settings, k: &str) -> Option<Val> {
    s.get(k).map(|(v, _)| v.clone())
}

fn words(s: &Settings, k: &str) -> Vec<String> {
    get(s, k).map(|v| v.words()).unwrap_or_default()
}

/// `addopts`, read like a pytest command line in the judge's own runs.
fn addopts(b: &Settings, h: &Settings) -> Option<String> {
    let (ba, ha) = (words(b, "addopts"), words(h, "addopts"));
    if ba == ha {
        return None;
    }
    let changes = testcmd::compare_args(&testcmd::PYTEST, &ba, &ha, Mode::Config);
    (!changes.is_empty()).then(|| {
        changes
            .into_iter()
            .map(|c| c.text)
            .collect::<Vec<_>>()
            .join("; ")
    })
}

/// `testpaths` (where collection starts when no path is given) dropping a path no remaining
/// path covers, or newly set to subdirectories and files only.
fn testpaths(b: &Settings, h: &Settings) -> Option<String> {
    let (bt, ht) = (words(b, "testpaths"), words(h, "testpaths"));
    if ht.is_empty() || bt == ht {
        return None;
    }
    let covered = |x: &String| {
        ht.iter().any(|y| {
            let (x, y) = (norm(x), norm(y));
            x == y || y == "." || x.starts_with(&format!("{y}/"))
        })
    };
    let lost: Vec<&String> = bt.iter().filter(|x| !covered(x)).collect();
    if !lost.is_empty() {
        return Some(format!("no longer collects {}", quoted(&lost)));
    }
    if !bt.is_empty() {
        return None;
    }
    let narrow: Vec<&String> = ht
        .iter()
        .filter(|p| norm(p).contains('/') || p.ends_with(".py"))
        .collect();
    (!narrow.is_empty() && narrow.len() == ht.len())
        .then(|| format!("now limits collection to {}", quoted(&narrow)))
}

/// `python_files`/`python_classes`/`python_functions` losing a pattern (pytest's defaults when
/// unset).
fn lost_patterns(b: &Settings, h: &Settings) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    for (k, default) in [
        ("python_files", DEFAULT_PYTHON_FILES),
        ("python_classes", DEFAULT_PYTHON_CLASSES),
        ("python_functions", DEFAULT_PYTHON_FUNCTIONS),
    ] {
        let or_default = |s: &Settings| -> Vec<String> {
            let w = words(s, k);
            if w.is_empty() {
                default.iter().map(|d| (*d).to_owned()).collect()
            } else {
                w
            }
        };
        let (bp, hp) = (or_default(b), or_default(h));
        let lost: Vec<&String> = bp.iter().filter(|p| !hp.contains(p)).collect();
        if !lost.is_empty() {
            out.push((
                k,
                format!(
                    "no longer matches {}, so those tests are not collected",
                    quoted(&lost)
                ),
            ));
        }
    }
    out
}

/// `norecursedirs` adding a directory that may hold tests.
fn norecursedirs(b: &Settings, h: &Settings) -> Option<String> {
    let (bn, hn) = (words(b, "norecursedirs"), words(h, "norecursedirs"));
    let added: Vec<&String> = hn
        .iter()
        .filter(|d| !bn.contains(d) && !NON_TEST_DIRS.contains(&norm(d).as_str()))
        .collect();
    (!added.is_empty()).then(|| format!("now skips {}, which may hold tests", quoted(&added)))
}

/// `xfail_strict` / `strict_xfail` / `strict` turned off.
fn strict_xfail_off(b: &Settings, h: &Settings) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    for k in ["xfail_strict", "strict_xfail", "strict"] {
        let on = |s: &Settings| get(s, k).is_some_and(|v| v.truthy());
        if on(b) && !on(h) {
            out.push((
                k,
                "turned off: a test marked xfail that passes no longer fails the run".to_owned(),
            ));
        }
    }
    out
}

/// `pythonpath` gaining an entry.
fn pythonpath(b: &Settings, h: &Settings) -> Option<String> {
    let (bpp, hpp) = (words(b, "pythonpath"), words(h, "pythonpath"));
    let added: Vec<&String> = hpp.iter().filter(|p| !bpp.contains(p)).collect();
    (!added.is_empty()).then(|| {
        format!(
            "adds {}, which can shadow the modules under test",
            quoted(&added)
        )
    })
}

/// `collect_imported_tests` turned off (it is on when unset).
fn imported_tests_off(b: &Settings, h: &Settings) -> Option<String> {
    let imported = |s: &Settings| get(s, "collect_imported_tests").is_none_or(|v| v.truthy());
    (imported(b) && !imported(h))
        .then(|| "turned off: imported test classes are no longer collected".to_owned())
}

fn quoted(v: &[&String]) -> String {
    v.iter()
        .map(|x| format!("`{x}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The findings for a pytest configuration file (and tox.ini's own settings).
pub fn pytest_config(name: &str, base: &str, head: &str) -> Vec<Hit> {
    let empty = Settings::new();
    let (b, h) = (settings(name, base), settings(name, head));
    let mut out = match (&b, &h) {
        (None, None) => Vec::new(),
        _ => pytest_changes(
            name,
            b.as_ref().unwrap_or(&empty),
            h.as_ref().unwrap_or(&empty),
        ),
    };
    if name == "tox.ini" {
        out.extend(tox(base, head));
    }
    out
}

/// `collect_ignore` / `collect_ignore_glob` entries of a conftest.py, with the line of each name.
fn collect_ignores(text: &str) -> (BTreeSet<String>, Option<u32>) {
    let l = lex(text, Lang::Python);
    let mut out = BTreeSet::new();
    for name in ["collect_ignore", "collect_ignore_glob"] {
        for p in find_token(&l.code, name) {
            let after = &l.code[p + name.len()..];
            if after.starts_with(|c: char| c.is_alphanumeric() || c == '_') {
                continue;
            }
            // The statement: a bracketed value or call, else the rest of the line.
            let rest = after.trim_start();
            let skip = after.len() - rest.len();
            let start = p + name.len() + skip;
            let end = match rest.find(['[', '(']) {
                Some(k)
                    if rest[..k]
                        .trim()
                        .trim_start_matches(['=', '+', '.'])
                        .trim()
                        .chars()
                        .all(|c| c.is_alphanumeric() || c == '_') =>
                {
                    matching(&l.code, start + k)
                }
                _ => l.code[start..]
                    .find('\n')
                    .map_or(l.code.len(), |n| start + n),
            };
            out.extend(
                l.strings
                    .iter()
                    .filter(|(at, _)| *at >= start && *at < end)
                    .map(|(_, s)| format!("{name}: {s}")),
            );
        }
    }
    let line = text
        .lines()
        .position(|x| x.contains("collect_ignore") && !x.trim_start().starts_with('#'))
        .and_then(|i| u32::try_from(i + 1).ok());
    (out, line)
}

/// conftest.py: only its collection configuration is test configuration here.
pub fn conftest(base: &str, head: &str) -> Vec<Hit> {
    let ((b, _), (h, line)) = (collect_ignores(base), collect_ignores(head));
    let added: Vec<&String> = h.difference(&b).collect();
    if added.is_empty() {
        return Vec::new();
    }
    vec![Hit {
        line,
        detail: format!(
            "conftest.py now keeps pytest from collecting {}",
            added
                .iter()
                .map(|a| format!("`{}`", a.split_once(": ").map_or(a.as_str(), |x| x.1)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn details(name: &str, b: &str, h: &str) -> Vec<String> {
        pytest_config(name, b, h)
            .into_iter()
            .map(|h| h.detail)
            .collect()
    }

    #[test]
    fn pytest_cheats() {
        let ini = |body: &str| format!("[pytest]\npythonpath = .\n{body}");
        for (body, want) in [
            (
                "addopts = -k 'not add'",
                "pytest.ini `addopts` adds `-k 'not add'`",
            ),
            (
                "addopts = -m 'not slow'",
                "pytest.ini `addopts` adds `-m 'not slow'`",
            ),
            (
                "addopts = --deselect tests/test_a.py::test_x",
                "pytest.ini `addopts` adds `--deselect tests/test_a.py::test_x`",
            ),
            (
                "addopts = --ignore=tests/test_a.py",
                "pytest.ini `addopts` adds `--ignore tests/test_a.py`",
            ),
            (
                "addopts = -p myplugin",
                "pytest.ini `addopts` adds `-p myplugin`, which loads a plugin that can change collection and outcomes",
            ),
            (
                "addopts = -p no:unittest",
                "pytest.ini `addopts` adds `-p no:unittest`, which disables pytest's `unittest` plugin",
            ),
            (
                "addopts = --co",
                "pytest.ini `addopts` adds `--co`, so no test runs",
            ),
            ("addopts = --lf", "pytest.ini `addopts` adds `--lf`"),
            (
                "addopts = -x",
                "pytest.ini `addopts` adds `-x`: the run stops at the first failures and the rest never report",
            ),
            (
                "addopts = --maxfail=1",
                "pytest.ini `addopts` adds `--maxfail 1`: the run stops at the first failures and the rest never report",
            ),
            (
                "addopts = --continue-on-collection-errors",
                "pytest.ini `addopts` adds `--continue-on-collection-errors`",
            ),
            (
                "addopts = -o python_files=x.py",
                "pytest.ini `addopts` adds `-o python_files=x.py`, which overrides the `python_files` setting",
            ),
            (
                "python_files = check_*.py",
                "pytest.ini `python_files` no longer matches `test_*.py`, `*_test.py`, so those tests are not collected",
            ),
            (
                "python_functions = it_*",
                "pytest.ini `python_functions` no longer matches `test`, so those tests are not collected",
            ),
            (
                "norecursedirs = tests/slow",
                "pytest.ini `norecursedirs` now skips `tests/slow`, which may hold tests",
            ),
            (
                "testpaths = tests/unit",
                "pytest.ini `testpaths` now limits collection to `tests/unit`",
            ),
        ] {
            assert_eq!(
                details("pytest.ini", &ini(""), &ini(body)),
                [want],
                "{body}"
            );
        }
        assert_eq!(
            details(
                "pytest.ini",
                "[pytest]\ntestpaths = tests integration\n",
                "[pytest]\ntestpaths = tests\n"
            ),
            ["pytest.ini `testpaths` no longer collects `integration`"]
        );
        assert_eq!(
            details(
                "pytest.ini",
                "[pytest]\nxfail_strict = true\n",
                "[pytest]\nxfail_strict = false\n"
            )[0],
            "pytest.ini `xfail_strict` turned off: a test marked xfail that passes no longer fails the run"
        );
        assert_eq!(
            details(
                "pytest.ini",
                "[pytest]\naddopts = --doctest-modules\n",
                "[pytest]\naddopts = -q\n"
            ),
            ["pytest.ini `addopts` drops `--doctest-modules`"]
        );
        assert_eq!(
            details(
                "pytest.ini",
                "[pytest]\npythonpath = .\n",
                "[pytest]\npythonpath = . fakes\n"
            ),
            ["pytest.ini `pythonpath` adds `fakes`, which can shadow the modules under test"]
        );
        // The same rules in the other files pytest reads.
        assert_eq!(
            details(
                "setup.cfg",
                "[metadata]\nname = a\n",
                "[metadata]\nname = a\n[tool:pytest]\naddopts = -k x\n"
            )
            .len(),
            1
        );
        assert_eq!(
            details(
                "tox.ini",
                "[pytest]\naddopts = -q\n",
                "[pytest]\naddopts = -q -k x\n"
            )
            .len(),
            1
        );
        assert_eq!(
            details(
                "pyproject.toml",
                "[tool.pytest.ini_options]\naddopts = \"-q\"\n",
                "[tool.pytest.ini_options]\naddopts = [\"-q\", \"-k\", \"not add\"]\n"
            ),
            ["pyproject.toml `addopts` adds `-k 'not add'`"]
        );
        assert_eq!(
            details(
                "pyproject.toml",
                "[tool.pytest]\nxfail_strict = true\n",
                "[tool.pytest]\nxfail_strict = false\n"
            )
            .len(),
            1
        );
        let h = pytest_config("pytest.ini", "[pytest]\n", "[pytest]\n\naddopts = -k x\n");
        assert_eq!(h[0].line, Some(3));
    }

    #[test]
    fn honest_pytest_changes() {
        for (b, h) in [
            (
                "[pytest]\n",
                "[pytest]\nmarkers =\n    slow: slow tests\n    db: needs a database\n",
            ),
            (
                "[pytest]\n",
                "[pytest]\nfilterwarnings =\n    error\n    ignore::DeprecationWarning\nminversion = 7.0\nlog_cli = true\nlog_level = INFO\nasyncio_mode = auto\ntimeout = 30\nrequired_plugins = pytest-asyncio\ndoctest_optionflags = ELLIPSIS\n",
            ),
            (
                "[pytest]\naddopts = -q\n",
                "[pytest]\naddopts = -ra -v --tb=short --strict-markers --durations=10 -n auto --runxfail\n",
            ),
            (
                "[pytest]\ntestpaths = tests\n",
                "[pytest]\ntestpaths = tests integration\n",
            ),
            ("[pytest]\n", "[pytest]\ntestpaths = tests\n"),
            (
                "[pytest]\n",
                "[pytest]\nnorecursedirs = .git build dist node_modules docs\n",
            ),
            (
                "[pytest]\npython_files = test_*.py\n",
                "[pytest]\npython_files = test_*.py check_*.py\n",
            ),
            (
                "[pytest]\nxfail_strict = false\n",
                "[pytest]\nxfail_strict = true\n",
            ),
            (
                "[pytest]\naddopts = -q\n",
                "[pytest]\naddopts = -q\n# a comment\n",
            ),
        ] {
            assert_eq!(details("pytest.ini", b, h), Vec::<String>::new(), "{h}");
        }
        assert!(details("pyproject.toml", "[project]\nname='a'\ndependencies=['x>=1']\n[tool.pytest.ini_options]\naddopts='-q'\n", "[project]\nname='a'\ndependencies=['x>=2']\n[tool.pytest.ini_options]\naddopts='-q'\nmarkers=['slow']\n").is_empty());
        assert!(
            details(
                "pyproject.toml",
                "[tool.pytest.ini_options\n",
                "also broken = = \n"
            )
            .is_empty()
        );
        assert!(
            details(
                "tox.ini",
                "[tox]\nenvlist = py39,py310\n",
                "[tox]\nenvlist = py39,py310,py311\n"
            )
            .is_empty()
        );
    }

    #[test]
    fn tox_commands_and_envs() {
        let b = "[tox]\nenvlist = py{39,310}\n[testenv]\ncommands =\n    pytest {posargs}\n";
        assert_eq!(
            details("tox.ini", b, &b.replace("    pytest", "    - pytest")).len(),
            1
        );
        assert_eq!(
            details(
                "tox.ini",
                b,
                &b.replace("pytest {posargs}", "pytest -k fast {posargs}")
            )
            .len(),
            1
        );
        assert_eq!(
            details("tox.ini", b, &b.replace("py{39,310}", "py310")),
            ["tox.ini `envlist` no longer runs `py39`"]
        );
        assert_eq!(
            details("tox.ini", b, &format!("{b}ignore_outcome = true\n")).len(),
            1
        );
        assert!(
            details(
                "tox.ini",
                b,
                &b.replace("pytest {posargs}", "pytest -v {posargs}")
            )
            .is_empty()
        );
    }

    #[test]
    fn conftest_collection() {
        let fixture = "import pytest\n\n@pytest.fixture\ndef db():\n    return {}\n";
        assert!(conftest("", fixture).is_empty());
        assert!(conftest(fixture, &format!("{fixture}\ndef helper():\n    pass\n")).is_empty());
        let h = conftest(
            fixture,
            &format!("{fixture}\ncollect_ignore = [\"test_calc.py\"]\n"),
        );
        assert_eq!(h.len(), 1);
        assert_eq!(
            h[0].detail,
            "conftest.py now keeps pytest from collecting `test_calc.py`"
        );
        assert_eq!(h[0].line, Some(7));
        assert_eq!(
            conftest(
                "collect_ignore = ['setup.py']\n",
                "collect_ignore = ['setup.py']\ncollect_ignore.append('tests/test_a.py')\n"
            )
            .len(),
            1
        );
        assert!(
            conftest(
                "collect_ignore = ['setup.py']\n",
                "# collect_ignore = ['x']\ncollect_ignore = ['setup.py']\n"
            )
            .is_empty()
        );
    }
}
