//! Where a test lives: the file and line a dynamic finding points at, from the test's id.
//!
//! Each runner reads its ids (`Runner::locate`, in `crate::runners`) through a [`Locator`]'s
//! reads and listings:
//! - pytest: the node id's file (relative to the check's directory) and its `def <name>` line;
//! - vitest, jest, node: the id's file and the line that quotes the test's title;
//! - go: the package directory of the id (module path stripped) and its `func <Test>(` line in a
//!   `_test.go` file there;
//! - cargo, nextest: the first `fn <name>` among the check's Rust files (at most 2,000);
//! - maven: the class's file under `src/test/java` and the method's line.
//!
//! When nothing matches (a deleted test, a generated name) the finding points at the check's
//! directory and carries no line. A test the change deleted is looked up in the base's tree
//! ([`Source::Tree`]: the commit's listing and a reader). Reading is bounded and never fails the
//! judgement. A [`Locator`] reads each file and lists each directory once, however many findings
//! it places (a deleted table can be thousands of subtests in one file).

use std::collections::HashMap;
use std::path::Path;

use loki_protocol::CheckKind;

use crate::detect::Check;
use crate::runners::runner;

/// Most files searched for a Rust test's definition.
const MAX_FILES: usize = 2000;
/// Largest file read while searching.
const MAX_BYTES: u64 = 2 * 1024 * 1024;

/// Reads a repository-relative file of a tree; `None` when it has no such file.
pub type ReadFile<'r> = Box<dyn Fn(&str) -> Option<Vec<u8>> + 'r>;

/// Where a [`Locator`] reads: a directory, or a listed tree (a commit's) with a reader for its
/// files, for the tests a change deleted.
pub enum Source<'r> {
    Dir(&'r Path),
    Tree {
        /// Every repository-relative file path of the tree.
        paths: Vec<String>,
        read: ReadFile<'r>,
    },
}

impl std::fmt::Debug for Source<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Source::Dir(root) => f.debug_tuple("Dir").field(root).finish(),
            Source::Tree { paths, .. } => write!(f, "Tree({} paths)", paths.len()),
        }
    }
}

/// Which files of a directory a test may be defined in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Listing {
    /// Go's `_test.go` files of that package directory, sorted.
    GoPackage,
    /// Rust files below it (at most [`MAX_FILES`], depth ≤ 8, hidden and `target` directories
    /// skipped), `tests` before the rest at each level.
    Rust,
}

/// Where a parameterized test's cases are when its own item does not hold them: a function of
/// the same file (JUnit's `@MethodSource` factory).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaseSource {
    /// The function's name.
    pub function: String,
    /// The start of the test item's line that names it, whose string is not a case's value.
    pub annotation: &'static str,
}

/// Where the cases of parameterized test `test` of a check of `kind`, whose item is `item`, are
/// when `item` does not hold them; `None` when it does (or the runner has no such thing).
#[must_use]
pub fn case_source(kind: CheckKind, test: &str, item: &str) -> Option<CaseSource> {
    runner(kind).case_source(test, item)
}

/// Places tests in the files of one source, with what it read kept for the next test.
#[derive(Debug)]
pub struct Locator<'r> {
    source: Source<'r>,
    /// Repository-relative path → its lines' text (`None`: unreadable or too large).
    texts: HashMap<String, Option<String>>,
    /// `(directory, listing)` → the files a test may be defined in.
    files: HashMap<(String, Listing), Vec<String>>,
}

impl<'r> Locator<'r> {
    /// A locator over the files under `root`.
    #[must_use]
    pub fn new(root: &'r Path) -> Self {
        Self::over(Source::Dir(root))
    }

    #[must_use]
    pub fn over(source: Source<'r>) -> Self {
        Locator {
            source,
            texts: HashMap::new(),
            files: HashMap::new(),
        }
    }

    /// The repository-relative path and 1-based line of test `id` of `check`.
    pub fn locate(&mut self, check: &Check, id: &str) -> (String, Option<u32>) {
        runner(check.kind).locate(self, check, id)
    }

    /// The text of repository-relative file `rel`, read once.
    pub(crate) fn text(&mut self, rel: &str) -> Option<&str> {
        let source = &self.source;
        self.texts
            .entry(rel.to_owned())
            .or_insert_with(|| match source {
                Source::Dir(root) => read(&root.join(rel)),
                Source::Tree { read, .. } => read(rel)
                    .filter(|b| u64::try_from(b.len()).is_ok_and(|n| n <= MAX_BYTES))
                    .and_then(|b| String::from_utf8(b).ok()),
            })
            .as_deref()
    }

    /// The 1-based line of the first line of `rel` that `pred` accepts.
    pub(crate) fn line_of(&mut self, rel: &str, pred: impl Fn(&str) -> bool) -> Option<u32> {
        self.text(rel)?
            .lines()
            .position(pred)
            .and_then(|i| u32::try_from(i + 1).ok())
    }

    /// The files of `listing` under directory `dir` (repository-relative), listed once.
    pub(crate) fn files_of(&mut self, dir: &str, listing: Listing) -> Vec<String> {
        let source = &self.source;
        self.files
            .entry((dir.to_owned(), listing))
            .or_insert_with(|| match (source, listing) {
                (Source::Dir(root), Listing::GoPackage) => go_test_files(root, dir),
                (Source::Dir(root), Listing::Rust) => {
                    let mut files = Vec::new();
                    rust_files(root, Path::new(dir), &mut files, 0);
                    files
                }
                (Source::Tree { paths, .. }, listing) => listed(paths, dir, listing),
            })
            .clone()
    }
}

/// [`Locator::files_of`] over a tree's listing.
fn listed(paths: &[String], dir: &str, listing: Listing) -> Vec<String> {
    let under = |p: &str| -> Option<String> {
        match dir {
            "" | "." => Some(p.to_owned()),
            d => p.strip_prefix(&format!("{d}/")).map(str::to_owned),
        }
    };
    let mut out: Vec<(Vec<(bool, String)>, String)> = paths
        .iter()
        .filter_map(|p| {
            let rest = under(p)?;
            let keep = match listing {
                Listing::GoPackage => !rest.contains('/') && rest.ends_with("_test.go"),
                Listing::Rust => {
                    rest.ends_with(".rs")
                        && rest.split('/').count() <= 9
                        && !rest.split('/').any(|c| c.starts_with('.') || c == "target")
                }
            };
            // The order of the directory walk: `tests` first at each level, then by name.
            let key = rest
                .split('/')
                .map(|c| (c != "tests", c.to_owned()))
                .collect();
            keep.then(|| (key, p.clone()))
        })
        .collect();
    out.sort();
    out.into_iter().map(|(_, p)| p).take(MAX_FILES).collect()
}

fn read(p: &Path) -> Option<String> {
    if std::fs::metadata(p).ok()?.len() > MAX_BYTES {
        return None;
    }
    std::fs::read_to_string(p).ok()
}

/// The repository-relative path of `rel` (relative to `check`'s directory); `""` is the
/// directory itself.
pub(crate) fn in_check(check: &Check, rel: &str) -> String {
    match (check.dir.as_str(), rel) {
        (".", "") => ".".to_owned(),
        (".", r) => r.to_owned(),
        (d, "") => d.to_owned(),
        (d, r) => format!("{d}/{r}"),
    }
}

/// The `_test.go` files of package directory `pkg_dir`, sorted.
fn go_test_files(root: &Path, pkg_dir: &str) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(root.join(pkg_dir)) else {
        return Vec::new();
    };
    let mut files: Vec<String> = entries
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with("_test.go"))
        .map(|f| {
            if pkg_dir.is_empty() || pkg_dir == "." {
                f
            } else {
                format!("{pkg_dir}/{f}")
            }
        })
        .collect();
    files.sort();
    files
}

/// Rust files under `rel` (repository-relative), tests first, skipping build output.
fn rust_files(root: &Path, rel: &Path, out: &mut Vec<String>, depth: usize) {
    if depth > 8 || out.len() >= MAX_FILES {
        return;
    }
    let Ok(entries) = std::fs::read_dir(root.join(rel)) else {
        return;
    };
    let mut names: Vec<(String, bool)> = entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let dir = e.file_type().ok()?.is_dir();
            Some((name, dir))
        })
        .collect();
    // `tests/` before `src/`: an id names a test, and integration tests are whole test files.
    names.sort_by_key(|(n, _)| (n != "tests", n.clone()));
    for (name, is_dir) in names {
        if out.len() >= MAX_FILES {
            return;
        }
        let child = if rel.as_os_str().is_empty() || rel == Path::new(".") {
            Path::new(&name).to_path_buf()
        } else {
            rel.join(&name)
        };
        if is_dir {
            if !name.starts_with('.') && name != "target" {
                rust_files(root, &child, out, depth + 1);
            }
        } else if name.ends_with(".rs") {
            out.push(child.to_string_lossy().into_owned());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::select::tests::write;
    use loki_protocol::CheckKind;

    fn check(kind: CheckKind, dir: &str) -> Check {
        crate::select::tests::check(kind, dir, &[], None)
    }

    #[test]
    fn finds_the_definition_per_runner() {
        let t = tempfile::tempdir().unwrap();
        let r = t.path();
        write(
            r,
            "py/tests/test_a.py",
            "import x\n\nclass TestA:\n    def test_b(self):\n        pass\n",
        );
        assert_eq!(
            Locator::new(r).locate(
                &check(CheckKind::Pytest, "py"),
                "tests/test_a.py::TestA::test_b[1]"
            ),
            ("py/tests/test_a.py".into(), Some(4))
        );
        write(
            r,
            "src/a.test.ts",
            "describe('m', () => {\n  it(\"adds\", () => {});\n});\n",
        );
        assert_eq!(
            Locator::new(r).locate(&check(CheckKind::Vitest, "."), "src/a.test.ts > m > adds"),
            ("src/a.test.ts".into(), Some(2))
        );
        // jest joins the describe titles and the test's with spaces.
        write(
            r,
            "src/o.test.js",
            "describe('ordinal', () => {\n  test('first few numbers', () => {});\n});\n",
        );
        assert_eq!(
            Locator::new(r).locate(
                &check(CheckKind::Jest, "."),
                "src/o.test.js > ordinal first few numbers"
            ),
            ("src/o.test.js".into(), Some(2))
        );
        write(r, "go.mod", "module example.com/m\n");
        write(
            r,
            "calc/calc_test.go",
            "package calc\n\nfunc TestAdd(t *testing.T) {}\n",
        );
        assert_eq!(
            Locator::new(r).locate(
                &check(CheckKind::Go, "."),
                "example.com/m/calc/TestAdd/small"
            ),
            ("calc/calc_test.go".into(), Some(3))
        );
        write(r, "Cargo.toml", "[package]\nname = \"c\"\n");
        write(
            r,
            "src/lib.rs",
            "pub fn f() {}\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn adds() {}\n}\n",
        );
        assert_eq!(
            Locator::new(r).locate(&check(CheckKind::Cargo, "."), "c::c::tests::adds"),
            ("src/lib.rs".into(), Some(5))
        );
        assert_eq!(
            Locator::new(r).locate(&check(CheckKind::Cargo, "."), "c::c::tests::gone"),
            (".".into(), None)
        );
        // A JUnit parameterized invocation is found at its method.
        write(
            r,
            "src/test/java/w/OrdTest.java",
            "package w;\nclass OrdTest {\n    @ParameterizedTest\n    @MethodSource(\"rows\")\n    void ordinal(int n, String want) {}\n}\n",
        );
        for id in [
            "w.OrdTest::ordinal{int, String}[10]",
            "w.OrdTest::ordinal(int, String)[1]",
        ] {
            assert_eq!(
                Locator::new(r).locate(&check(CheckKind::Maven, "."), id),
                ("src/test/java/w/OrdTest.java".into(), Some(5)),
                "{id}"
            );
        }
        // The same files as a listed tree (a deleted test is found in the base's).
        write(r, "target/debug/build/x.rs", "fn adds() {}\n");
        write(r, "tests/it.rs", "#[test]\nfn adds() {}\n");
        let paths: Vec<String> = [
            "py/tests/test_a.py",
            "src/a.test.ts",
            "go.mod",
            "calc/calc_test.go",
            "calc/deeper/x_test.go",
            "src/lib.rs",
            "tests/it.rs",
            "target/debug/build/x.rs",
        ]
        .map(str::to_owned)
        .to_vec();
        let root = r.to_path_buf();
        let mut tree = Locator::over(Source::Tree {
            paths,
            read: Box::new(move |p| std::fs::read(root.join(p)).ok()),
        });
        let cases = [
            (
                check(CheckKind::Pytest, "py"),
                "tests/test_a.py::TestA::test_b[1]",
            ),
            (check(CheckKind::Vitest, "."), "src/a.test.ts > m > adds"),
            (
                check(CheckKind::Go, "."),
                "example.com/m/calc/TestAdd/small",
            ),
            (check(CheckKind::Cargo, "."), "c::c::tests::adds"),
            (check(CheckKind::Cargo, "."), "c::c::tests::gone"),
        ];
        for (c, id) in &cases {
            assert_eq!(tree.locate(c, id), Locator::new(r).locate(c, id), "{id}");
        }
        // `tests/` comes first, and build output is never searched.
        assert_eq!(
            tree.locate(&check(CheckKind::Cargo, "."), "c::it::adds"),
            ("tests/it.rs".into(), Some(2))
        );
    }
}
