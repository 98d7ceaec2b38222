//! Which linter runs over which changed files, where, and why; and which files no linter covers.
//!
//! Only changed files that are regular files at head take part (symlinks and missing files are
//! left out). Files are grouped by the package that owns them: the nearest directory (up to the
//! root) with the language's marker file, else the root. Per language, the first available rung:
//! - **Python** (`.py`, `.pyi`; markers `pyproject.toml`, `setup.cfg`, `setup.py`): ruff from the
//!   package's or the root's `.venv/bin`/`venv/bin`, then PATH; else `pyflakes` when the
//!   interpreter imports it; else loki's syntax check (`compile()` of each file, no bytecode
//!   written). The interpreter is the package's, then the root's virtualenv, then `python3`.
//! - **JavaScript/TypeScript** (`.js .mjs .cjs .jsx` / `.ts .tsx .mts .cts`; marker
//!   `package.json`): ESLint from `node_modules/.bin` (package dir, then ancestors) when an ESLint
//!   configuration exists; else `node --check` per file for `.js .mjs .cjs`; else for TypeScript
//!   `tsc --noEmit` on the nearest `tsconfig.json`'s project when `tsc` is installed; else not
//!   covered, with what to add.
//! - **Go** (marker `go.mod`; `testdata/` and `vendor/` left out as the go tool does): `gofmt -l`
//!   on the files and `go vet` on their packages (module only).
//! - **Rust** (marker `Cargo.toml`): `cargo clippy` in the package when `cargo clippy --version`
//!   works; else `rustfmt --check`; else not covered.
//! - Anything else (docs, configuration) is ignored without a word.
//!
//! Tools are looked up on the `PATH` of the environment the runs will get, so an environment
//! without a tool plans the fallback, exactly as the run would see it.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsString;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use loki_process::{self as process, Spec, shell_quote};
use serde::Serialize;

use super::ChangedFile;

/// How long a tool probe (`cargo clippy --version`, `python -c "import pyflakes"`) may take.
const PROBE_TIMEOUT: Duration = Duration::from_secs(30);
/// Largest configuration file read (`package.json`, `Cargo.toml`).
const MAX_CONFIG_BYTES: u64 = 1024 * 1024;
/// Python's syntax check when no linter is installed: `compile()` reads each file without writing
/// bytecode (unlike `python -m py_compile`, which writes `__pycache__` into the worktree) and goes
/// on past the first broken file. It prints `path:line:col: Kind: message`.
pub const PY_SYNTAX_SCRIPT: &str = "import sys\nrc = 0\nfor p in sys.argv[1:]:\n    try:\n        with open(p, 'rb') as f:\n            compile(f.read(), p, 'exec', dont_inherit=True)\n    except SyntaxError as e:\n        rc = 1\n        print(f'{p}:{e.lineno or 1}:{e.offset or 1}: {type(e).__name__}: {e.msg}')\n    except ValueError as e:\n        rc = 1\n        print(f'{p}:1:1: ValueError: {e}')\nsys.exit(rc)\n";
const ESLINT_CONFIGS: &[&str] = &[
    "eslint.config.js",
    "eslint.config.mjs",
    "eslint.config.cjs",
    "eslint.config.ts",
    "eslint.config.mts",
    "eslint.config.cts",
    ".eslintrc",
    ".eslintrc.js",
    ".eslintrc.cjs",
    ".eslintrc.yaml",
    ".eslintrc.yml",
    ".eslintrc.json",
];

/// A linter loki knows how to run and read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Linter {
    Ruff,
    Pyflakes,
    PyCompile,
    Eslint,
    NodeCheck,
    Tsc,
    Gofmt,
    GoVet,
    Clippy,
    Rustfmt,
}

impl Linter {
    /// The word in run names (`lint:<word>`) and logs.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Linter::Ruff => "ruff",
            Linter::Pyflakes => "pyflakes",
            Linter::PyCompile => "py_compile",
            Linter::Eslint => "eslint",
            Linter::NodeCheck => "node-check",
            Linter::Tsc => "tsc",
            Linter::Gofmt => "gofmt",
            Linter::GoVet => "go-vet",
            Linter::Clippy => "clippy",
            Linter::Rustfmt => "rustfmt",
        }
    }

    /// Compilers: a non-zero exit with no finding loki can read is a failed build (`fail`), not
    /// a linter that could not run (`not_run`).
    #[must_use]
    pub fn is_compiler(self) -> bool {
        match self {
            Linter::Clippy | Linter::GoVet | Linter::Tsc => true,
            Linter::Ruff
            | Linter::Pyflakes
            | Linter::PyCompile
            | Linter::Eslint
            | Linter::NodeCheck
            | Linter::Gofmt
            | Linter::Rustfmt => false,
        }
    }

    /// Checks syntax only (the fallbacks): a pass says less than a linter's pass.
    #[must_use]
    pub fn syntax_only(self) -> bool {
        match self {
            Linter::PyCompile | Linter::NodeCheck => true,
            Linter::Ruff
            | Linter::Pyflakes
            | Linter::Eslint
            | Linter::Tsc
            | Linter::Gofmt
            | Linter::GoVet
            | Linter::Clippy
            | Linter::Rustfmt => false,
        }
    }
}

/// How the changed files reach the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FileArgs {
    /// The command names what to check itself (packages, a project).
    None,
    /// All files appended, relative to `cwd`.
    All,
    /// One process per file.
    PerFile,
}

/// One linter run over some changed files.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LintGroup {
    /// `lint:<linter>` at the root, `lint:<linter>:<dir>` below it.
    pub name: String,
    pub linter: Linter,
    /// The package directory, repository-relative (`.` for the root).
    pub dir: String,
    pub cwd: PathBuf,
    /// The argv that runs (the program may be an absolute path).
    pub argv: Vec<String>,
    /// The program as the command line shows it (`ruff`, `.venv/bin/ruff`).
    pub shown_program: String,
    pub file_args: FileArgs,
    /// The changed files this run covers, repository-relative.
    pub files: Vec<String>,
    /// Repository-relative directory the tool's relative paths start from (cargo prints paths
    /// from the workspace root, the other tools from `cwd`).
    pub path_base: String,
    pub why: String,
}

impl LintGroup {
    /// `files` relative to `cwd`, as passed to the tool (`./` before a name that starts with `-`).
    #[must_use]
    pub fn file_args_rel(&self) -> Vec<String> {
        self.files
            .iter()
            .map(|f| {
                let rel = if self.dir == "." {
                    f.as_str()
                } else {
                    f.strip_prefix(&format!("{}/", self.dir)).unwrap_or(f)
                };
                if rel.starts_with('-') {
                    format!("./{rel}")
                } else {
                    rel.to_owned()
                }
            })
            .collect()
    }

    /// The command line as a user would type it (one file shown per process for per-file runs).
    #[must_use]
    pub fn command_line(&self) -> String {
        let mut words = vec![shell_quote(&self.shown_program)];
        for a in self.argv.iter().skip(1) {
            if self.linter == Linter::PyCompile && a == PY_SYNTAX_SCRIPT {
                words.push("-c '<compile() each file: syntax only>'".to_owned());
            } else {
                words.push(shell_quote(a));
            }
        }
        let files = self.file_args_rel();
        match self.file_args {
            FileArgs::None => {}
            FileArgs::All => words.extend(files.iter().map(|f| shell_quote(f))),
            FileArgs::PerFile => words.push("<file> (one process per file)".to_owned()),
        }
        words.join(" ")
    }
}

/// The runs to make and the files no linter covers (with why, and what to add).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct LintPlan {
    pub groups: Vec<LintGroup>,
    pub not_covered: Vec<String>,
}

/// Answers about the machine, asked lazily and cached (a Python change never probes cargo).
pub(crate) struct Probe<'a> {
    env: &'a [(OsString, OsString)],
    /// The confinement wrapper: a probe runs in the worktree, where the agent's files are.
    wrapper: &'a [OsString],
    path: Vec<PathBuf>,
    pyflakes: RefCell<BTreeMap<PathBuf, bool>>,
    clippy: RefCell<Option<bool>>,
}

impl<'a> Probe<'a> {
    pub(crate) fn new(env: &'a [(OsString, OsString)], wrapper: &'a [OsString]) -> Probe<'a> {
        let path = env
            .iter()
            .rev()
            .find(|(k, _)| k == "PATH")
            .map(|(_, v)| std::env::split_paths(v).collect())
            .unwrap_or_default();
        Probe {
            env,
            wrapper,
            path,
            pyflakes: RefCell::new(BTreeMap::new()),
            clippy: RefCell::new(None),
        }
    }

    /// An executable `name` on the environment's PATH.
    fn which(&self, name: &str) -> Option<PathBuf> {
        self.path
            .iter()
            .map(|d| d.join(name))
            .find(|p| executable(p))
    }

    fn succeeds(&self, program: &Path, args: &[&str], cwd: &Path) -> bool {
        let spec = Spec::new(program, cwd)
            .args(args)
            .envs(self.env.to_vec())
            .timeout(PROBE_TIMEOUT)
            .wrapped(self.wrapper);
        process::run(&spec).is_ok_and(|o| o.success())
    }

    fn has_pyflakes(&self, python: &Path, cwd: &Path) -> bool {
        if let Some(&known) = self.pyflakes.borrow().get(python) {
            return known;
        }
        let ok = self.succeeds(python, &["-c", "import pyflakes"], cwd);
        self.pyflakes.borrow_mut().insert(python.to_path_buf(), ok);
        ok
    }

    fn has_clippy(&self, cargo: &Path, cwd: &Path) -> bool {
        if let Some(known) = *self.clippy.borrow() {
            return known;
        }
        let ok = self.succeeds(cargo, &["clippy", "--version"], cwd);
        *self.clippy.borrow_mut() = Some(ok);
        ok
    }
}

fn executable(p: &Path) -> bool {
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

fn read_small(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    (meta.len() <= MAX_CONFIG_BYTES)
        .then(|| std::fs::read_to_string(path).ok())
        .flatten()
}

/// Repository-relative directory as a path below `root` (`.` is the root).
fn at(root: &Path, dir: &str) -> PathBuf {
    if dir == "." {
        root.to_path_buf()
    } else {
        root.join(dir)
    }
}

fn parent_dir(file: &str) -> String {
    match file.rsplit_once('/') {
        Some((d, _)) => d.to_owned(),
        None => ".".to_owned(),
    }
}

/// `dir` and its ancestors up to and including the root (`.`), innermost first.
fn ancestors(dir: &str) -> Vec<String> {
    let mut out = vec![dir.to_owned()];
    let mut cur = dir.to_owned();
    while cur != "." {
        cur = parent_dir(&cur);
        out.push(cur.clone());
    }
    out
}

/// The nearest ancestor-or-self of `dir` holding one of `markers`, else the root.
fn package_of(root: &Path, dir: &str, markers: &[&str]) -> String {
    ancestors(dir)
        .into_iter()
        .find(|d| markers.iter().any(|m| at(root, d).join(m).is_file()))
        .unwrap_or_else(|| ".".to_owned())
}

/// A path as shown to the user: relative to the root when it is inside it.
fn shown(root: &Path, p: &Path) -> String {
    p.strip_prefix(root)
        .map_or_else(|_| p.display().to_string(), |r| r.display().to_string())
}

fn ext(path: &str) -> &str {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.rsplit_once('.').map_or("", |(_, e)| e)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Lang {
    Python,
    Js,
    Go,
    Rust,
}

fn lang(path: &str) -> Option<Lang> {
    match ext(path) {
        "py" | "pyi" => Some(Lang::Python),
        "js" | "mjs" | "cjs" | "jsx" | "ts" | "tsx" | "mts" | "cts" => Some(Lang::Js),
        "go" => Some(Lang::Go),
        "rs" => Some(Lang::Rust),
        _ => None,
    }
}

fn is_ts(path: &str) -> bool {
    matches!(ext(path), "ts" | "tsx" | "mts" | "cts")
}

struct Planner<'a> {
    root: &'a Path,
    probe: &'a Probe<'a>,
    plan: LintPlan,
}

impl Planner<'_> {
    /// Adds a run in package `dir`; the tool's relative paths start there.
    #[expect(
        clippy::too_many_arguments,
        reason = "one run's every field, named at the call"
    )]
    fn push(
        &mut self,
        linter: Linter,
        dir: &str,
        program: &Path,
        shown_program: String,
        args: &[&str],
        file_args: FileArgs,
        files: Vec<String>,
        why: String,
    ) {
        let name = if dir == "." {
            format!("lint:{}", linter.as_str())
        } else {
            format!("lint:{}:{dir}", linter.as_str())
        };
        let mut argv = vec![program.to_string_lossy().into_owned()];
        argv.extend(args.iter().map(|a| (*a).to_owned()));
        self.plan.groups.push(LintGroup {
            name,
            linter,
            dir: dir.to_owned(),
            cwd: at(self.root, dir),
            argv,
            shown_program,
            file_args,
            files,
            path_base: dir.to_owned(),
            why,
        });
    }

    fn not_covered(&mut self, what: &str, files: &[String], fix: &str) {
        let list = files.join(", ");
        self.plan
            .not_covered
            .push(format!("lint: no linter for {what} ({list}): {fix}"));
    }

    /// A tool in a virtualenv of the package or the root (`bin/<name>`), shown relative to the root.
    fn in_venv(&self, dir: &str, name: &str) -> Option<(PathBuf, String)> {
        let mut places = vec![dir.to_owned()];
        if dir != "." {
            places.push(".".to_owned());
        }
        places.iter().find_map(|d| {
            [".venv", "venv"].iter().find_map(|v| {
                let p = at(self.root, d).join(v).join("bin").join(name);
                executable(&p).then(|| (p.clone(), shown(self.root, &p)))
            })
        })
    }

    /// `node_modules/.bin/<name>` in the package dir or an ancestor.
    fn node_bin(&self, dir: &str, name: &str) -> Option<(PathBuf, String)> {
        ancestors(dir).into_iter().find_map(|d| {
            let p = at(self.root, &d).join("node_modules/.bin").join(name);
            executable(&p).then(|| (p.clone(), shown(self.root, &p)))
        })
    }

    fn python(&mut self, dir: &str, files: Vec<String>) {
        if let Some((ruff, shown_ruff)) = self
            .in_venv(dir, "ruff")
            .or_else(|| self.probe.which("ruff").map(|p| (p, "ruff".to_owned())))
        {
            let why = format!("ruff found ({shown_ruff})");
            let args = ["check", "--output-format=concise", "--no-cache"];
            self.push(
                Linter::Ruff,
                dir,
                &ruff,
                shown_ruff,
                &args,
                FileArgs::All,
                files,
                why,
            );
            return;
        }
        let Some((python, shown_py)) = self.in_venv(dir, "python").or_else(|| {
            self.probe
                .which("python3")
                .map(|p| (p, "python3".to_owned()))
        }) else {
            self.not_covered(
                "Python",
                &files,
                "install ruff, or python3 for a syntax check",
            );
            return;
        };
        if self.probe.has_pyflakes(&python, &at(self.root, dir)) {
            let why = format!("ruff not found; {shown_py} imports pyflakes");
            let args = ["-m", "pyflakes"];
            self.push(
                Linter::Pyflakes,
                dir,
                &python,
                shown_py,
                &args,
                FileArgs::All,
                files,
                why,
            );
        } else {
            let why = format!(
                "syntax only: neither ruff nor pyflakes is installed, so {shown_py} compiles each file (install ruff for real linting)"
            );
            let args = ["-c", PY_SYNTAX_SCRIPT];
            self.push(
                Linter::PyCompile,
                dir,
                &python,
                shown_py,
                &args,
                FileArgs::All,
                files,
                why,
            );
        }
    }

    fn eslint_config(&self, dir: &str) -> Option<String> {
        ancestors(dir).into_iter().find_map(|d| {
            let base = at(self.root, &d);
            ESLINT_CONFIGS
                .iter()
                .find(|c| base.join(c).is_file())
                .map(|c| shown(self.root, &base.join(c)))
                .or_else(|| {
                    let pj = base.join("package.json");
                    read_small(&pj)
                        .filter(|t| t.contains("\"eslintConfig\""))
                        .map(|_| format!("{} (eslintConfig)", shown(self.root, &pj)))
                })
        })
    }

    fn js(&mut self, dir: &str, files: Vec<String>) {
        let config = self.eslint_config(dir);
        if let Some(config) = &config
            && let Some((eslint, shown_eslint)) = self.node_bin(dir, "eslint")
        {
            let why = format!("ESLint configured ({config}) and installed ({shown_eslint})");
            let args = ["--format", "json"];
            self.push(
                Linter::Eslint,
                dir,
                &eslint,
                shown_eslint,
                &args,
                FileArgs::All,
                files,
                why,
            );
            return;
        }
        let no_eslint = match config {
            Some(c) => format!(
                "ESLint is configured ({c}) but not installed (no node_modules/.bin/eslint: install the dependencies)"
            ),
            None => "no ESLint configuration".to_owned(),
        };
        let (ts, js): (Vec<String>, Vec<String>) = files.into_iter().partition(|f| is_ts(f));
        let (plain, jsx): (Vec<String>, Vec<String>) =
            js.into_iter().partition(|f| ext(f) != "jsx");
        if !plain.is_empty() {
            match self.probe.which("node") {
                Some(node) => {
                    let why =
                        format!("syntax only: {no_eslint}, so node checks each file's syntax");
                    self.push(
                        Linter::NodeCheck,
                        dir,
                        &node,
                        "node".to_owned(),
                        &["--check"],
                        FileArgs::PerFile,
                        plain,
                        why,
                    );
                }
                None => self.not_covered(
                    "JavaScript",
                    &plain,
                    "install node, or eslint with a configuration",
                ),
            }
        }
        if !jsx.is_empty() {
            self.not_covered("JSX", &jsx, "add eslint with a configuration");
        }
        let mut by_project: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let mut orphans = Vec::new();
        for f in ts {
            match ancestors(&parent_dir(&f))
                .into_iter()
                .find(|d| at(self.root, d).join("tsconfig.json").is_file())
            {
                Some(project) => by_project.entry(project).or_default().push(f),
                None => orphans.push(f),
            }
        }
        for (project, files) in by_project {
            match self.node_bin(&project, "tsc") {
                Some((tsc, shown_tsc)) => {
                    let why = format!(
                        "{no_eslint}; tsc type-checks the project of {project}/tsconfig.json"
                    );
                    let args = ["--noEmit", "--pretty", "false", "-p", "."];
                    self.push(
                        Linter::Tsc,
                        &project,
                        &tsc,
                        shown_tsc,
                        &args,
                        FileArgs::None,
                        files,
                        why,
                    );
                }
                None => orphans.extend(files),
            }
        }
        if !orphans.is_empty() {
            self.not_covered(
                "TypeScript",
                &orphans,
                "add eslint or a tsconfig with typescript installed",
            );
        }
    }

    fn go(&mut self, dir: &str, files: Vec<String>) {
        let module = at(self.root, dir).join("go.mod").is_file();
        match self.probe.which("gofmt") {
            Some(gofmt) => {
                let why = "gofmt lists files it would reformat (-l, nothing is written)".to_owned();
                self.push(
                    Linter::Gofmt,
                    dir,
                    &gofmt,
                    "gofmt".to_owned(),
                    &["-l"],
                    FileArgs::All,
                    files.clone(),
                    why,
                );
            }
            None => self.not_covered("Go formatting", &files, "install go (gofmt)"),
        }
        let Some(go) = self.probe.which("go") else {
            self.not_covered("Go", &files, "install go (go vet)");
            return;
        };
        if !module {
            self.not_covered(
                "Go (go vet)",
                &files,
                "go vet needs a go.mod above the files",
            );
            return;
        }
        let prefix = if dir == "." {
            String::new()
        } else {
            format!("{dir}/")
        };
        let pkgs: BTreeSet<String> = files
            .iter()
            .map(|f| {
                let d = parent_dir(f.strip_prefix(&prefix).unwrap_or(f));
                if d == "." {
                    ".".to_owned()
                } else {
                    format!("./{d}")
                }
            })
            .collect();
        let mut args = vec!["vet"];
        args.extend(pkgs.iter().map(String::as_str));
        let why = format!("go.mod in {dir}: go vet on the changed packages");
        self.push(
            Linter::GoVet,
            dir,
            &go,
            "go".to_owned(),
            &args,
            FileArgs::None,
            files,
            why,
        );
    }

    fn rust(&mut self, dir: &str, files: Vec<String>) {
        let pkg = at(self.root, dir).join("Cargo.toml");
        let cargo = self.probe.which("cargo");
        if pkg.is_file()
            && let Some(cargo) = cargo.filter(|c| self.probe.has_clippy(c, &at(self.root, dir)))
        {
            let workspace = ancestors(dir)
                .into_iter()
                .find(|d| {
                    read_small(&at(self.root, d).join("Cargo.toml"))
                        .is_some_and(|t| t.lines().any(|l| l.trim() == "[workspace]"))
                })
                .unwrap_or_else(|| dir.to_owned());
            let why = format!("Cargo.toml in {dir}: cargo clippy on the package, all targets");
            let args = [
                "clippy",
                "--message-format=short",
                "--quiet",
                "--all-targets",
            ];
            // The files are not arguments: clippy checks the whole package.
            self.push(
                Linter::Clippy,
                dir,
                &cargo,
                "cargo".to_owned(),
                &args,
                FileArgs::None,
                files,
                why,
            );
            // cargo prints paths from the workspace root, not from the package.
            if let Some(g) = self.plan.groups.last_mut() {
                g.path_base = workspace;
            }
            return;
        }
        let Some(rustfmt) = self.probe.which("rustfmt") else {
            self.not_covered(
                "Rust",
                &files,
                "install clippy (rustup component add clippy) or rustfmt",
            );
            return;
        };
        let edition = read_small(&pkg)
            .and_then(|t| {
                t.lines().find_map(|l| {
                    let v = l.trim().strip_prefix("edition")?.trim().strip_prefix('=')?;
                    Some(v.trim().trim_matches('"').to_owned())
                })
            })
            .filter(|e| e.len() == 4 && e.bytes().all(|b| b.is_ascii_digit()))
            .unwrap_or_else(|| "2021".to_owned());
        let why = "formatting only: cargo clippy is not available, so rustfmt --check says which lines it would change".to_owned();
        let args = ["--check", "--color", "never", "--edition", edition.as_str()];
        self.push(
            Linter::Rustfmt,
            dir,
            &rustfmt,
            "rustfmt".to_owned(),
            &args,
            FileArgs::All,
            files,
            why,
        );
    }
}

/// The plan over `changed` with tools looked up in `probe`'s environment.
pub(crate) fn plan_with_probe(root: &Path, changed: &[ChangedFile], probe: &Probe<'_>) -> LintPlan {
    let mut by_pkg: BTreeMap<(Lang, String), Vec<String>> = BTreeMap::new();
    for f in changed {
        let Some(l) = lang(&f.path) else { continue };
        let regular = std::fs::symlink_metadata(root.join(&f.path)).is_ok_and(|m| m.is_file());
        if !regular {
            continue;
        }
        if l == Lang::Go && f.path.split('/').any(|c| c == "testdata" || c == "vendor") {
            continue;
        }
        let markers: &[&str] = match l {
            Lang::Python => &["pyproject.toml", "setup.cfg", "setup.py"],
            Lang::Js => &["package.json"],
            Lang::Go => &["go.mod"],
            Lang::Rust => &["Cargo.toml"],
        };
        let pkg = package_of(root, &parent_dir(&f.path), markers);
        by_pkg.entry((l, pkg)).or_default().push(f.path.clone());
    }
    let mut p = Planner {
        root,
        probe,
        plan: LintPlan::default(),
    };
    for ((l, dir), files) in by_pkg {
        match l {
            Lang::Python => p.python(&dir, files),
            Lang::Js => p.js(&dir, files),
            Lang::Go => p.go(&dir, files),
            Lang::Rust => p.rust(&dir, files),
        }
    }
    p.plan
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_and_languages() {
        assert_eq!(ancestors("a/b"), ["a/b", "a", "."]);
        assert_eq!(ancestors("."), ["."]);
        assert_eq!(parent_dir("x.py"), ".");
        assert_eq!(lang("a/b.test.mts"), Some(Lang::Js));
        assert_eq!(lang("README.md"), None);
        assert_eq!(lang("Makefile"), None);
        assert!(is_ts("x.tsx") && !is_ts("x.jsx"));
    }

    #[test]
    fn command_lines_show_relative_files() {
        let g = LintGroup {
            name: "lint:ruff:svc".into(),
            linter: Linter::Ruff,
            dir: "svc".into(),
            cwd: PathBuf::from("/r/svc"),
            argv: vec!["/r/.venv/bin/ruff".into(), "check".into()],
            shown_program: ".venv/bin/ruff".into(),
            file_args: FileArgs::All,
            files: vec!["svc/a b.py".into(), "svc/-x.py".into()],
            path_base: "svc".into(),
            why: String::new(),
        };
        assert_eq!(g.file_args_rel(), ["a b.py", "./-x.py"]);
        assert_eq!(g.command_line(), ".venv/bin/ruff check 'a b.py' ./-x.py");
    }
}
