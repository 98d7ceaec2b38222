//! The secret scan of a change: the added lines of `git diff-tree -p -U0 <base> <head>` (new files
//! are all added lines), against a gitleaks-compatible rule set of loki's own.
//!
//! # Rules
//! Provider tokens with a fixed shape (AWS access key ids, GitHub `ghp_`/`gho_`/`ghu_`/`ghs_`/
//! `ghr_`/`github_pat_`, Slack `xox*`, Stripe `sk_live_`/`rk_live_`, Google API `AIza`, PEM
//! private key blocks) are findings wherever they appear. The generic rule is an assignment of a
//! high-entropy literal (Shannon entropy at least [`GENERIC_MIN_ENTROPY`] bits per character, at
//! least 16 characters) to a name containing `secret`, `token`, `api_key`, `apikey`, `password`,
//! `passwd` or `private_key`.
//!
//! # Allowlist
//! A value that reads as a placeholder (`EXAMPLE`, `example`, `dummy`, `fake`, `placeholder`,
//! `changeme`, `your_`, `xxxx`, `<...>`, `${...}`) is never a finding. The generic rule does not
//! apply in test and fixture paths (`test`, `tests`, `spec`, `fixtures`, `testdata`,
//! `__tests__` directories, `test_*` / `*_test.*` / `*.test.*` / `*.spec.*` files), where
//! made-up credentials are the norm; the provider rules still do.
//!
//! # Must never
//! Keep or return the secret's value: a [`SecretFinding`] carries the file, the 1-based line in the
//! head version, the rule and a redacted form (the first characters that name the kind of token,
//! then its length), nothing else.

use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

/// Least entropy (bits per character) of a value the generic rule reports.
pub const GENERIC_MIN_ENTROPY: f64 = 3.5;
/// Shortest value the generic rule reports.
const GENERIC_MIN_LEN: usize = 16;

/// One secret found in the change. Never holds the value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SecretFinding {
    /// Path in the head tree.
    pub path: String,
    /// 1-based line in the head version of `path`.
    pub line: u32,
    /// The rule id (gitleaks' names where gitleaks has the rule).
    pub rule: String,
    /// `ghp_…(40 chars)`: a known prefix and the length, never the value.
    pub redacted: String,
}

/// What the scan looked at and found.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScanReport {
    /// Files with at least one added line scanned.
    pub files: u64,
    /// Added lines scanned.
    pub lines: u64,
    pub findings: Vec<SecretFinding>,
}

struct Rule {
    id: &'static str,
    re: Regex,
    /// Characters of the match kept in the redacted form (the token's kind, never its secret part).
    keep: usize,
}

fn rule(id: &'static str, pattern: &str, keep: usize) -> Option<Rule> {
    // The patterns are constants; one that did not compile would be dropped rather than panic.
    Regex::new(pattern).ok().map(|re| Rule { id, re, keep })
}

static RULES: LazyLock<Vec<Rule>> = LazyLock::new(|| {
    [
        rule(
            "aws-access-token",
            r"\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b",
            4,
        ),
        rule("github-pat", r"\bghp_[0-9A-Za-z]{36}\b", 4),
        rule("github-oauth", r"\bgho_[0-9A-Za-z]{36}\b", 4),
        rule("github-app-token", r"\b(?:ghu|ghs)_[0-9A-Za-z]{36}\b", 4),
        rule("github-refresh-token", r"\bghr_[0-9A-Za-z]{36}\b", 4),
        rule(
            "github-fine-grained-pat",
            r"\bgithub_pat_[0-9A-Za-z_]{82}\b",
            11,
        ),
        rule(
            "slack-token",
            r"\bxox[abposr]-[0-9A-Za-z]{10,48}(?:-[0-9A-Za-z]{1,48})*\b",
            5,
        ),
        rule(
            "stripe-access-token",
            r"\b(?:sk|rk)_live_[0-9A-Za-z]{10,99}\b",
            8,
        ),
        rule("gcp-api-key", r"\bAIza[0-9A-Za-z_\-]{35}\b", 4),
        rule(
            "private-key",
            r"-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----",
            0,
        ),
    ]
    .into_iter()
    .flatten()
    .collect()
});

static GENERIC: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r#"(?i)[a-z0-9_.\-]*(?:secret|token|api_?key|apikey|password|passwd|private_?key)[a-z0-9_.\-]*["']?\s*(?::=|=>|=|:)\s*["'`]([^"'`\s]+)["'`]"#,
    )
    .ok()
});

const PLACEHOLDERS: &[&str] = &[
    "example",
    "dummy",
    "fake",
    "placeholder",
    "changeme",
    "your_",
    "your-",
    "xxxx",
    "redacted",
    "sample",
];

fn is_placeholder(value: &str) -> bool {
    let lower = value.to_ascii_lowercase();
    PLACEHOLDERS.iter().any(|p| lower.contains(p))
        || value.contains("${")
        || value.contains("{{")
        || (value.starts_with('<') && value.ends_with('>'))
}

fn is_test_path(path: &str) -> bool {
    let parts: Vec<&str> = path.split('/').collect();
    let dirs = &parts[..parts.len().saturating_sub(1)];
    let file = parts.last().copied().unwrap_or_default();
    dirs.iter().any(|d| {
        matches!(
            *d,
            "test" | "tests" | "spec" | "specs" | "fixtures" | "fixture" | "testdata" | "__tests__"
        )
    }) || file.starts_with("test_")
        || file.contains("_test.")
        || file.contains(".test.")
        || file.contains(".spec.")
}

/// Shannon entropy of `s` in bits per character.
#[must_use]
pub fn entropy(s: &str) -> f64 {
    let mut counts = [0u32; 256];
    for b in s.bytes() {
        counts[usize::from(b)] += 1;
    }
    let len = f64::from(u32::try_from(s.len()).unwrap_or(u32::MAX));
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = f64::from(c) / len;
            -p * p.log2()
        })
        .sum()
}

fn redact(value: &str, keep: usize) -> String {
    let kept: String = value.chars().take(keep).collect();
    format!("{kept}…({} chars)", value.chars().count())
}

/// Scans one added line of `path` (line `line` in the head version).
pub fn scan_line(path: &str, line: u32, text: &str, out: &mut Vec<SecretFinding>) {
    let before = out.len();
    for r in RULES.iter() {
        for m in r.re.find_iter(text) {
            if is_placeholder(m.as_str()) {
                continue;
            }
            out.push(SecretFinding {
                path: path.to_string(),
                line,
                rule: r.id.to_string(),
                redacted: if r.id == "private-key" {
                    "private key block".to_string()
                } else {
                    redact(m.as_str(), r.keep)
                },
            });
        }
    }
    // A line a provider rule already reported is not reported twice.
    if out.len() > before || is_test_path(path) {
        return;
    }
    let Some(generic) = GENERIC.as_ref() else {
        return;
    };
    for caps in generic.captures_iter(text) {
        let Some(value) = caps.get(1).map(|m| m.as_str()) else {
            continue;
        };
        if value.len() >= GENERIC_MIN_LEN
            && !is_placeholder(value)
            && entropy(value) >= GENERIC_MIN_ENTROPY
        {
            out.push(SecretFinding {
                path: path.to_string(),
                line,
                rule: "generic-api-key".to_string(),
                redacted: redact(value, 0),
            });
        }
    }
}

/// Scans the added lines of a zero-context patch (`git diff-tree -p -U0`, `b/` prefix).
#[must_use]
pub fn scan_patch(patch: &[u8]) -> ScanReport {
    let text = String::from_utf8_lossy(patch);
    let mut report = ScanReport::default();
    let mut path: Option<String> = None;
    let mut next_line: u32 = 0;
    let mut counted_file = false;
    for raw in text.split('\n') {
        if let Some(rest) = raw.strip_prefix("+++ ") {
            path = rest.strip_prefix("b/").map(str::to_string);
            counted_file = false;
            continue;
        }
        if raw.starts_with("diff --git ") || raw.starts_with("--- ") {
            continue;
        }
        if let Some(hunk) = raw.strip_prefix("@@ ") {
            // `@@ -a[,b] +c[,d] @@`: added lines start at c.
            next_line = hunk
                .split(' ')
                .find_map(|t| t.strip_prefix('+'))
                .and_then(|t| t.split(',').next())
                .and_then(|n| n.parse().ok())
                .unwrap_or(0);
            continue;
        }
        if let (Some(added), Some(p)) = (raw.strip_prefix('+'), path.as_deref()) {
            if !counted_file {
                report.files += 1;
                counted_file = true;
            }
            report.lines += 1;
            scan_line(p, next_line, added, &mut report.findings);
            next_line += 1;
        }
    }
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(path: &str, text: &str) -> Vec<SecretFinding> {
        let mut out = Vec::new();
        scan_line(path, 7, text, &mut out);
        out
    }

    /// A pattern that stopped compiling would drop its rule silently: every one must be there.
    #[test]
    fn every_rule_compiles() {
        let ids: Vec<&str> = RULES.iter().map(|r| r.id).collect();
        assert_eq!(ids.len(), 10, "{ids:?}");
        assert!(GENERIC.is_some());
    }

    #[test]
    fn provider_tokens_are_found_and_redacted() {
        let ghp = format!("ghp_{}", "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8");
        let f = one("src/app.py", &format!("TOKEN = \"{ghp}\""));
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].rule, "github-pat");
        assert_eq!(f[0].redacted, "ghp_…(40 chars)");
        assert!(!serde_json::to_string(&f).unwrap().contains(&ghp));
        let aws = one("x.js", "const k = 'AKIAZ7QWERTYUIOPASDF';");
        assert_eq!(aws[0].rule, "aws-access-token");
        assert_eq!(
            one("k.pem", "-----BEGIN RSA PRIVATE KEY-----")[0].rule,
            "private-key"
        );
        let slack = format!("xoxb-{}-{}", "1234567890", "abcdefABCDEF1234");
        assert_eq!(one("a.go", &slack)[0].rule, "slack-token");
        let stripe = format!("sk_live_{}", "4eC39HqLyjWDarjtT1zdp7dc");
        assert_eq!(one("a.rb", &stripe)[0].rule, "stripe-access-token");
        let google = format!("AIza{}", "SyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY");
        assert_eq!(one("a.ts", &google)[0].rule, "gcp-api-key");
    }

    #[test]
    fn generic_assignments_need_entropy_and_a_secret_name() {
        assert_eq!(
            one("settings.py", "API_SECRET = \"q8Zt3vLw9PxR2mKf7Hs1\"")[0].rule,
            "generic-api-key"
        );
        assert!(one("settings.py", "API_SECRET = \"aaaaaaaaaaaaaaaaaaaa\"").is_empty());
        assert!(one("settings.py", "GREETING = \"q8Zt3vLw9PxR2mKf7Hs1\"").is_empty());
        assert!(one("settings.py", "password = os.environ[\"DB_PASSWORD\"]").is_empty());
    }

    #[test]
    fn placeholders_and_test_fixtures_are_allowed() {
        assert!(one("src/a.py", "k = 'AKIAIOSFODNN7EXAMPLE'").is_empty());
        assert!(one("tests/conftest.py", "API_TOKEN = 'q8Zt3vLw9PxR2mKf7Hs1'").is_empty());
        assert!(one("src/a.py", "API_TOKEN = '${API_TOKEN_FROM_ENV_VAR}'").is_empty());
        // A real provider token in a test file is still a leak.
        let ghp = format!("ghp_{}", "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8");
        assert_eq!(one("tests/test_a.py", &ghp).len(), 1);
    }

    #[test]
    fn patch_lines_are_numbered_in_the_head_version() {
        let ghp = format!("ghp_{}", "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8");
        let patch = format!(
            "diff --git a/app.py b/app.py\n--- a/app.py\n+++ b/app.py\n@@ -3,0 +4,2 @@\n+x = 1\n+t = \"{ghp}\"\ndiff --git a/new.txt b/new.txt\nnew file mode 100644\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hello\n"
        );
        let r = scan_patch(patch.as_bytes());
        assert_eq!((r.files, r.lines), (2, 3));
        assert_eq!(r.findings.len(), 1);
        assert_eq!(
            (r.findings[0].path.as_str(), r.findings[0].line),
            ("app.py", 5)
        );
    }
}
