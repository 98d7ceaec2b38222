//! Choosing the council's reviewers from the change itself.
//!
//! # Input
//! A unified diff as `git diff-tree -p` prints it (any context; loki passes `-U0`): `diff --git`
//! headers, `---`/`+++` file lines, `@@ -a,b +c,d @@` hunk headers, then `+`/`-` lines.
//!
//! # Rule (deterministic: the same diff always gives the same council, in the same order)
//! Each changed line (added or removed) is matched, lower-cased, against each specialist role's
//! signals; a changed file's path is matched too (worth [`PATH_WEIGHT`] lines):
//! - **security**: auth, crypto, exec, env, network, secrets, `unsafe`, deserialization;
//! - **tests**: lines in test files (such files count for this role only, whatever they hold),
//!   a deleted test file (worth [`DELETED_TEST_WEIGHT`]), assertions and skip markers touched;
//! - **api**: public signatures, exports and CLI flags;
//! - **performance**: loops, allocation, I/O and queries.
//!
//! Documentation files (`.md`, `.txt`, `.rst`, `.adoc`) count for no role. Specialists with
//! evidence come first, the strongest first (ties in the order above); then **correctness**, the
//! default reviewer of every change; then the specialists without evidence, filling the council.
//! At most one reviewer per role, so at most [`ROLES`]`.len()` reviewers. Each reviewer carries
//! `why`: the evidence that chose it (how many lines, and the first one as `file:line`).

use std::fmt;

/// A changed path counts as this many changed lines for a role whose path signals it matches.
pub const PATH_WEIGHT: usize = 2;
/// A deleted test file is strong evidence for the tests reviewer: tests going away is the
/// classic way to make a suite pass.
pub const DELETED_TEST_WEIGHT: usize = 10;

/// What a reviewer reads the change for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Role {
    Security,
    Tests,
    Api,
    Performance,
    Correctness,
}

/// Every role, in the tie-break order (specialists first, correctness last).
pub const ROLES: [Role; 5] = [
    Role::Security,
    Role::Tests,
    Role::Api,
    Role::Performance,
    Role::Correctness,
];

impl Role {
    /// The role's name as the receipt, the script and the summary spell it.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Security => "security",
            Role::Tests => "tests",
            Role::Api => "api",
            Role::Performance => "performance",
            Role::Correctness => "correctness",
        }
    }

    /// What this reviewer is asked to look for (the reviewer's brief).
    #[must_use]
    pub fn focus(self) -> &'static str {
        match self {
            Role::Security => {
                "security: authentication and authorization, cryptography, command execution, environment and secrets handling, network access, unsafe code, deserialization of untrusted input, injection"
            }
            Role::Tests => {
                "tests: tests deleted, skipped or weakened, assertions loosened, behaviour changed without a test that pins it, tests that cannot fail"
            }
            Role::Api => {
                "API: public signatures, exported names, command-line flags and file formats changed in ways that break callers or users, missing documentation of a changed contract"
            }
            Role::Performance => {
                "performance: work in loops and hot paths, needless allocation or copying, blocking I/O, unbounded growth, queries in loops"
            }
            Role::Correctness => {
                "correctness: does the change do what the task asks, edge cases, error handling, off-by-one errors, regressions in behaviour the task did not ask to change"
            }
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One chosen reviewer and why it was chosen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reviewer {
    pub role: Role,
    pub why: String,
}

/// Substrings of a changed line (lower-cased) that point at a role.
const SECURITY_LINES: &[&str] = &[
    "unsafe ",
    "unsafe{",
    "command::new",
    "std::process",
    "subprocess",
    "os.system",
    "child_process",
    "exec(",
    "execv",
    "eval(",
    "env::var",
    "os.environ",
    "os.getenv",
    "process.env",
    "password",
    "passwd",
    "secret",
    "token",
    "api_key",
    "apikey",
    "credential",
    "private_key",
    "crypto",
    "hmac",
    "sha1",
    "md5",
    "encrypt",
    "decrypt",
    "signature",
    "auth",
    "permission",
    "tcpstream",
    "tcplistener",
    "socket",
    "reqwest",
    "urllib",
    "requests.",
    "fetch(",
    "http://",
    "https://",
    "deserializ",
    "pickle",
    "yaml.load",
    "from_str(",
    "from_slice(",
    "json.loads",
    "json.parse",
    "sql",
    "chmod",
    "setuid",
];
const SECURITY_PATHS: &[&str] = &[
    "auth",
    "crypto",
    "secret",
    "token",
    "password",
    "login",
    "session",
    "permission",
    "sandbox",
    "security",
    "tls",
    "cert",
];
const TEST_LINES: &[&str] = &[
    "assert",
    "expect(",
    "should",
    "#[test]",
    "#[ignore",
    "@pytest",
    "skip",
    "xfail",
    "it(",
    "describe(",
    "t.run(",
];
const API_LINES: &[&str] = &[
    "pub fn ",
    "pub async fn ",
    "pub struct ",
    "pub enum ",
    "pub trait ",
    "pub type ",
    "pub const ",
    "pub mod ",
    "pub use ",
    "export ",
    "module.exports",
    "__all__",
    "#[arg(",
    "#[command(",
    "add_argument(",
    "argparse",
    "click.option",
    "flag.",
];
const API_PATHS: &[&str] = &["cli.rs", "cli.py", ".proto", "openapi", "schema"];
const PERFORMANCE_LINES: &[&str] = &[
    "for ",
    "while ",
    "loop {",
    ".iter()",
    ".collect",
    ".clone()",
    "vec::new",
    "vec![",
    "with_capacity",
    "hashmap",
    "btreemap",
    ".sort",
    "select ",
    "query(",
    "file::open",
    "fs::read",
    "read_to_string",
    "open(",
    "sleep",
    "mutex",
    ".lock()",
    "regex::new",
    "re.compile",
];
const DOC_EXTENSIONS: &[&str] = &[".md", ".txt", ".rst", ".adoc"];

/// One changed line of the diff: its file, its line number (new side for `+`, old side for `-`)
/// and its text without the marker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangedLine {
    pub file: String,
    pub line: u64,
    pub text: String,
}

/// A changed file of the diff.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ChangedFile {
    pub path: String,
    pub deleted: bool,
    pub lines: Vec<ChangedLine>,
}

/// The files and changed lines of a unified diff (see the module doc for the format).
#[must_use]
pub fn parse_diff(diff: &str) -> Vec<ChangedFile> {
    let mut files: Vec<ChangedFile> = Vec::new();
    let (mut old_line, mut new_line) = (0u64, 0u64);
    for raw in diff.lines() {
        if let Some(rest) = raw.strip_prefix("diff --git ") {
            // `a/<path> b/<path>`: the b side, good until `+++` says otherwise.
            let path = rest.rsplit_once(" b/").map_or(rest, |(_, b)| b).to_string();
            files.push(ChangedFile {
                path,
                ..ChangedFile::default()
            });
            continue;
        }
        let Some(file) = files.last_mut() else {
            continue;
        };
        if raw.starts_with("+++ ") || raw.starts_with("--- ") {
            if raw == "+++ /dev/null" {
                file.deleted = true;
            } else if let Some(p) = raw.strip_prefix("+++ b/") {
                file.path = p.to_string();
            }
        } else if let Some(h) = raw.strip_prefix("@@ ") {
            let (old, new) = hunk_starts(h);
            old_line = old;
            new_line = new;
        } else if let Some(t) = raw.strip_prefix('+') {
            file.lines.push(ChangedLine {
                file: file.path.clone(),
                line: new_line,
                text: t.to_string(),
            });
            new_line += 1;
        } else if let Some(t) = raw.strip_prefix('-') {
            file.lines.push(ChangedLine {
                file: file.path.clone(),
                line: old_line,
                text: t.to_string(),
            });
            old_line += 1;
        } else if raw.starts_with(' ') {
            old_line += 1;
            new_line += 1;
        }
    }
    files
}

/// The first lines of the old and new side of a hunk header's rest (`-a,b +c,d @@ ...`).
fn hunk_starts(h: &str) -> (u64, u64) {
    let mut old = 0;
    let mut new = 0;
    for part in h.split_whitespace().take(2) {
        let n = |s: &str| {
            s.split(',')
                .next()
                .and_then(|x| x.parse::<u64>().ok())
                .unwrap_or(0)
        };
        if let Some(o) = part.strip_prefix('-') {
            old = n(o);
        } else if let Some(p) = part.strip_prefix('+') {
            new = n(p);
        }
    }
    (old, new)
}

/// Whether `path` is a test file by the conventions of the common ecosystems.
#[must_use]
pub fn is_test_path(path: &str) -> bool {
    let p = path.to_ascii_lowercase();
    let name = p.rsplit('/').next().unwrap_or(&p);
    p.split('/')
        .any(|seg| matches!(seg, "test" | "tests" | "__tests__" | "spec" | "testdata"))
        || name.starts_with("test_")
        || name.contains("_test.")
        || name.contains(".test.")
        || name.contains(".spec.")
        || name.contains("_spec.")
}

fn is_doc_path(path: &str) -> bool {
    let p = path.to_ascii_lowercase();
    DOC_EXTENSIONS.iter().any(|e| p.ends_with(e))
}

/// Evidence gathered for one role.
#[derive(Debug, Default)]
struct Evidence {
    score: usize,
    lines: usize,
    paths: usize,
    deleted_tests: Vec<String>,
    first_line: Option<String>,
    first_path: Option<String>,
}

impl Evidence {
    fn hit_line(&mut self, l: &ChangedLine, signal: &str) {
        self.score += 1;
        self.lines += 1;
        if self.first_line.is_none() {
            self.first_line = Some(format!("{}:{} ({signal})", l.file, l.line));
        }
    }

    fn hit_path(&mut self, path: &str, signal: &str) {
        self.score += PATH_WEIGHT;
        self.paths += 1;
        if self.first_path.is_none() {
            self.first_path = Some(format!("{path} (path: {signal})"));
        }
    }

    fn why(&self, role: Role) -> String {
        let mut parts = Vec::new();
        if !self.deleted_tests.is_empty() {
            parts.push(format!(
                "test files deleted: {}",
                self.deleted_tests.join(", ")
            ));
        }
        if self.lines > 0 {
            let what = match role {
                Role::Security => "touch auth, crypto, exec, env, network, secrets or parsing",
                Role::Tests => "are in test files or touch assertions",
                Role::Api => "change public signatures, exports or flags",
                Role::Performance => "touch loops, allocation, I/O or queries",
                Role::Correctness => "changed",
            };
            parts.push(format!(
                "{} changed line{} {what}",
                self.lines,
                if self.lines == 1 { "" } else { "s" }
            ));
        }
        if self.paths > 0 {
            parts.push(format!(
                "{} path{} named for it",
                self.paths,
                if self.paths == 1 { "" } else { "s" }
            ));
        }
        // A line is better evidence to name than a path.
        let first = self
            .first_line
            .as_ref()
            .or(self.first_path.as_ref())
            .map(|f| format!("; first: {f}"))
            .unwrap_or_default();
        format!("{}{first}", parts.join(", "))
    }
}

fn first_match<'a>(text: &str, signals: &[&'a str]) -> Option<&'a str> {
    signals.iter().copied().find(|s| text.contains(s))
}

/// The council for `diff`: `n` reviewers (at most one per role), chosen and ordered by the rule
/// of the module doc.
#[must_use]
pub fn choose(diff: &str, n: usize) -> Vec<Reviewer> {
    let files = parse_diff(diff);
    let mut security = Evidence::default();
    let mut tests = Evidence::default();
    let mut api = Evidence::default();
    let mut perf = Evidence::default();
    for f in &files {
        if is_doc_path(&f.path) {
            continue;
        }
        let path = f.path.to_ascii_lowercase();
        if is_test_path(&f.path) {
            if f.deleted {
                tests.score += DELETED_TEST_WEIGHT;
                tests.deleted_tests.push(f.path.clone());
            }
            for l in &f.lines {
                let text = l.text.to_ascii_lowercase();
                tests.hit_line(l, first_match(&text, TEST_LINES).unwrap_or("test file"));
            }
            continue;
        }
        if let Some(s) = first_match(&path, SECURITY_PATHS) {
            security.hit_path(&f.path, s);
        }
        if let Some(s) = first_match(&path, API_PATHS) {
            api.hit_path(&f.path, s);
        }
        for l in &f.lines {
            let text = l.text.to_ascii_lowercase();
            if let Some(s) = first_match(&text, SECURITY_LINES) {
                security.hit_line(l, s);
            }
            if let Some(s) = first_match(&text, TEST_LINES) {
                tests.hit_line(l, s);
            }
            if let Some(s) = first_match(text.trim_start(), API_LINES) {
                api.hit_line(l, s);
            }
            if let Some(s) = first_match(&text, PERFORMANCE_LINES) {
                perf.hit_line(l, s);
            }
        }
    }
    let mut specialists: Vec<(Role, Evidence)> = vec![
        (Role::Security, security),
        (Role::Tests, tests),
        (Role::Api, api),
        (Role::Performance, perf),
    ];
    // Stable: equal scores keep the order of ROLES.
    specialists.sort_by_key(|s| std::cmp::Reverse(s.1.score));
    let mut out: Vec<Reviewer> = specialists
        .iter()
        .filter(|(_, e)| e.score > 0)
        .map(|(r, e)| Reviewer {
            role: *r,
            why: e.why(*r),
        })
        .collect();
    out.push(Reviewer {
        role: Role::Correctness,
        why: "the default reviewer: every change is read for correctness".into(),
    });
    for r in ROLES {
        if !out.iter().any(|x| x.role == r) {
            out.push(Reviewer {
                role: r,
                why: format!("no {r} signal in the diff; fills the council"),
            });
        }
    }
    out.truncate(n);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roles(diff: &str, n: usize) -> Vec<&'static str> {
        choose(diff, n).iter().map(|r| r.role.as_str()).collect()
    }

    const SECURITY_DIFF: &str = "diff --git a/src/login.rs b/src/login.rs\n--- a/src/login.rs\n+++ b/src/login.rs\n@@ -10,0 +11,2 @@\n+    let token = std::env::var(\"API_TOKEN\").unwrap_or_default();\n+    if token == given { return Ok(()); }\n";
    const TEST_ONLY_DIFF: &str = "diff --git a/tests/calc_test.py b/tests/calc_test.py\n--- a/tests/calc_test.py\n+++ b/tests/calc_test.py\n@@ -4 +4 @@\n-    assert add(2, 2) == 4\n+    assert add(2, 2) >= 0\n";
    const DELETED_TEST_DIFF: &str = "diff --git a/tests/old.rs b/tests/old.rs\ndeleted file mode 100644\n--- a/tests/old.rs\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-#[test]\n-fn works() {}\n";
    const API_DIFF: &str = "diff --git a/src/parse.rs b/src/parse.rs\n--- a/src/parse.rs\n+++ b/src/parse.rs\n@@ -3 +3 @@\n-pub fn parse(s: &str) -> u32 {\n+pub fn parse(s: &str, radix: u32) -> u32 {\n";
    const PERF_DIFF: &str = "diff --git a/src/sum.rs b/src/sum.rs\n--- a/src/sum.rs\n+++ b/src/sum.rs\n@@ -7,0 +8,2 @@\n+    for x in xs.iter() {\n+        let copy = big.clone();\n";
    const PLAIN_DIFF: &str = "diff --git a/src/lib.rs b/src/lib.rs\n--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -2 +2 @@\n-    year % 4 == 0\n+    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)\n";

    #[test]
    fn a_security_diff_gets_the_security_reviewer_first_with_the_line_named() {
        let c = choose(SECURITY_DIFF, 3);
        assert_eq!(c[0].role, Role::Security);
        assert!(
            c[0].why.contains("src/login.rs:11 (env::var)")
                && c[0].why.starts_with("2 changed lines"),
            "{}",
            c[0].why
        );
        assert_eq!(
            roles(SECURITY_DIFF, 3),
            ["security", "correctness", "tests"]
        );
    }

    #[test]
    fn a_test_only_diff_gets_the_tests_reviewer_and_nothing_else_by_evidence() {
        assert_eq!(roles(TEST_ONLY_DIFF, 2), ["tests", "correctness"]);
        let why = &choose(TEST_ONLY_DIFF, 1)[0].why;
        assert!(why.contains("tests/calc_test.py:4 (assert)"), "{why}");
    }

    #[test]
    fn a_deleted_test_file_is_named() {
        let c = choose(DELETED_TEST_DIFF, 1);
        assert_eq!(c[0].role, Role::Tests);
        assert!(
            c[0].why.contains("test files deleted: tests/old.rs"),
            "{}",
            c[0].why
        );
    }

    #[test]
    fn public_signatures_get_the_api_reviewer_and_loops_the_performance_one() {
        assert_eq!(roles(API_DIFF, 1), ["api"]);
        assert_eq!(roles(PERF_DIFF, 1), ["performance"]);
        let both = format!("{API_DIFF}{PERF_DIFF}");
        assert_eq!(roles(&both, 3), ["api", "performance", "correctness"]);
    }

    #[test]
    fn a_plain_change_gets_correctness_first_then_fillers_in_a_fixed_order() {
        let c = choose(PLAIN_DIFF, 3);
        assert_eq!(c[0].role, Role::Correctness);
        assert_eq!(
            roles(PLAIN_DIFF, 9),
            ["correctness", "security", "tests", "api", "performance"]
        );
        assert!(c[1].why.contains("no security signal"), "{}", c[1].why);
        assert!(choose(PLAIN_DIFF, 0).is_empty());
    }

    #[test]
    fn documentation_counts_for_no_role_and_the_choice_is_deterministic() {
        let doc = "diff --git a/README.md b/README.md\n--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n+export the token with auth for i in loop\n";
        assert_eq!(roles(doc, 1), ["correctness"]);
        assert_eq!(choose(SECURITY_DIFF, 5), choose(SECURITY_DIFF, 5));
    }

    #[test]
    fn line_numbers_follow_the_hunk_headers_on_each_side() {
        let files = parse_diff(TEST_ONLY_DIFF);
        assert_eq!(files.len(), 1);
        assert_eq!(files[0].lines[0].line, 4);
        assert_eq!(files[0].lines[1].line, 4);
        assert!(parse_diff(DELETED_TEST_DIFF)[0].deleted);
        assert!(is_test_path("src/foo_test.go") && is_test_path("web/a.spec.ts"));
        assert!(!is_test_path("src/attest.rs"));
    }
}
