//! Running a chapter's console blocks: one session per fixture (a fresh home in a temp dir, the
//! built `loki` first on `PATH`, no network, no model), each command in `bash` with stderr on
//! stdout, its output compared with the guide's after both are redacted.
//!
//! What a reader sees is what a user sees: the session's home prints as `/home/you`, its
//! temporary directory as `/tmp`, and the binary as `/home/you/.cargo/bin/loki` (where
//! `cargo install` puts it). Commands may name those paths; they are mapped back before they run.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::LazyLock;
use std::time::{Duration, Instant};

use regex::Regex;

use super::book::{Step, runnable};

/// The home a reader sees.
pub const DOC_HOME: &str = "/home/you";
/// The temporary directory a reader sees.
const DOC_TMP: &str = "/tmp";
/// The binary a reader sees.
const DOC_LOKI: &str = "/home/you/.cargo/bin/loki";
/// How long one command may take (a deep verify runs a whole suite).
const COMMAND_TIMEOUT: Duration = Duration::from_secs(300);
/// How long a background command may take to print what the guide shows.
const BACKGROUND_WAIT: Duration = Duration::from_secs(60);

/// A volatile value: how to find it, its placeholder, and whether a later command may name it
/// (then the guide's value is bound to the real one).
struct Volatile {
    re: Regex,
    placeholder: &'static str,
    bind: bool,
}

static VOLATILE: LazyLock<Vec<Volatile>> = LazyLock::new(|| {
    let v = |re: &str, placeholder, bind| Volatile {
        re: Regex::new(re).unwrap(),
        placeholder,
        bind,
    };
    vec![
        v(r"run_\d{8}_\d{6}_[0-9a-f]{4}", "[RUN_ID]", true),
        v(r"cyc_\d{8}_\d{6}_[0-9a-f]{4}", "[CYCLE_ID]", true),
        v(r"/tmp/loki-demo-[A-Za-z0-9]{6}\b", "[DEMO_DIR]", true),
        v(
            r"\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z",
            "[TS]",
            false,
        ),
        v(r"\b[0-9a-f]{64}\b", "[SHA256]", false),
        v(r"\b[0-9a-f]{40}\b", "[COMMIT]", false),
        v(r"\b[0-9a-f]{12}\b", "[SHORT]", false),
        v(r"\b\d+m\d+s\b|\b\d+(\.\d+)?(ms|s)\b", "[DUR]", false),
        v(r"\b(127\.0\.0\.1|localhost):\d+\b", "[LOOPBACK]", true),
    ]
});

/// A fresh home, its temporary directory, the working directory and the values bound so far.
pub struct Session {
    root: tempfile::TempDir,
    cwd: PathBuf,
    env: BTreeMap<String, String>,
    /// A value the guide shows → the value the session really has.
    bound: BTreeMap<String, String>,
    background: Vec<(Child, PathBuf)>,
    /// Commands run in this session.
    pub ran: usize,
}

impl Session {
    /// A new session in `fixture` (`home`: an empty home; `shop`: `~/shop`, a small Python
    /// project with passing pytest tests, committed on `main`, and the patches the stop-hook
    /// chapter applies in `~/patches/`). None when a tool the fixture needs is missing (skipped
    /// outside CI).
    pub fn new(fixture: &str) -> Option<Session> {
        let root = tempfile::tempdir().unwrap();
        let home = root.path().join("home");
        let tmp = root.path().join("tmp");
        let bin = home.join(".cargo/bin");
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::create_dir_all(&tmp).unwrap();
        std::os::unix::fs::symlink(loki_bin(), bin.join("loki")).unwrap();
        let path = format!(
            "{}:{}",
            bin.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let env: BTreeMap<String, String> = [
            ("PATH", path.as_str()),
            ("HOME", &home.display().to_string()),
            ("LOKI_HOME", &home.join(".loki").display().to_string()),
            ("TMPDIR", &tmp.display().to_string()),
            ("NO_COLOR", "1"),
            ("LANG", "C.UTF-8"),
            ("GIT_CONFIG_NOSYSTEM", "1"),
            ("GIT_CONFIG_GLOBAL", "/dev/null"),
            ("GIT_AUTHOR_NAME", "You"),
            ("GIT_AUTHOR_EMAIL", "you@example.com"),
            ("GIT_COMMITTER_NAME", "You"),
            ("GIT_COMMITTER_EMAIL", "you@example.com"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let mut env = env;
        // The toolchains a user has: rustup finds them through its homes, which the fresh
        // home does not hold.
        let real_home = PathBuf::from(std::env::var_os("HOME").unwrap_or_default());
        for (var, default) in [("RUSTUP_HOME", ".rustup"), ("CARGO_HOME", ".cargo")] {
            let dir = std::env::var_os(var).map_or_else(|| real_home.join(default), PathBuf::from);
            if dir.is_dir() {
                env.insert(var.to_string(), dir.display().to_string());
            }
        }
        if let Some(t) = std::env::var_os("RUSTUP_TOOLCHAIN") {
            env.insert(
                "RUSTUP_TOOLCHAIN".to_string(),
                t.to_string_lossy().into_owned(),
            );
        }
        let mut s = Session {
            root,
            cwd: home.clone(),
            env,
            bound: BTreeMap::new(),
            background: Vec::new(),
            ran: 0,
        };
        match fixture {
            "home" => {}
            "shop" => {
                if !loki_test_support::require_pytest() {
                    return None;
                }
                super::fixtures::shop(&s, &home);
                s.cwd = home.join("shop");
            }
            other => panic!("unknown guide fixture `{other}` (known: home, shop)"),
        }
        Some(s)
    }

    /// The session's home.
    pub fn home(&self) -> PathBuf {
        self.root.path().join("home")
    }

    fn tmp(&self) -> PathBuf {
        self.root.path().join("tmp")
    }

    /// A git command in `dir` with the session's environment.
    pub fn git(&self, dir: &Path, args: &[&str]) {
        let out = Command::new("git")
            .args(args)
            .current_dir(dir)
            .env_clear()
            .envs(&self.env)
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {out:?}");
    }

    /// Runs one step and compares its output; panics with both sides when they differ, unless
    /// `bless` (`LOKI_GUIDE_BLESS=1`, for a chapter's author): then returns what it printed.
    pub fn run(&mut self, step: &Step, bless: bool) -> Option<Vec<String>> {
        self.ran += 1;
        let command = self.to_real(&runnable(&step.command));
        if let Some(dir) = command
            .strip_prefix("cd ")
            .filter(|d| !d.contains(['&', ';', '|']))
        {
            let dir = dir.trim().replace('~', &self.home().display().to_string());
            self.cwd = self.cwd.join(dir);
            assert!(
                self.cwd.is_dir(),
                "{}: no directory {}",
                step.at,
                self.cwd.display()
            );
            return None;
        }
        if let Some(assign) = command.strip_prefix("export ") {
            let (k, v) = assign.split_once('=').unwrap();
            self.env
                .insert(k.to_string(), v.trim_matches('"').to_string());
            return None;
        }
        if step.background {
            self.start_background(step, &command);
            return None;
        }
        let (code, output) = self.execute(&command);
        let actual = self.to_doc(&output);
        let compared = self.compare(&step.expected, &actual, false);
        if bless && (compared.is_err() || code != step.exit) {
            eprintln!("{}: exit {code}", step.at);
            return Some(actual.lines().map(|l| l.trim_end().to_string()).collect());
        }
        if let Err(why) = compared {
            panic!(
                "{at}: `{cmd}` printed something else than the guide shows ({why})\n--- guide\n{exp}\n--- actual\n{actual}\n---",
                at = step.at,
                cmd = step.command,
                exp = step.expected.join("\n"),
            );
        }
        assert_eq!(
            code, step.exit,
            "{}: `{}` exited {code}, the guide says {} (`# exit N` sets it)\n{actual}",
            step.at, step.command, step.exit
        );
        None
    }

    /// `bash -c COMMAND` in the session, stderr on stdout: exit code and output.
    fn execute(&self, command: &str) -> (i32, String) {
        let mut child = self.bash(command).stdout(Stdio::piped()).spawn().unwrap();
        let mut stdout = child.stdout.take().unwrap();
        let reader = std::thread::spawn(move || {
            let mut buf = Vec::new();
            stdout.read_to_end(&mut buf).unwrap();
            buf
        });
        let start = Instant::now();
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break s;
            }
            if start.elapsed() > COMMAND_TIMEOUT {
                kill_group(&mut child);
                panic!("`{command}` ran longer than {COMMAND_TIMEOUT:?}");
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let out = reader.join().unwrap();
        (
            status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out).into_owned(),
        )
    }

    fn bash(&self, command: &str) -> Command {
        let mut c = Command::new("bash");
        c.arg("-c")
            .arg(format!("exec 2>&1\n{command}"))
            .current_dir(&self.cwd)
            .env_clear()
            .envs(&self.env)
            .stdin(Stdio::null());
        std::os::unix::process::CommandExt::process_group(&mut c, 0);
        c
    }

    /// Starts a `&` command with its output in a file, and waits until it printed what the
    /// guide shows (more may follow).
    fn start_background(&mut self, step: &Step, command: &str) {
        let log = self
            .root
            .path()
            .join(format!("bg-{}.log", self.background.len()));
        let file = std::fs::File::create(&log).unwrap();
        let child = self
            .bash(&format!("exec {command}"))
            .stdout(file)
            .spawn()
            .unwrap();
        self.background.push((child, log.clone()));
        let start = Instant::now();
        loop {
            let actual = self.to_doc(&std::fs::read_to_string(&log).unwrap_or_default());
            if self.compare(&step.expected, &actual, true).is_ok() {
                return;
            }
            assert!(
                start.elapsed() < BACKGROUND_WAIT,
                "{}: `{}` did not print what the guide shows\n--- guide\n{}\n--- actual\n{actual}",
                step.at,
                step.command,
                step.expected.join("\n")
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Output as a reader sees it: the session's paths as the guide writes them.
    fn to_doc(&self, text: &str) -> String {
        let real_bin = loki_bin().canonicalize().unwrap();
        let mut maps = [
            (real_bin.display().to_string(), DOC_LOKI),
            (self.home().display().to_string(), DOC_HOME),
            (self.tmp().display().to_string(), DOC_TMP),
        ];
        maps.sort_by_key(|(real, _)| std::cmp::Reverse(real.len()));
        let mut out = text.to_string();
        for (real, doc) in maps {
            out = out.replace(&real, doc);
        }
        out
    }

    /// A command as it runs: values the guide showed replaced by the real ones, the reader's
    /// paths by the session's.
    fn to_real(&self, command: &str) -> String {
        let mut out = command.to_string();
        let mut bound: Vec<_> = self.bound.iter().collect();
        bound.sort_by_key(|(doc, _)| std::cmp::Reverse(doc.len()));
        for (doc, real) in bound {
            out = out.replace(doc.as_str(), real);
        }
        out = out.replace(DOC_HOME, &self.home().display().to_string());
        static TMP: LazyLock<Regex> =
            LazyLock::new(|| Regex::new(r"(^|[\s='\x22])/tmp\b").unwrap());
        let tmp = self.tmp().display().to_string();
        TMP.replace_all(&out, |c: &regex::Captures| format!("{}{tmp}", &c[1]))
            .into_owned()
    }

    /// Whether `actual` is what `expected` shows (`prefix`: more lines may follow); binds the
    /// values of matching lines. The error says which line failed.
    fn compare(&mut self, expected: &[String], actual: &str, prefix: bool) -> Result<(), String> {
        let actual: Vec<String> = actual.lines().map(|l| l.trim_end().to_string()).collect();
        let mut actual = actual;
        while actual.last().is_some_and(String::is_empty) {
            actual.pop();
        }
        let mut expected: Vec<String> = expected.iter().map(|l| l.trim_end().to_string()).collect();
        if prefix {
            expected.push("...".to_string());
        }
        let mut pairs = Vec::new();
        if !match_lines(&expected, &actual, &mut pairs) {
            return Err(first_mismatch(&expected, &actual));
        }
        let mut bound = self.bound.clone();
        for (e, a) in pairs {
            bind(&expected[e], &actual[a], &mut bound)?;
        }
        self.bound = bound;
        Ok(())
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        for (child, _) in &mut self.background {
            kill_group(child);
        }
    }
}

/// Stops a child's process group (SIGTERM, then SIGKILL after 10 s) and reaps it.
fn kill_group(child: &mut Child) {
    let pid = child.id().to_string();
    let signal = |sig: &str| {
        let _ = Command::new("kill")
            .args([sig, "--", &format!("-{pid}")])
            .status();
    };
    signal("-TERM");
    let start = Instant::now();
    while child.try_wait().ok().flatten().is_none() {
        if start.elapsed() > Duration::from_secs(10) {
            signal("-KILL");
            let _ = child.wait();
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The built binary.
pub fn loki_bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("loki")
}

/// A line with its volatile values replaced by their placeholders.
fn redact(line: &str) -> String {
    let mut out = line.to_string();
    for v in VOLATILE.iter() {
        out = v.re.replace_all(&out, v.placeholder).into_owned();
    }
    out
}

/// One expected line against one actual line: equal after redaction, `[..]` matching any text.
fn line_matches(expected: &str, actual: &str) -> bool {
    let (e, a) = (redact(expected), redact(actual));
    let parts: Vec<&str> = e.split("[..]").collect();
    if parts.len() == 1 {
        return e == a;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !a.starts_with(first) || a.len() < first.len() + last.len() || !a.ends_with(last) {
        return false;
    }
    let mut rest = &a[first.len()..a.len() - last.len()];
    for mid in &parts[1..parts.len() - 1] {
        match rest.find(mid) {
            Some(at) => rest = &rest[at + mid.len()..],
            None => return false,
        }
    }
    true
}

/// Matches line lists with `...` as any number of lines (backtracking); `pairs` gets the
/// (expected, actual) indices of the lines matched one to one.
fn match_lines(expected: &[String], actual: &[String], pairs: &mut Vec<(usize, usize)>) -> bool {
    fn go(
        e: &[String],
        a: &[String],
        ei: usize,
        ai: usize,
        pairs: &mut Vec<(usize, usize)>,
    ) -> bool {
        if ei == e.len() {
            return ai == a.len();
        }
        if e[ei] == "..." {
            let mark = pairs.len();
            for skip in ai..=a.len() {
                if go(e, a, ei + 1, skip, pairs) {
                    return true;
                }
                pairs.truncate(mark);
            }
            return false;
        }
        if ai < a.len() && line_matches(&e[ei], &a[ai]) {
            pairs.push((ei, ai));
            if go(e, a, ei + 1, ai + 1, pairs) {
                return true;
            }
            pairs.pop();
        }
        false
    }
    go(expected, actual, 0, 0, pairs)
}

/// The first line where a plain (no `...`) comparison goes wrong, for the failure message.
fn first_mismatch(expected: &[String], actual: &[String]) -> String {
    for (i, e) in expected.iter().enumerate() {
        if e == "..." {
            return "lines differ around a `...`".to_string();
        }
        match actual.get(i) {
            Some(a) if line_matches(e, a) => {}
            Some(a) => return format!("line {}: guide `{e}`, actual `{a}`", i + 1),
            None => return format!("line {}: guide `{e}`, actual output ended", i + 1),
        }
    }
    format!(
        "{} more lines than the guide shows",
        actual.len().saturating_sub(expected.len())
    )
}

/// Binds the values a matched line shows to the real ones; one value the guide shows standing
/// for two real ones is an error (a reader would type the wrong one).
fn bind(expected: &str, actual: &str, bound: &mut BTreeMap<String, String>) -> Result<(), String> {
    if expected.contains("[..]") {
        return Ok(());
    }
    for v in VOLATILE.iter().filter(|v| v.bind) {
        let shown: Vec<&str> = v.re.find_iter(expected).map(|m| m.as_str()).collect();
        let real: Vec<&str> = v.re.find_iter(actual).map(|m| m.as_str()).collect();
        if shown.len() != real.len() {
            continue;
        }
        for (s, r) in shown.into_iter().zip(real) {
            match bound.get(s) {
                Some(prev) if prev != r => {
                    return Err(format!(
                        "the guide shows {s} for two values, {prev} and {r}: use another value for the second"
                    ));
                }
                _ => {
                    bound.insert(s.to_string(), r.to_string());
                }
            }
        }
    }
    Ok(())
}

#[test]
fn output_is_matched_with_wildcards_redactions_and_bindings() {
    let lines = |s: &str| s.lines().map(str::to_string).collect::<Vec<_>>();
    let mut pairs = Vec::new();
    assert!(match_lines(
        &lines(
            "Outcome:    VERIFIED\n...\nRun:        run_20261201_101500_ab12\nTime:       1m12s (intake 3ms[..])"
        ),
        &lines(
            "Outcome:    VERIFIED\nx\ny\nRun:        run_20261207_004814_edda\nTime:       16s (intake 564ms, wall 65ms)"
        ),
        &mut pairs
    ));
    let mut bound = BTreeMap::new();
    bind(
        "Run: run_20261201_101500_ab12",
        "Run: run_20261207_004814_edda",
        &mut bound,
    )
    .unwrap();
    assert_eq!(
        bound["run_20261201_101500_ab12"],
        "run_20261207_004814_edda"
    );
    assert!(
        bind(
            "Run: run_20261201_101500_ab12",
            "Run: run_20261207_004814_beef",
            &mut bound
        )
        .is_err()
    );
    assert!(!match_lines(
        &lines("PASS pytest"),
        &lines("FAIL pytest"),
        &mut pairs
    ));
    assert!(!match_lines(&lines("a\n..."), &lines("b\na"), &mut pairs));
    assert!(line_matches(
        "listening on http://127.0.0.1:47821",
        "listening on http://127.0.0.1:39001"
    ));
}
