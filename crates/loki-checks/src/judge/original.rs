//! O: the original tests on the new code, for the checks whose test-owned files the change
//! modified or deleted ([`super::owned`]), run in a hybrid of the head's code and the base's
//! version of those files ([`super::trees::hybrid`]), narrowed to them.
//!
//! [`plan`] decides, from the change alone, which checks run and on what: so O can start beside
//! H and B. Added test-owned files run O too when they can change how other tests run
//! ([`takes_over`]): a Go `TestMain` or `init`, a conftest, a test module with import-time side
//! effects, a setup file, a helper outside the test files (then every suite of its language runs
//! whole). API renames the change makes ([`super::rename`]) are applied to the original tests, and
//! said so in NOT PROVEN; a mixed file whose test items cannot be split from its code is not run
//! on the new code, and said so too.

use std::collections::{BTreeMap, BTreeSet};

use loki_git::Git;

use super::owned::Owner;
use super::trees::{Owned, SideTree, TestsFrom, hybrid};
use super::{JudgeInput, git_err, in_checkout, rename};
use loki_runner::ChecksError;
use loki_runner::detect::{Check, checks_for, kinds_for_helper, runs_as_test_file};
use loki_runner::exec::CheckResult;
use loki_runner::select::{Selection, selects_mixed_files, test_data_selection};

/// What O will run, decided before any run.
#[derive(Debug)]
pub(super) struct Plan<'a> {
    /// Every test-owned change (test code, test data, mixed files).
    pub test_owned: Vec<&'a Owned>,
    /// The test-owned changes that have a base side (modified or deleted).
    pub base_side_changed: Vec<&'a Owned>,
    /// The checks O runs.
    pub in_original: BTreeSet<String>,
    /// The test-owned changes, owned, for building hybrids.
    pub owned_vec: Vec<Owned>,
    /// The API renames applied to the original tests.
    pub renames: BTreeMap<String, String>,
    takeovers: Vec<Takeover>,
}

/// What O's run gave: the results, and its NOT PROVEN notes.
#[derive(Debug, Default)]
pub(super) struct Ran {
    pub results: Vec<CheckResult>,
    pub notes: Vec<String>,
    /// O ran in the head's own directory (a Go overlay), not in a tree of its own.
    pub in_head_dir: bool,
}

/// The plan of O for the classified changes `owned`.
pub(super) fn plan<'a>(
    input: &JudgeInput<'_>,
    git: &Git,
    owned: &'a [Owned],
) -> Result<Plan<'a>, ChecksError> {
    let test_owned: Vec<&Owned> = owned
        .iter()
        .filter(|o| matches!(o.owner, Owner::TestCode | Owner::TestData | Owner::Mixed))
        .collect();
    let base_side_changed: Vec<&Owned> = test_owned
        .iter()
        .copied()
        .filter(|o| o.change.base.is_some())
        .collect();
    // Added test-owned files that can change how other tests run (a Go `TestMain`, a conftest,
    // a test module that patches things when imported): O, without them, shows what they changed.
    let mut takeovers: Vec<Takeover> = Vec::new();
    for o in test_owned.iter().filter(|o| o.change.base.is_none()) {
        // An added helper outside the test files (a vendored copy of one included) serves
        // whatever tests import it.
        if o.owner == Owner::TestCode && !loki_integrity::is_test_path(&o.change.path) {
            takeovers.push(Takeover {
                path: o.change.path.clone(),
                scope: None,
            });
            continue;
        }
        if let Some(e) = &o.change.head
            && e.mode != "160000"
        {
            let bytes = git
                .show_blob(&e.oid)
                .map_err(git_err("read an added test file"))?;
            if let Some(t) = takes_over(&o.change.path, &bytes) {
                takeovers.push(t);
            }
        }
    }
    let mut in_original: BTreeSet<String> = base_side_changed
        .iter()
        .map(|o| o.change.path.as_str())
        .chain(takeovers.iter().map(|t| t.path.as_str()))
        .flat_map(|p| checks_for(input.checks, p))
        .map(|c| c.name.clone())
        .collect();
    // A helper outside the test files can serve the tests of any suite of its language (another
    // Go module, another package of the workspace): all of them run with its base version.
    for o in &base_side_changed {
        if o.owner == Owner::TestCode && !loki_integrity::is_test_path(&o.change.path) {
            let lang = kinds_for_helper(&o.change.path);
            in_original.extend(
                input
                    .checks
                    .iter()
                    .filter(|c| lang.contains(&c.kind))
                    .map(|c| c.name.clone()),
            );
        }
    }
    let owned_vec: Vec<Owned> = test_owned.iter().map(|o| (*o).clone()).collect();
    let renames = api_renames(git, owned)?;
    Ok(Plan {
        test_owned,
        base_side_changed,
        in_original,
        owned_vec,
        renames,
        takeovers,
    })
}

impl Plan<'_> {
    /// What NOT PROVEN says whether or not O runs: the renames applied to the original tests.
    pub fn notes(&self) -> Vec<String> {
        if self.renames.is_empty() {
            return Vec::new();
        }
        vec![format!(
            "the original tests ran with the change's renames applied ({})",
            self.renames
                .iter()
                .map(|(o, n)| format!("{o} → {n}"))
                .collect::<Vec<_>>()
                .join(", ")
        )]
    }

    /// Runs O (nothing when no check needs it).
    pub fn run(
        &self,
        input: &JudgeInput<'_>,
        git: &Git,
        base_tree: &str,
    ) -> Result<Ran, ChecksError> {
        let mut ran = Ran::default();
        if self.in_original.is_empty() {
            return Ok(ran);
        }
        let (in_original, takeovers, base_side_changed) =
            (&self.in_original, &self.takeovers, &self.base_side_changed);
        let h = hybrid(
            git,
            base_tree,
            input.head_tree,
            &self.owned_vec,
            TestsFrom::Base,
            &self.renames,
        )?;
        for f in &h.unsplit {
            ran.notes.push(format!(
                "original tests of {f}: its test items could not be separated from its code, so they were not run on the new code"
            ));
        }
        let side = SideTree::overlay_or_export(
            git,
            input.repo_root,
            input.head_root,
            input.head_tree,
            &h.tree,
            "original",
            &in_checkout(input),
            input.opts,
            input.cache_dir,
        )?;
        let to_run: Vec<Check> = input
            .checks
            .iter()
            .filter(|c| in_original.contains(&c.name))
            .cloned()
            .collect();
        let owns = |c: &Check, p: &str| {
            checks_for(std::slice::from_ref(c), p)
                .iter()
                .any(|x| x.name == c.name)
        };
        let helper_changed = base_side_changed
            .iter()
            .any(|o| o.owner == Owner::TestCode && !loki_integrity::is_test_path(&o.change.path));
        let select = |c: &Check| {
            if helper_changed {
                return Selection::default();
            }
            let mine: Vec<&Takeover> = takeovers.iter().filter(|t| owns(c, &t.path)).collect();
            if mine.iter().any(|t| t.scope.is_none()) {
                return Selection::default();
            }
            let sel = selection_for(c, base_side_changed, Side::Base);
            let had_files = base_side_changed.iter().any(|o| owns(c, &o.change.path));
            if had_files && sel.is_empty() {
                return sel;
            }
            let mut files = sel.files;
            files.extend(mine.iter().filter_map(|t| t.scope.clone()));
            Selection::files(files)
        };
        ran.results = side.run_selected(
            &to_run,
            &select,
            input.opts,
            input.opts.log_dir.join("original-tests"),
        )?;
        ran.notes.extend(side.notes.iter().cloned());
        ran.notes.extend(side.evidence());
        ran.in_head_dir = side.root == input.head_root;
        Ok(ran)
    }
}

impl Plan<'_> {
    /// Runs N: the new form of the test-owned files on the base code, for the checks of
    /// `suspects` (check, head test id), narrowed to those files.
    pub fn run_new(
        &self,
        input: &JudgeInput<'_>,
        git: &Git,
        base_tree: &str,
        suspects: &[(String, String)],
    ) -> Result<Ran, ChecksError> {
        let ids: BTreeMap<&str, Vec<String>> =
            suspects.iter().fold(BTreeMap::new(), |mut m, (c, id)| {
                m.entry(c.as_str()).or_default().push(id.clone());
                m
            });
        let suspects: BTreeSet<&str> = ids.keys().copied().collect();
        let h = hybrid(
            git,
            base_tree,
            input.head_tree,
            &self.owned_vec,
            TestsFrom::Head,
            &self.renames,
        )?;
        let side = SideTree::overlay_or_export(
            git,
            input.repo_root,
            input.head_root,
            input.head_tree,
            &h.tree,
            "new",
            &in_checkout(input),
            input.opts,
            input.cache_dir,
        )?;
        let head_side_changed: Vec<&Owned> = self
            .test_owned
            .iter()
            .copied()
            .filter(|o| o.change.head.is_some())
            .collect();
        let to_run: Vec<Check> = input
            .checks
            .iter()
            .filter(|c| suspects.contains(c.name.as_str()))
            .cloned()
            .collect();
        // The suspects themselves, by id: a test whose own file did not change (new test
        // infrastructure changed how it runs) is in no changed file's selection.
        let select = |c: &Check| {
            let by_file = selection_for(c, &head_side_changed, Side::Head);
            if by_file.is_empty() {
                return by_file;
            }
            Selection::tests(ids.get(c.name.as_str()).cloned().unwrap_or_default())
        };
        let results = side.run_selected(
            &to_run,
            &select,
            input.opts,
            input.opts.log_dir.join("new-tests"),
        )?;
        Ok(Ran {
            results,
            notes: side.evidence(),
            in_head_dir: side.root == input.head_root,
        })
    }
}

/// The API renames the change makes ([`rename`]): from its modified test files and its source
/// files.
fn api_renames(git: &Git, owned: &[Owned]) -> Result<BTreeMap<String, String>, ChecksError> {
    let text = |e: &Option<loki_git::Entry>| -> Result<Option<String>, ChecksError> {
        match e {
            Some(e) if e.mode != "160000" => Ok(Some(
                String::from_utf8_lossy(
                    &git.show_blob(&e.oid)
                        .map_err(git_err("read a changed file"))?,
                )
                .into_owned(),
            )),
            _ => Ok(None),
        }
    };
    let mut tests = Vec::new();
    let mut sources = Vec::new();
    for o in owned {
        match o.owner {
            Owner::TestCode => {
                if let (Some(b), Some(h)) = (text(&o.change.base)?, text(&o.change.head)?) {
                    tests.push((b, h));
                }
            }
            Owner::Source => {
                sources.push((text(&o.change.base)?, text(&o.change.head)?));
            }
            // A file with tests inside its source renames on both sides: its tests call what its
            // code defines.
            Owner::Mixed => {
                let (b, h) = (text(&o.change.base)?, text(&o.change.head)?);
                if let (Some(b), Some(h)) = (&b, &h) {
                    tests.push((b.clone(), h.clone()));
                }
                sources.push((b, h));
            }
            Owner::TestData | Owner::Other => {}
        }
    }
    if tests.is_empty() || sources.is_empty() {
        return Ok(BTreeMap::new());
    }
    Ok(rename::renames(&tests, &sources))
}

/// Which side's paths a hybrid run selects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Side {
    Base,
    Head,
}

/// The part of `check` a hybrid run needs: the changed test files it owns; the whole check when
/// test data or a mixed file changed (any test may read them), or, for a runner that says
/// which files a change of test data or of a mixed file selects (Go: the package), those.
pub(super) fn selection_for(check: &Check, owned: &[&Owned], _side: Side) -> Selection {
    let mine: Vec<&&Owned> = owned
        .iter()
        .filter(|o| {
            checks_for(std::slice::from_ref(check), &o.change.path)
                .iter()
                .any(|c| c.name == check.name)
        })
        .collect();
    if mine.is_empty() {
        return Selection::default();
    }
    let mut files = BTreeSet::new();
    for o in mine {
        match o.owner {
            // A helper outside the test files, or one among them that the runner does not run
            // as a test file (a setup file, `conftest.py`, `tests/common/mod.rs`), may serve any
            // test: run the check whole.
            Owner::TestCode
                if !loki_integrity::is_test_path(&o.change.path)
                    || !runs_as_test_file(check.kind, &o.change.path) =>
            {
                return Selection::default();
            }
            // A test file, or a mixed file the runner selects (cargo and go narrow by package).
            Owner::TestCode => {
                files.insert(o.change.path.clone());
            }
            Owner::Mixed if selects_mixed_files(check.kind) => {
                files.insert(o.change.path.clone());
            }
            // Test data the runner knows the readers of (a Go package's): run those.
            Owner::TestData => match test_data_selection(check.kind, &o.change.path) {
                Some(f) => {
                    files.insert(f);
                }
                None => return Selection::default(),
            },
            Owner::Mixed => return Selection::default(),
            Owner::Source | Owner::Other => {}
        }
    }
    Selection::files(files)
}

/// An added test-owned file that can change how other tests run, and the part of its suite it
/// can affect (`None`: all of it).
#[derive(Debug, Clone)]
struct Takeover {
    path: String,
    scope: Option<String>,
}

/// Whether a file defines tests of its own (a test module, not infrastructure).
fn holds_tests(path: &str, text: &str) -> bool {
    let ext = path.rsplit_once('.').map_or("", |(_, e)| e);
    match ext {
        "py" => text.lines().any(|l| {
            let t = l.trim_start();
            t.starts_with("def test")
                || t.starts_with("async def test")
                || t.starts_with("class Test")
        }),
        "go" => text.lines().any(|l| {
            ["func Test", "func Example", "func Fuzz", "func Benchmark"]
                .iter()
                .any(|p| l.starts_with(p))
        }),
        "rs" => text.contains("#[test]") || text.contains("#[tokio::test"),
        "js" | "jsx" | "ts" | "tsx" | "mjs" | "cjs" | "mts" | "cts" => [
            "test(",
            "it(",
            "describe(",
            "test.each",
            "it.each",
            "test.only",
            "Deno.test(",
        ]
        .iter()
        .any(|p| text.contains(p)),
        // Data and configuration are not loaded as code by another test's run.
        _ => true,
    }
}

/// Whether an added file can change how the other tests run (see the module doc).
fn takes_over(path: &str, bytes: &[u8]) -> Option<Takeover> {
    let text = String::from_utf8_lossy(bytes);
    let name = path.rsplit('/').next().unwrap_or(path);
    let dir = path.rsplit_once('/').map(|(d, _)| d.to_owned());
    if name.ends_with("_test.go") {
        // `TestMain`, `init`, and package-level variables initialised by a call run before any
        // test of the package (`var _ = func() int { Parse = fake; return 0 }()`).
        let hooks = text.lines().any(|l| {
            let t = l.trim_start();
            t.starts_with("func TestMain(")
                || t.starts_with("func init(")
                || (l.starts_with("var ") && l.contains('=') && l.contains('('))
                || (l.starts_with("\t") && t.starts_with("_ =") && t.contains('('))
        }) || !holds_tests(path, &text);
        // Go narrows by package: a file in the package's directory names it.
        return hooks.then(|| Takeover {
            path: path.to_owned(),
            scope: Some(dir.map_or_else(|| "_".to_owned(), |d| format!("{d}/_"))),
        });
    }
    if name == "conftest.py" || name == "__init__.py" || name.ends_with(".pth") {
        return Some(Takeover {
            path: path.to_owned(),
            scope: dir,
        });
    }
    // A new test-side file that holds no tests is infrastructure (a helper, a fixture module, a
    // setup or mock file, a stand-in): what it changes shows only in the other tests, so they run
    // without it.
    if !holds_tests(path, &text) {
        return Some(Takeover {
            path: path.to_owned(),
            scope: None,
        });
    }
    if name.ends_with(".py") && loki_integrity::is_test_path(path) {
        // Module-level code other than imports, definitions and constants runs at collection, in
        // the same process as every other test.
        let side_effects = text.lines().any(|l| {
            if l.starts_with([' ', '\t', '#', ')', ']', '}', '@', '"', '\'']) || l.trim().is_empty()
            {
                return false;
            }
            let t = l.trim();
            let plain_constant = t
                .split_once('=')
                .is_some_and(|(k, _)| k.trim().chars().all(|c| c.is_alphanumeric() || c == '_'));
            t.starts_with("pytest_plugins")
                || !(t.starts_with("import ")
                    || t.starts_with("from ")
                    || t.starts_with("def ")
                    || t.starts_with("async def ")
                    || t.starts_with("class ")
                    || t.starts_with("if __name__")
                    || plain_constant)
        });
        return side_effects.then(|| Takeover {
            path: path.to_owned(),
            scope: None,
        });
    }
    let stem = name.split('.').next().unwrap_or(name);
    let setup = matches!(
        stem,
        "setupTests" | "setup-tests" | "test-setup" | "testSetup" | "setup"
    ) || (matches!(stem, "jest" | "vitest") && name.contains(".setup."));
    setup.then(|| Takeover {
        path: path.to_owned(),
        scope: None,
    })
}
