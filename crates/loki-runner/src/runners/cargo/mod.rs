//! Rust: `cargo test` ([`Cargo`]) and `cargo nextest run` ([`nextest::Nextest`]).
//!
//! - Detection: the topmost directory with a `Cargo.toml` in each subtree (a workspace root covers
//!   its members; `--workspace` runs them all). `cargo test` unless the project opts into nextest
//!   (a `.config/nextest.toml`, or `cargo nextest` in its CI workflows, Makefile or justfile) and
//!   nextest is installed ([`Tools::nextest`]): nextest runs each test in its own process, which
//!   can expose races `cargo test` never shows, so it is used only where the project's own verdict
//!   comes from it. Always `--no-fail-fast`.
//! - The command: `cargo test` gets [`CARGO_MESSAGE_FORMAT`] (test ids carry their package, see
//!   [`report`]); nextest writes JUnit ([`nextest`]), and its doctests run through `cargo test
//!   --doc`. A test target that does not compile makes the rest run without it ([`keep_going`]).
//!   [`build_companion`] builds what a check runs and runs nothing (the judge's guarded builds).
//! - Status: rustup without a toolchain, a temporary directory that cannot be written, no linker:
//!   the machine's failure ([`Environment`]), only when no real test failed.
//! - Narrowing: `-p <package>` per file and `--test <name>` when every file is an integration
//!   test; ids add `-p`, and under `cargo test` `--tests` (`--doc` for doctests only) and
//!   `-- --exact <path>…`. nextest narrows to packages only.
//! - Locating: the first `fn <name>(` or `fn <name><` among the check's Rust files, tests first.
//! - Isolation: a build directory per role ([`isolate`]).

pub mod isolate;
pub mod keep_going;
pub mod nextest;
pub mod report;

use std::collections::BTreeSet;
use std::path::Path;

use crate::detect::{Check, Scan, Tools, make, outermost, place, read_small, words};
use crate::exec::Environment;
use crate::exec::plan::insert_before_separator;
use crate::isolate::Isolation;
use crate::locate::{Listing, Locator, in_check};
use crate::reports::ParsedRun;
use crate::reports::report::TestReport;
use crate::runners::Runner;
use crate::select::Selection;
use crate::wall::{WallRefusal, WallTest};
use loki_protocol::CheckKind;

/// cargo's output format that adds JSON artifact messages (package of each test binary) to stdout
/// while diagnostics stay human-readable on stderr.
pub(crate) const CARGO_MESSAGE_FORMAT: &str = "--message-format=json-render-diagnostics";

/// The file that makes a directory a cargo package or workspace.
pub(crate) const CARGO_MANIFEST: &str = "Cargo.toml";

/// `cargo test`.
#[derive(Debug)]
pub(crate) struct Cargo;

impl Runner for Cargo {
    fn markers(&self) -> &'static [&'static str] {
        &[CARGO_MANIFEST]
    }

    fn detect(&self, root: &Path, scan: &Scan, tools: Tools, out: &mut Vec<Check>) {
        for rel in scan.dirs.keys() {
            if !scan.has(rel, CARGO_MANIFEST)
                || outermost(rel, |p| scan.has(p, CARGO_MANIFEST)).as_deref() != Some(rel)
            {
                continue;
            }
            let opted = opts_into_nextest(root, &root.join(rel));
            let (kind, cmd, how) = match (opted, tools.nextest) {
                (true, true) => (
                    CheckKind::Nextest,
                    words(&["cargo", "nextest", "run", "--workspace", "--no-fail-fast"]),
                    "the project uses cargo-nextest, so nextest runs it (per-test results from its JUnit report; doctests through `cargo test --doc`)",
                ),
                (true, false) => (
                    CheckKind::Cargo,
                    words(&["cargo", "test", "--workspace", "--no-fail-fast"]),
                    "the project uses cargo-nextest, which is not installed here, so `cargo test` runs the same tests (per-test results from its output)",
                ),
                (false, _) => (
                    CheckKind::Cargo,
                    words(&["cargo", "test", "--workspace", "--no-fail-fast"]),
                    "`cargo test` runs it, as the project does (per-test results from its output)",
                ),
            };
            out.push(make(
                root,
                rel,
                kind,
                cmd,
                format!("Cargo.toml in {}; {how}", place(rel)),
            ));
        }
    }

    fn command(&self, command: &[String]) -> Vec<String> {
        with_message_format(command)
    }

    fn keeps_going(&self) -> bool {
        true
    }

    fn build_companion(&self, check: &Check) -> Option<Vec<String>> {
        let words: Vec<&str> = check.command.iter().map(String::as_str).collect();
        let ["cargo", "test", args @ ..] = words.as_slice() else {
            return None;
        };
        build_companion(args, true)
    }

    fn parse_log(&self, log: &str) -> Option<TestReport> {
        report::parse_libtest(log)
    }

    fn parse_run(&self, _structured: &[String], log: &str) -> ParsedRun {
        match report::parse_libtest_run(log) {
            Some(run) => ParsedRun {
                anomalies: run.anomalies(),
                report: Some(run.report),
                reported_exit: None,
                started_with: None,
            },
            None => ParsedRun::default(),
        }
    }

    fn environment(&self, log: &str, report: Option<&TestReport>) -> Option<Environment> {
        toolchain_failure(log, report)
    }

    fn narrow(
        &self,
        check: &Check,
        root: &Path,
        files: Vec<String>,
        sel: &Selection,
    ) -> Option<Check> {
        narrow(check, root, &files, sel, true)
    }

    fn locate(&self, at: &mut Locator<'_>, check: &Check, id: &str) -> (String, Option<u32>) {
        locate(at, check, id)
    }

    fn isolation(&self) -> Isolation {
        Isolation::Cargo
    }

    fn own_name<'a>(&self, id: &'a str) -> &'a str {
        own_name(id)
    }

    fn group(&self, id: &str) -> String {
        group(id)
    }

    fn runs_as_test_file(&self, path: &str) -> bool {
        runs_as_test_file(path)
    }

    fn source_extensions(&self) -> &'static [&'static str] {
        &["rs"]
    }

    fn selects_mixed_files(&self) -> bool {
        true
    }

    fn wall_language(&self) -> Option<&'static str> {
        Some("Rust")
    }

    fn wall(&self, file: &WallTest<'_>) -> Option<Result<Check, WallRefusal>> {
        let stem = file.name.strip_suffix(".rs")?;
        Some(wall(file.path, stem, file.root))
    }
}

/// `pkg::binary::module::test` → `test`.
pub(crate) fn own_name(id: &str) -> &str {
    id.rsplit("::").next().unwrap_or(id)
}

/// The test binary: `pkg::binary` of `pkg::binary::module::test`.
pub(crate) fn group(id: &str) -> String {
    let parts: Vec<&str> = id.split("::").collect();
    match parts.len() {
        0 | 1 => id.to_owned(),
        2 => parts[0].to_owned(),
        _ => format!("{}::{}", parts[0], parts[1]),
    }
}

/// `tests/*.rs` are test targets; `tests/common/mod.rs` and other nested files are not.
pub(crate) fn runs_as_test_file(path: &str) -> bool {
    let parts: Vec<&str> = path.split('/').collect();
    !(parts.len() >= 2 && parts[parts.len() - 2] != "tests" && parts.contains(&"tests"))
}

/// A Rust wall test `<crate>/tests/<stem>.rs`: `cargo test --test <stem>` in its crate.
fn wall(path: &str, stem: &str, root: &Path) -> Result<Check, WallRefusal> {
    let (crate_dir, file_dir) = match path.rsplit_once('/') {
        Some((d, _)) => (d.strip_suffix("/tests").or((d == "tests").then_some("")), d),
        None => (None, ""),
    };
    let Some(crate_dir) = crate_dir else {
        return Err(WallRefusal::NotInTests(file_dir.to_owned()));
    };
    let dir = if crate_dir.is_empty() {
        ".".to_string()
    } else {
        crate_dir.to_string()
    };
    let cwd = root.join(crate_dir);
    if !cwd.join(CARGO_MANIFEST).is_file() {
        return Err(WallRefusal::NoManifest(dir));
    }
    Ok(Check {
        name: String::new(),
        kind: CheckKind::Cargo,
        dir,
        cwd,
        command: ["cargo", "test", "--test", stem, "--no-fail-fast"]
            .map(str::to_string)
            .to_vec(),
        script: None,
        why: "wall test: the integration test target of this file".into(),
    })
}

/// A cargo command with [`CARGO_MESSAGE_FORMAT`] among cargo's own flags.
pub(crate) fn with_message_format(command: &[String]) -> Vec<String> {
    insert_before_separator(command, &[CARGO_MESSAGE_FORMAT.to_owned()])
}

/// Whether the cargo project at `dir` (within `root`) opts into nextest: a nextest config, or
/// `cargo nextest` in the repository's CI workflows, Makefile or justfile.
fn opts_into_nextest(root: &Path, dir: &Path) -> bool {
    if dir.join(".config/nextest.toml").is_file() || root.join(".config/nextest.toml").is_file() {
        return true;
    }
    let mentions = |p: &Path| read_small(p).is_some_and(|t| t.contains("cargo nextest"));
    let mut files = vec![
        root.join("Makefile"),
        root.join("justfile"),
        root.join("Justfile"),
        dir.join("Makefile"),
        dir.join("justfile"),
        root.join(".gitlab-ci.yml"),
        root.join(".cargo/config.toml"),
    ];
    if let Ok(entries) = std::fs::read_dir(root.join(".github/workflows")) {
        files.extend(entries.flatten().map(|e| e.path()));
    }
    files.iter().any(|f| mentions(f))
}

/// The environment failure `log` shows for a cargo or nextest run whose report is `report`:
/// rustup found no toolchain (`rustup could not choose a version`, `no default toolchain
/// configured`, `toolchain '…' is not installed`); rustc or the linker could not create or write
/// temporary files (`couldn't create a temp dir`, `Cannot create temporary file`, or a `linking
/// with` failure that says `Permission denied`); no linker at all (`linker `cc` not found`). A
/// report that names a real failing test (not a target that did not compile) is the code's.
pub(crate) fn toolchain_failure(log: &str, report: Option<&TestReport>) -> Option<Environment> {
    if report.is_some_and(|r| {
        let ids = r.failing_ids();
        (r.failed > 0 && ids.is_empty()) || ids.iter().any(|id| !id.ends_with(report::NOT_COMPILED))
    }) {
        return None;
    }
    let says = |s: &str| log.contains(s);
    if says("rustup could not choose a version")
        || says("no default toolchain configured")
        || (says("error: toolchain '") && says("is not installed"))
    {
        return Some(Environment::new(
            "rustup",
            "found no Rust toolchain",
            "install one (`rustup default stable`), or run loki with RUSTUP_HOME and CARGO_HOME naming the ones that hold it",
        ));
    }
    if says("couldn't create a temp dir")
        || says("Cannot create temporary file")
        || (says("linking with `") && says("Permission denied"))
    {
        return Some(Environment::new(
            "the compiler or linker",
            "could not write its temporary files (permission denied)",
            "make the temporary directory (TMPDIR, else /tmp) writable, or point TMPDIR at one that is",
        ));
    }
    if says("linker `cc` not found") || says("linker `ld` not found") {
        return Some(Environment::new(
            "the linker (cc)",
            "was not found",
            "install a C toolchain (build-essential, or your system's gcc/clang package)",
        ));
    }
    None
}

/// The `cargo test --no-run` that builds what a check whose command's arguments (after `cargo
/// test` or `cargo nextest run`) are `args` runs; `cargo_test`: the command is `cargo test`
/// (whose `--profile` is cargo's; nextest's is its own, and cargo's is `--cargo-profile`).
/// `None` when it runs doctests only (which build at run time). Nextest's own options are left
/// out; a selection this gets wrong only builds something else, and the check's run then builds
/// what it needs.
pub(crate) fn build_companion(args: &[&str], cargo_test: bool) -> Option<Vec<String>> {
    let mut out = vec!["cargo".to_owned(), "test".to_owned(), "--no-run".to_owned()];
    let mut it = args.iter();
    while let Some(&a) = it.next() {
        match a {
            "--" => break,
            "--doc" => return None,
            "--workspace"
            | "--all"
            | "--all-features"
            | "--no-default-features"
            | "--lib"
            | "--bins"
            | "--tests"
            | "--examples"
            | "--benches"
            | "--all-targets"
            | "--release"
            | "--frozen"
            | "--locked"
            | "--offline" => out.push(a.to_owned()),
            "-p" | "--package" | "--exclude" | "--features" | "-F" | "--manifest-path"
            | "--bin" | "--test" | "--example" | "--bench" | "--target" => {
                out.push(a.to_owned());
                out.push((*it.next()?).to_owned());
            }
            // `cargo test`'s profile; nextest names it `--cargo-profile` (its `--profile` is
            // its own).
            "--profile" if cargo_test => {
                out.push(a.to_owned());
                out.push((*it.next()?).to_owned());
            }
            "--cargo-profile" => {
                out.push("--profile".to_owned());
                out.push((*it.next()?).to_owned());
            }
            // Nextest's options that take a value: the value is not a test filter.
            "-E"
            | "--filterset"
            | "--filter-expr"
            | "--profile"
            | "-P"
            | "-j"
            | "--test-threads"
            | "--retries"
            | "--partition"
            | "--run-ignored"
            | "--max-fail"
            | "--status-level"
            | "--final-status-level"
            | "--failure-output"
            | "--success-output"
            | "--message-format"
            | "--no-tests"
            | "--tool-config-file"
            | "--config-file" => {
                it.next();
            }
            other => {
                let valued = [
                    "--package=",
                    "--features=",
                    "--exclude=",
                    "--manifest-path=",
                    "--bin=",
                    "--test=",
                    "--example=",
                    "--bench=",
                    "--target=",
                ];
                if valued.iter().any(|v| other.starts_with(v))
                    || (cargo_test && other.starts_with("--profile="))
                {
                    out.push(other.to_owned());
                }
            }
        }
    }
    Some(out)
}

/// A cargo or nextest check narrowed (see the module doc); `exact_ids`: the runner takes
/// libtest's `--exact` filters (`cargo test`; nextest runs the packages whole).
pub(crate) fn narrow(
    check: &Check,
    root: &Path,
    files: &[String],
    sel: &Selection,
    exact_ids: bool,
) -> Option<Check> {
    let pkg_root = root.join(&check.dir);
    let mut packages = BTreeSet::new();
    let mut test_targets = BTreeSet::new();
    let mut all_integration = sel.tests.is_empty();
    for f in files {
        let (pkg, target) = cargo_target(&pkg_root, f)?;
        packages.insert(pkg);
        match target {
            Some(t) => {
                test_targets.insert(t);
            }
            None => all_integration = false,
        }
    }
    let mut exact = Vec::new();
    let mut doctests = 0;
    for id in &sel.tests {
        let mut parts = id.splitn(3, "::");
        let (pkg, binary, path) = (parts.next()?, parts.next()?, parts.next()?);
        packages.insert(pkg.to_owned());
        exact.push(path.to_owned());
        doctests += usize::from(binary == "doctests");
    }
    let head: Vec<String> = check
        .command
        .iter()
        .take_while(|a| *a != "--")
        .filter(|a| *a != "--workspace" && *a != "--all")
        .cloned()
        .collect();
    let own_targets = head.iter().any(|a| names_cargo_targets(a));
    let mut cmd = head;
    for p in &packages {
        cmd.push("-p".into());
        cmd.push(p.clone());
    }
    if all_integration {
        for t in &test_targets {
            cmd.push("--test".into());
            cmd.push(t.clone());
        }
    } else if exact_ids && !exact.is_empty() && !own_targets {
        if doctests == 0 {
            cmd.push("--tests".into());
        } else if doctests == exact.len() {
            cmd.push("--doc".into());
        }
    }
    if exact_ids && !exact.is_empty() {
        cmd.push("--".into());
        cmd.push("--exact".into());
        cmd.extend(exact);
    }
    let mut out = check.clone();
    out.command = cmd;
    Some(out)
}

/// Whether a `cargo test` argument picks targets (then cargo runs doctests only if it is `--doc`).
fn names_cargo_targets(arg: &str) -> bool {
    let name = arg.split_once('=').map_or(arg, |(n, _)| n);
    matches!(
        name,
        "--lib"
            | "--bin"
            | "--bins"
            | "--test"
            | "--tests"
            | "--example"
            | "--examples"
            | "--bench"
            | "--benches"
            | "--all-targets"
            | "--doc"
    )
}

/// The package owning `file` (relative to the cargo root `root`) and, when the file is an
/// integration test target of it (`tests/x.rs`, `tests/x/main.rs`), that target's name.
fn cargo_target(root: &Path, file: &str) -> Option<(String, Option<String>)> {
    let mut dir = Path::new(file).parent();
    while let Some(d) = dir {
        let manifest = root.join(d).join("Cargo.toml");
        if let Some(name) = package_name(&manifest) {
            let inner = Path::new(file).strip_prefix(d).ok()?;
            let parts: Vec<&str> = inner
                .components()
                .filter_map(|c| c.as_os_str().to_str())
                .collect();
            let target = match parts.as_slice() {
                ["tests", f] => f.strip_suffix(".rs").map(str::to_owned),
                ["tests", t, "main.rs"] => Some((*t).to_owned()),
                _ => None,
            };
            return Some((name, target));
        }
        if d.as_os_str().is_empty() {
            break;
        }
        dir = d.parent();
    }
    None
}

/// `[package] name` of a manifest, if it has a package.
fn package_name(manifest: &Path) -> Option<String> {
    let text = std::fs::read_to_string(manifest).ok()?;
    let value: toml::Value = toml::from_str(&text).ok()?;
    value
        .get("package")?
        .get("name")?
        .as_str()
        .map(str::to_owned)
}

/// Where test `id` of a cargo or nextest check is defined (see the module doc).
pub(crate) fn locate(at: &mut Locator<'_>, check: &Check, id: &str) -> (String, Option<u32>) {
    let name = id.rsplit("::").next().unwrap_or(id);
    let name = name.split(' ').next().unwrap_or(name);
    let files = at.files_of(&check.dir, Listing::Rust);
    let (call, generic) = (format!("fn {name}("), format!("fn {name}<"));
    for path in files {
        if let Some(line) = at.line_of(&path, |l| l.contains(&call) || l.contains(&generic)) {
            return (path, Some(line));
        }
    }
    (in_check(check, ""), None)
}
