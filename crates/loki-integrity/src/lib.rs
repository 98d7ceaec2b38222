//! The integrity scan: the seal rules that catch a change which makes tests pass by weakening them
//! instead of fixing the code.
//!
//! # Modules
//! This crate is the scan: it builds the input, runs every rule and sorts the findings. The rules
//! live in modules of their own, one per rule class, with an acyclic graph (lower first):
//! `shell` (shell scripts) → `testcmd` (test commands and their runs); then the rule modules
//! `ci`, `config` (test configuration) and `rules` (the structural rules). All five are private:
//! [`scan`] is their only caller. Below them are the crates `loki-syntax` (lexer, syntax trees,
//! literals, added lines, test files, and the scan's input [`ScanInput`]) and `loki-protocol`
//! ([`Finding`], [`FindingKind`]), both re-exported here.
//!
//! # Input and output
//! [`scan`] is pure: a [`ScanInput`] (every changed path with its base and head bytes, `None` where
//! the file is absent, plus the head bytes of unchanged jest/vitest configs, `package.json` and
//! `go.mod` files, which say which setup files count as test configuration and what the Go module
//! is; the head bytes of unchanged test files, whose literals the special-case rule looks for; and
//! every head path, for the shadow rule) in, sorted and de-duplicated [`Finding`]s out.
//! [`scan_changes`] is its I/O shell: it builds the input from git (`diff-tree --raw
//! --no-renames` between a base commit and a head tree, `ls-tree` for the paths, then every
//! side of every changed file in one `cat-file --batch`, the context files in one more);
//! [`scan_input_from`] is the same from a change list and listing the caller already has, and
//! [`scan_requests`] names everything it reads so that the caller can read it in its own
//! batch.
//!
//! # Rules (each a [`FindingKind`])
//! The count and skip rules (`test_file_removed`, `fewer_tests`, `fewer_assertions`,
//! `skip_marker_added`) stand in for running: where the judge (the judge (`loki_checks::judge`)) ran the owning
//! suite and it named every test on both sides, it drops them and judges the same facts by running
//! (a test moved or split is not a deletion, a skip that does not apply here is not a skip).
//!
//! - `test_file_removed`: a test file at base is gone. Test files: Rust `tests/**.rs` and any `.rs`
//!   with `#[cfg(test)]`/`#[test]`; Python `test_*.py`, `*_test.py`, `conftest.py`, files under
//!   `tests/` or `test/`; JS/TS `*.test.*`, `*.spec.*`, `__tests__/`, `test/`, node's `test-*.js`
//!   style names; Go `*_test.go`.
//! - `fewer_tests` / `fewer_assertions`: per modified test file, declarations (`#[test]`,
//!   `def test_`, `it(`/`test(`, `func Test`/`t.Run(`) and assertions (`assert*!`, `assert`,
//!   `self.assert*`, `pytest.raises`, `expect(`, `assert.`, `t.Error*`/`t.Fatal*`, `require.`) are
//!   counted in the base and head code with comments and strings removed; fewer is a finding.
//!   In a Rust library file only the items under test attributes are counted.
//! - `skip_marker_added`: more `#[ignore]`, `pytest.mark.skip*`/`pytest.skip(`/
//!   `unittest.skip*`, `.skip(`/`.only(`/`.todo(`/`xit(`/`xdescribe(`, `t.Skip*` than at base, or
//!   more tests whose first statement is `return`. (`xfail` is `failure_expected`.)
//! - `test_config_changed` (`config`, with its per-format modules `pytestcfg`,
//!   `jsconfig`, `cargocfg`): test configuration judged by meaning, key by key, with the key's line —
//!   pytest `addopts` that deselect, ignore, filter or change outcomes, `testpaths`/`python_*`
//!   collecting less, `pythonpath` gaining an entry (tox.ini, setup.cfg, pyproject too); jest and
//!   vitest selection, `passWithNoTests`, custom reporters and runners, module aliases and
//!   `define`; `package.json` test scripts that run less or cannot fail; `.npmrc`
//!   `node-options`; `.cargo/config` aliases, rustflags `--cfg`, runners, `[patch]`; `Cargo.toml`
//!   `harness`/`test`/`doctest = false`; nextest filters; go.mod `replace`/`go`/`toolchain`,
//!   `go.work`. Marker registration, new fixtures, dependency bumps are not findings.
//! - `ci_deleted` / `ci_weakened` (`ci`, with `shell`, `testcmd` and its `runs`): GitHub
//!   Actions and GitLab CI parsed as YAML, test steps found by their commands, and each compared
//!   with the base: a test step or job removed, disabled (`if:` constant false, `when: never`,
//!   triggers lost), made unable to fail (`continue-on-error`, `allow_failure`, the shell script
//!   simulated under its real shell options: `|| true`, `set +e`, an unchecked pipe), narrowed
//!   (filters and target selections added, the matrix shrunk).
//! - `outcome_rewrite`: a Python file (conftest.py or a plugin) that adds or edits a pytest hook
//!   able to rewrite outcomes or collection (`pytest_runtest_makereport`,
//!   `pytest_report_teststatus`, `pytest_runtest_logreport`, `pytest_runtest_protocol`,
//!   `pytest_runtest_call`, `pytest_ignore_collect`, `pytest_pycollect_makeitem`,
//!   `pytest_deselected`, `pytest_collection`, `pytest_make_collect_report`), a
//!   `pytest_collection_modifyitems` that removes, deselects or skips items, a
//!   `pytest_collect_file` that builds no collector, new `collect_ignore`/`collect_ignore_glob`
//!   entries in conftest.py, or newly uses `_pytest`/`TestReport` (`outcome` in `rules`).
//! - `mock_of_module_under_test`: a test or setup file newly mocks (`jest.mock`, `vi.mock`,
//!   `patch("a.b")`, `monkeypatch.setattr("a.b", ..)`) a module this change also edits.
//!
//! The structural rules read syntax trees (tree-sitter) and report only what the change adds;
//! each finding names its line and quotes the code. Roles (test code, tooling, library code) and
//! the test regions inside library files are specified in `rules`, one module per rule:
//! - `eq_override` (`equality`): equality that no longer compares, in library code: Python
//!   comparison dunders in any spelling (`def`, lambda, assignment, `setattr`) returning one
//!   constant or ignoring `other`, `field(compare=False)`/`attr.ib(eq=False)`; Rust `PartialEq`/
//!   `PartialOrd`/`Ord` impls likewise, `derivative`/`educe` ignores, a derive replaced by an impl
//!   comparing fewer fields; Go `Equal` methods likewise, new `cmpopts.Ignore*`/always-true
//!   `cmp.Comparer` in existing Go files; JS `equals`/`isEqual`/`asymmetricMatch` likewise, and
//!   `expect.extend` redefining a built-in matcher or adding one that always passes.
//! - `failure_expected` (`failing`): `#[should_panic]` added to an existing test, new `xfail`/
//!   `expectedFailure`/`test.failing`/`it.fails` in existing test files, and assertions swallowed
//!   (`try`/`except AssertionError: pass`, `contextlib.suppress`, `pytest.raises(AssertionError)`,
//!   JS `try { expect } catch {}`, `catch_unwind` around asserts, Go `defer recover()`).
//! - `runner_detection` (`runner`): library code newly reading process context (environment,
//!   argv, module table, stack, thread name, runner globals) about a test runner or CI, Go
//!   `testing.Testing()`, Rust `cfg!(test)` and `cfg(not(test))`/test-twin items.
//! - `test_input_special_case` (`special`): an added library branch keyed on a distinctive
//!   literal that the tests use and the base file did not have, with the expected value in its
//!   body or a highly distinctive input.
//! - `run_takeover` (`takeover`): test-loaded code that decides how the run ends (`TestMain`
//!   without `m.Run()` or exiting 0, `os._exit`/`sys.exit`/`atexit`/`signal` in test code and
//!   conftest, `session.exitstatus`, `process.exit`/`process.on('exit')`, Rust `process::exit` in
//!   tests, `build.rs` emitting `rustc-cfg`/`rustc-env`, `.pth` imports), and import-time exits in
//!   library code.
//! - `shadow_module` (`shadow`): an added module that the tests would import instead of the
//!   real one (a Python module named like a project or standard-library module on a `sys.path`
//!   directory, a JS/TS file resolving from an existing module's specifier, a `__mocks__` file for
//!   an edited module, a Go vendored copy of the module itself or code under a `replace` target).
//! - `weakened_test` and the other dynamic kinds are produced by the judge (`loki_checks::judge`), which runs code,
//!   not by this scan.
//!
//! # Symlinks, `.gitignore`, CRLF, bytes
//! Judgement follows git's change list, not the file system: a symlinked test file is judged by the
//! blob git stores for it (its target path), so deleting it or replacing a test file by a symlink
//! is caught by path and counts; its target is judged under the target's own path. A tracked test
//! file listed in `.gitignore` is still tracked, so its changes and deletion are in the list (a
//! snapshot made with [`loki_git::Git::snapshot_worktree`] stages tracked files whatever
//! `.gitignore` says). Bytes are read as lossy UTF-8 with CRLF folded to LF; nothing here panics
//! on any input, and files over [`MAX_SCAN_BYTES`] are judged by path only.

mod ci;
mod config;
mod rules;
mod shell;
mod testcmd;
#[cfg(test)]
mod tests;

use std::collections::{BTreeSet, HashMap};

use loki_git::{Entry, Git, RawChange};

pub use loki_protocol::{Finding, FindingKind};
use loki_syntax::lex::{Lang, Lexed, lex, normalize};
use loki_syntax::testcode;
pub use loki_syntax::{FileChange, MAX_SCAN_BYTES, ScanInput};

/// What [`scan_input`] and [`scan_changes`] could not read from git ([`scan`] itself cannot fail).
#[derive(Debug, thiserror::Error)]
pub enum IntegrityError {
    #[error("cannot {action} for the integrity scan or baseline: {source}")]
    Git {
        action: &'static str,
        #[source]
        source: loki_git::GitError,
    },
}

impl loki_core::exit::Classify for IntegrityError {
    /// git failing to read a revision loki already resolved is loki's failure, not the user's.
    fn exit_class(&self) -> loki_core::exit::ExitClass {
        match self {
            IntegrityError::Git { .. } => loki_core::exit::ExitClass::Failure,
        }
    }
}

/// Whether the scan needs an unchanged file's head bytes as context.
#[must_use]
pub fn is_context_file(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    is_setup_source(path) || name == "go.mod"
}

/// Whether a file can name setup files (jest/vitest configs, `package.json`).
fn is_setup_source(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    name == "package.json"
        || (name.starts_with("jest.config.") || name.starts_with("vitest.config."))
}

/// The 1-based line of the first line of `text` that contains `needle`.
fn line_of(text: &str, needle: &str) -> Option<u32> {
    text.lines()
        .position(|l| l.contains(needle))
        .and_then(|i| u32::try_from(i + 1).ok())
}

/// Whether `path` is a test file by naming convention (what the judge (`loki_checks::judge`) moves between trees).
#[must_use]
pub fn is_test_path(path: &str) -> bool {
    testcode::is_test_path(path)
}

/// Whether `path` with content `bytes` is a test file: by name, or a Rust file with test attributes.
#[must_use]
pub fn is_test_file(path: &str, bytes: &[u8]) -> bool {
    let lexed = Lang::of_source(path).map(|l| lex(&normalize(bytes), l));
    testcode::is_test_file(path, lexed.as_ref())
}

/// One side of a change, lexed when it is a source file of a known language and not too big.
struct Side {
    lexed: Option<Lexed>,
}

impl Side {
    fn new(path: &str, bytes: Option<&[u8]>) -> Option<Side> {
        let bytes = bytes?;
        let lexed = Lang::of_source(path)
            .filter(|_| bytes.len() <= MAX_SCAN_BYTES)
            .map(|l| lex(&normalize(bytes), l));
        Some(Side { lexed })
    }

    fn code(&self) -> &str {
        self.lexed.as_ref().map_or("", |l| l.code.as_str())
    }
}

/// Runs every rule over `input`. Pure; the result is sorted and has no duplicates.
#[must_use]
pub fn scan(input: &ScanInput) -> Vec<Finding> {
    let mut setup_files = BTreeSet::new();
    let configs = input
        .changes
        .iter()
        .flat_map(|c| [c.base.as_deref(), c.head.as_deref()].map(|b| (c.path.as_str(), b)))
        .chain(
            input
                .context
                .iter()
                .map(|(p, b)| (p.as_str(), Some(b.as_slice()))),
        );
    for (path, bytes) in configs {
        if let Some(b) = bytes.filter(|_| is_setup_source(path)) {
            setup_files.extend(config::referenced_setup_files(path, b));
        }
    }
    let sides: Vec<(Option<Side>, Option<Side>)> = input
        .changes
        .iter()
        .map(|c| {
            (
                Side::new(&c.path, c.base.as_deref()),
                Side::new(&c.path, c.head.as_deref()),
            )
        })
        .collect();
    let is_test = |c: &FileChange, s: &Option<Side>| {
        input.runner_test_file(&c.path)
            || s.as_ref()
                .is_some_and(|s| testcode::is_test_file(&c.path, s.lexed.as_ref()))
    };
    let changed_sources: Vec<&str> = input
        .changes
        .iter()
        .zip(&sides)
        .filter(|(c, (b, h))| {
            h.as_ref().is_some_and(|s| s.lexed.is_some()) && !is_test(c, b) && !is_test(c, h)
        })
        .map(|(c, _)| c.path.as_str())
        .collect();

    let mut out = Vec::new();
    for (c, (base, head)) in input.changes.iter().zip(&sides) {
        let path = c.path.as_str();
        if config::is_ci(path) {
            ci_rules(c, &mut out);
        }
        config_rules(c, &setup_files, &mut out);
        let Some(lang) = Lang::of_source(path) else {
            continue;
        };
        let (base_test, head_test) = (is_test(c, base), is_test(c, head));
        match (base, head) {
            (Some(_), None) if base_test => out.push(Finding::new(
                FindingKind::TestFileRemoved,
                path,
                "test file deleted",
            )),
            (Some(b), Some(h)) if base_test => count_rules(path, lang, b, h, &mut out),
            _ => {}
        }
        let Some(h) = head else { continue };
        if lang == Lang::Python {
            let base_code = base.as_ref().map(Side::code);
            let text = c.head.as_deref().map(normalize).unwrap_or_default();
            for r in rules::pytest_outcome_rewrites(base_code, h.code()) {
                let f = Finding::new(FindingKind::OutcomeRewrite, path, r.detail);
                out.push(match line_of(&text, &r.needle) {
                    Some(n) => f.at_line(n),
                    None => f,
                });
            }
        }
        if head_test || setup_files.contains(path) {
            mock_rules(path, lang, base.as_ref(), h, &changed_sources, &mut out);
        }
    }
    out.extend(rules::rules(input, &setup_files));
    out.sort();
    out.dedup();
    out
}

fn ci_rules(c: &FileChange, out: &mut Vec<Finding>) {
    out.extend(ci::ci_weakenings(
        &c.path,
        c.base.as_deref(),
        c.head.as_deref(),
    ));
}

/// Test configuration by meaning ([`config`]); a YAML file that holds GitLab jobs (one that
/// `.gitlab-ci.yml` includes) is judged as CI. Setup files named by a jest/vitest config are test
/// code, judged by the content rules, so `_setup_files` only feeds those.
fn config_rules(c: &FileChange, _setup_files: &BTreeSet<String>, out: &mut Vec<Finding>) {
    if c.base == c.head {
        return;
    }
    let (base, head) = (c.base.as_deref(), c.head.as_deref());
    if !config::is_ci(&c.path) && ci::is_gitlab_include(&c.path, base, head) {
        ci_rules(c, out);
    }
    out.extend(config::config_findings(&c.path, base, head));
}

fn count_rules(path: &str, lang: Lang, base: &Side, head: &Side, out: &mut Vec<Finding>) {
    if base.lexed.is_none() || head.lexed.is_none() {
        return;
    }
    let b = testcode::counts(lang, &testcode::test_code(path, lang, base.code()));
    let h = testcode::counts(lang, &testcode::test_code(path, lang, head.code()));
    if h.tests < b.tests {
        out.push(Finding::new(
            FindingKind::FewerTests,
            path,
            format!("{} test declarations at base, {} now", b.tests, h.tests),
        ));
    }
    if h.asserts < b.asserts {
        out.push(Finding::new(
            FindingKind::FewerAssertions,
            path,
            format!("{} assertions at base, {} now", b.asserts, h.asserts),
        ));
    }
    let added: Vec<String> = h
        .skips
        .iter()
        .filter_map(|(m, &n)| {
            let was = b.skips.get(m).copied().unwrap_or(0);
            (n > was).then(|| format!("{} (+{})", m.trim_end_matches('('), n - was))
        })
        .collect();
    if !added.is_empty() {
        out.push(Finding::new(
            FindingKind::SkipMarkerAdded,
            path,
            format!("added skip markers: {}", added.join(", ")),
        ));
    }
    if h.early_returns > b.early_returns {
        out.push(Finding::new(
            FindingKind::SkipMarkerAdded,
            path,
            format!(
                "{} more test(s) now return before their first check",
                h.early_returns - b.early_returns
            ),
        ));
    }
}

fn mock_rules(
    path: &str,
    lang: Lang,
    base: Option<&Side>,
    head: &Side,
    changed_sources: &[&str],
    out: &mut Vec<Finding>,
) {
    let Some(h) = head.lexed.as_ref() else { return };
    let before = base
        .and_then(|b| b.lexed.as_ref())
        .map(|b| rules::mocked_modules(lang, b))
        .unwrap_or_default();
    for spec in rules::mocked_modules(lang, h).difference(&before) {
        for src in changed_sources {
            if rules::mock_targets(lang, path, spec, src) {
                out.push(Finding::new(
                    FindingKind::MockOfModuleUnderTest,
                    path,
                    format!("mocks {spec:?}, which this change also edits ({src})"),
                ));
            }
        }
    }
}

/// Builds the [`ScanInput`] for the change from commit `base` to tree (or commit) `head`.
pub fn scan_input(git: &Git, base: &str, head: &str) -> Result<ScanInput, IntegrityError> {
    let fail = |action| move |source| IntegrityError::Git { action, source };
    let changes = git
        .raw_changes(base, head)
        .map_err(fail("list the changed files"))?;
    let tree = git.ls_tree(head).map_err(fail("list the head tree"))?;
    scan_input_from(git, head, &changes, tree, &BTreeSet::new())
}

/// [`scan_input`] from what the caller already read: the change list between the base and
/// `head` (`diff-tree --raw --no-renames`, every change, nothing filtered) and every path of
/// `head`'s tree. Every changed file's two sides are read in one `cat-file --batch` (or from
/// `git`'s cache, when the caller prefetched them), the head's context files in one more.
pub fn scan_input_from(
    git: &Git,
    head: &str,
    changes: &[RawChange],
    tree: Vec<String>,
    test_files: &BTreeSet<String>,
) -> Result<ScanInput, IntegrityError> {
    let fail = |action| move |source| IntegrityError::Git { action, source };
    let oids: Vec<&str> = changes
        .iter()
        .flat_map(|c| [file(c.base.as_ref()), file(c.head.as_ref())])
        .flatten()
        .collect();
    let blobs: HashMap<&str, Option<Vec<u8>>> = oids
        .iter()
        .copied()
        .zip(
            git.read_blobs(&oids)
                .map_err(fail("read the changed files"))?,
        )
        .collect();
    let bytes = |e: Option<&Entry>| file(e).and_then(|oid| blobs.get(oid).cloned().flatten());
    let mut input = ScanInput::default();
    let mut changed = BTreeSet::new();
    for c in changes {
        changed.insert(c.path.clone());
        input.changes.push(FileChange {
            path: c.path.clone(),
            base: bytes(c.base.as_ref()),
            head: bytes(c.head.as_ref()),
        });
    }
    input.test_files = test_files.clone();
    let context = context_paths(&tree, &changed);
    let tests = test_context_paths(&tree, &input.changes, test_files);
    let requests: Vec<String> = context
        .iter()
        .map(|p| p.as_str())
        .chain(tests.iter().map(String::as_str))
        .map(|p| format!("{head}:{p}"))
        .collect();
    let names: Vec<&str> = requests.iter().map(String::as_str).collect();
    let mut read = git
        .read_blobs(&names)
        .map_err(fail("read the test configuration and unchanged test files"))?
        .into_iter();
    for path in &context {
        if let Some(Some(b)) = read.next() {
            input.context.push(((*path).clone(), b));
        }
    }
    for path in tests {
        if let Some(Some(b)) = read.next() {
            input.test_context.push((path, b));
        }
    }
    input.tree_paths = tree;
    Ok(input)
}

/// Every object [`scan_input_from`] reads for this change: both sides of every changed file (by
/// object id) and the `<head>:<path>` of each unchanged context file (test configuration,
/// `package.json`, `go.mod`: see [`ScanInput`]), so that a caller can read them all in one
/// batch ([`Git::prefetch`]) shared with its own readers.
#[must_use]
pub fn scan_requests(head: &str, changes: &[RawChange], tree: &[String]) -> Vec<String> {
    let changed: BTreeSet<String> = changes.iter().map(|c| c.path.clone()).collect();
    let sides = changes
        .iter()
        .flat_map(|c| [file(c.base.as_ref()), file(c.head.as_ref())])
        .flatten()
        .map(str::to_owned);
    let context = context_paths(tree, &changed)
        .into_iter()
        .map(|p| format!("{head}:{p}"));
    sides.chain(context).collect()
}

/// The head's context files that the change did not touch.
fn context_paths<'a>(tree: &'a [String], changed: &BTreeSet<String>) -> Vec<&'a String> {
    tree.iter()
        .filter(|p| is_context_file(p) && !changed.contains(*p))
        .collect()
}

/// The object id of a side with bytes: a submodule's entry is a commit of another repository,
/// with no bytes here (as `cat-file blob` of its path said before batches).
fn file(e: Option<&Entry>) -> Option<&str> {
    e.filter(|e| e.mode != "160000").map(|e| e.oid.as_str())
}

/// At most this many unchanged test files are read for `test_context` (in one batch, but each
/// is bytes held and lexed).
const MAX_TEST_CONTEXT_FILES: usize = 100;

/// The unchanged test files whose literals the special-case rule needs: none unless an added
/// line of library source compares with a new distinctive literal, else test files by path,
/// those named after a changed source file first (`calc.py` → `test_calc.py`), at most
/// [`MAX_TEST_CONTEXT_FILES`].
fn test_context_paths(
    tree: &[String],
    changes: &[FileChange],
    test_files: &BTreeSet<String>,
) -> Vec<String> {
    if !rules::wants_test_literals(changes) {
        return Vec::new();
    }
    let stems: Vec<&str> = changes
        .iter()
        .filter(|c| {
            c.head.is_some() && Lang::of_source(&c.path).is_some() && !is_test_path(&c.path)
        })
        .filter_map(|c| {
            let name = c.path.rsplit('/').next()?;
            name.split('.').next().filter(|s| s.len() >= 2)
        })
        .collect();
    if stems.is_empty() {
        return Vec::new();
    }
    let changed: BTreeSet<&str> = changes.iter().map(|c| c.path.as_str()).collect();
    let mut candidates: Vec<&String> = tree
        .iter()
        .filter(|p| (is_test_path(p) || test_files.contains(*p)) && !changed.contains(p.as_str()))
        .collect();
    // Stable: related files first, then tree order.
    candidates.sort_by_key(|p| {
        let name = p.rsplit('/').next().unwrap_or(p);
        !stems.iter().any(|s| name.contains(s))
    });
    candidates
        .into_iter()
        .take(MAX_TEST_CONTEXT_FILES)
        .cloned()
        .collect()
}

/// The integrity scan of the change from commit `base` to `head_tree` (a tree id from
/// [`Git::snapshot_worktree`], or any commit): [`scan_input`] then [`scan`].
pub fn scan_changes(
    git: &Git,
    base: &str,
    head_tree: &str,
) -> Result<Vec<Finding>, IntegrityError> {
    Ok(scan(&scan_input(git, base, head_tree)?))
}
