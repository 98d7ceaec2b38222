//! Declarations: intent, said out loud and signed.
//!
//! The judge names changes it cannot read intent from ([`loki_checks::judge::Declarable`]: a test
//! that expects something else now, a test removed with the code it tests). What happens to them
//! is `seal.expectation_changes` ([`Mode`]):
//! - `declare` (default): the stop is refused with the list, each test with its old and new
//!   expectation, and one instruction: restore the test and fix the code, or, if the user asked
//!   for this behaviour, `loki seal declare <test>… --reason "<the user's words>"` and stop again.
//!   A declared change is signed into the receipt and shown to the person.
//! - `allow`: each is a fact shown to the person, never refused.
//! - `refuse`: each is a finding (`expectation_changed`).
//!
//! The other truthful answer is always offered: when the tests contradict the task,
//! `loki seal declare --contradiction <test> --reason "…"` ends the session released NOT VERIFIED,
//! with the contradiction shown to the person and signed into the receipt.
//!
//! # `loki seal declare`
//! Declarations are kept in the worktree's state ([`crate::SealState::declarations`]; `--session`
//! names any session of its lineage, else the worktree of the current directory), until a judged
//! stop lets the agent go (the baseline then moves past them). A name must
//! match a change the last stop listed ([`crate::SealState::pending`]), or, for a contradiction, a
//! test the last stop saw failing or changed: a declaration naming no such test is refused
//! ([`SealError::Undeclarable`]) and nothing is written.
//!
//! # `loki seal check --declared FILE`
//! FILE is JSON, either a list or `{"declarations": [...]}` of
//! `{"test": "<id or name>", "reason": "<why>", "kind": "expectation" | "contradiction"}`
//! (`kind` defaults to `expectation`). The same matching rules apply.

use std::path::Path;

use loki_checks::judge::{Declarable, DeclareKind, Fact, FactKind, Judged, Verdict};
use loki_protocol::{Finding, FindingKind};
use loki_receipt::schema::{Declaration, DeclarationKind};
use serde::Deserialize;

use crate::SealError;

/// What `seal.expectation_changes` says (see the module doc).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Mode {
    #[default]
    Declare,
    Allow,
    Refuse,
}

impl Mode {
    /// The mode of a configuration value (`None`: the default).
    #[must_use]
    pub fn parse(value: Option<&str>) -> Mode {
        match value {
            Some("allow") => Mode::Allow,
            Some("refuse") => Mode::Refuse,
            _ => Mode::Declare,
        }
    }
}

/// Declarations applied to a judgement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied {
    /// The verdict once declarations count.
    pub verdict: Verdict,
    /// The declarations that matched a change (or a contradicted test), with the change's old and
    /// new expectation filled in.
    pub declared: Vec<Declaration>,
    /// Changes nobody declared.
    pub undeclared: Vec<Declarable>,
}

impl Applied {
    /// The contradictions declared.
    pub fn contradictions(&self) -> impl Iterator<Item = &Declaration> {
        self.declared
            .iter()
            .filter(|d| d.kind == DeclarationKind::Contradiction)
    }

    /// The receipt's view: what was declared, and every change still undeclared.
    #[must_use]
    pub fn for_receipt(&self) -> Vec<Declaration> {
        let mut out = self.declared.clone();
        out.extend(self.undeclared.iter().map(|d| Declaration {
            kind: DeclarationKind::Undeclared,
            test: d.test.clone(),
            reason: String::new(),
            was: d.was.clone(),
            now: d.now.clone(),
        }));
        out
    }
}

/// Applies `mode` and `declarations` to `judged`: under `allow` its changes become facts, under
/// `refuse` findings; under `declare` the declared ones are taken out and the rest stay.
pub fn apply(judged: &mut Judged, declarations: &[Declaration], mode: Mode) -> Applied {
    let changes = std::mem::take(&mut judged.declare);
    let mut out = Applied {
        verdict: judged.verdict(),
        declared: Vec::new(),
        undeclared: Vec::new(),
    };
    match mode {
        Mode::Allow => {
            judged.facts.extend(changes.iter().map(|d| Fact {
                kind: FactKind::ExpectationChangeAllowed,
                check: d.check.clone(),
                test: d.test.clone(),
                detail: format!("{} (seal.expectation_changes = \"allow\")", d.detail),
            }));
        }
        Mode::Refuse => {
            judged.findings.extend(changes.iter().map(|d| {
                let mut f = Finding::new(FindingKind::ExpectationChanged, &d.path, &d.detail)
                    .for_test(d.test.clone());
                f.line = d.line;
                f
            }));
        }
        Mode::Declare => {
            for d in changes {
                match declarations
                    .iter()
                    .find(|x| x.kind != DeclarationKind::Contradiction && d.named_by(&x.test))
                {
                    Some(x) => out.declared.push(Declaration {
                        kind: match d.kind {
                            DeclareKind::ExpectationChanged => DeclarationKind::ExpectationChanged,
                            DeclareKind::RemovedWithCode => DeclarationKind::RemovedWithCode,
                        },
                        test: d.test.clone(),
                        reason: x.reason.clone(),
                        was: d.was.clone(),
                        now: d.now.clone(),
                    }),
                    None => out.undeclared.push(d),
                }
            }
        }
    }
    out.declared.extend(
        declarations
            .iter()
            .filter(|x| x.kind == DeclarationKind::Contradiction)
            .cloned(),
    );
    out.declared.sort();
    out.declared.dedup();
    out.verdict = Verdict::of(
        judged.findings.len(),
        out.undeclared.len(),
        judged.cannot_judge.len(),
    );
    out
}

/// The refusal of a stop with undeclared changes: each test with its old and new expectation,
/// the one instruction, and the honest way out.
#[must_use]
pub fn declare_message(undeclared: &[Declarable]) -> String {
    use std::fmt::Write as _;
    let mut s = String::from(
        "loki seal: not done. This change alters what existing tests expect, and intent cannot be read from code:\n",
    );
    for d in undeclared {
        let at = d.line.map(|l| format!(":{l}")).unwrap_or_default();
        let what = match d.kind {
            DeclareKind::ExpectationChanged => "expects something else now",
            DeclareKind::RemovedWithCode => "was removed together with the code it tests",
        };
        let _ = writeln!(s, "- {} ({}{at}) {what}", d.test, d.path);
        for w in &d.was {
            let _ = writeln!(s, "    was: {w}");
        }
        for n in &d.now {
            let _ = writeln!(s, "    now: {n}");
        }
    }
    let names: Vec<&str> = undeclared.iter().map(|d| d.test.as_str()).collect();
    let _ = write!(
        s,
        "Restore these tests and fix the code instead. Only if the user asked for this behaviour, run `loki seal declare {} --reason \"<the user's words>\"` and stop again: the declaration is signed into the receipt and shown to the user.\n{}",
        quote_all(&names),
        HONEST_WAY_OUT
    );
    s
}

/// The other truthful answer, offered with every refusal.
pub const HONEST_WAY_OUT: &str = "If the tests contradict the task (two assertions that cannot both hold, an expectation the task rules out), do not bend the code or the tests to pass: run `loki seal declare --contradiction <test> --reason \"<which requirement it contradicts>\"` and stop. The session then ends NOT VERIFIED and the user sees the contradiction.";

fn quote_all(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| {
            if n.chars()
                .all(|c| c.is_alphanumeric() || "_-./:[]".contains(c))
            {
                (*n).to_owned()
            } else {
                format!("'{}'", n.replace('\'', "'\\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A declaration as a file gives it.
#[derive(Debug, Deserialize)]
struct FileDeclaration {
    test: String,
    #[serde(default)]
    reason: String,
    #[serde(default)]
    kind: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum DeclaredFile {
    List(Vec<FileDeclaration>),
    Object { declarations: Vec<FileDeclaration> },
}

/// Reads `--declared FILE` (see the module doc).
pub fn read_file(path: &Path) -> Result<Vec<Declaration>, SealError> {
    let text = std::fs::read_to_string(path).map_err(|source| SealError::Io {
        action: "read the declarations in",
        path: path.to_path_buf(),
        source,
    })?;
    let bad = |reason: String| SealError::BadDeclarations {
        path: path.to_path_buf(),
        reason,
    };
    let parsed: DeclaredFile = serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?;
    let items = match parsed {
        DeclaredFile::List(v) | DeclaredFile::Object { declarations: v } => v,
    };
    items
        .into_iter()
        .map(|d| {
            let kind = match d.kind.as_deref() {
                None | Some("expectation" | "expectation_changed" | "removed_with_code") => {
                    DeclarationKind::ExpectationChanged
                }
                Some("contradiction") => DeclarationKind::Contradiction,
                Some(other) => {
                    return Err(bad(format!(
                        "declaration of {:?}: kind {other:?} is neither \"expectation\" nor \"contradiction\"",
                        d.test
                    )));
                }
            };
            if d.reason.trim().is_empty() {
                return Err(bad(format!(
                    "declaration of {:?} gives no reason: say why, in the user's words",
                    d.test
                )));
            }
            Ok(Declaration {
                kind,
                test: d.test,
                reason: d.reason,
                was: Vec::new(),
                now: Vec::new(),
            })
        })
        .collect()
}

/// Refuses declarations that name no change of `changes` (a contradiction may also name one of
/// `known`, the tests seen failing or changed).
pub fn check_names(
    declarations: &[Declaration],
    changes: &[Declarable],
    known: &[String],
) -> Result<(), SealError> {
    for d in declarations {
        let matches_change = changes.iter().any(|c| c.named_by(&d.test));
        let matches_known = known
            .iter()
            .any(|k| loki_checks::judge::declare::names_test(k, &d.test));
        let ok = match d.kind {
            DeclarationKind::Contradiction => matches_change || matches_known,
            _ => matches_change,
        };
        if !ok {
            let listed: Vec<&str> = changes.iter().map(|c| c.test.as_str()).collect();
            return Err(SealError::Undeclarable {
                test: d.test.clone(),
                changes: if listed.is_empty() {
                    "none: the last judgement found no changed expectation".into()
                } else {
                    listed.join(", ")
                },
            });
        }
    }
    Ok(())
}

/// The session's first request from its user, from an agent transcript (JSON lines: Claude
/// Code's `{"type":"user","message":{"content":…}}`, Codex's `{"type":"message","role":"user",
/// "content":[{"text":…}]}` and the like), at most [`REQUEST_CHARS`] characters. `None` when the
/// file cannot be read or holds no user text.
#[must_use]
pub fn first_request(transcript: &Path) -> Option<String> {
    use std::io::BufRead as _;
    let file = std::fs::File::open(transcript).ok()?;
    for line in std::io::BufReader::new(file)
        .lines()
        .take(MAX_TRANSCRIPT_LINES)
    {
        let Ok(line) = line else { break };
        let Ok(v) = serde_json::from_str::<serde_json::Value>(&line) else {
            continue;
        };
        let user = v["type"] == "user"
            || v["role"] == "user"
            || v["message"]["role"] == "user"
            || v["payload"]["role"] == "user";
        if !user {
            continue;
        }
        let content = [
            &v["message"]["content"],
            &v["content"],
            &v["payload"]["content"],
        ]
        .into_iter()
        .find(|c| !c.is_null())?;
        let text = text_of(content);
        let text = text.trim();
        // Tool results and hook notes come back as user turns too; the request is prose.
        if text.is_empty() || text.starts_with('<') {
            continue;
        }
        return Some(text.chars().take(REQUEST_CHARS).collect());
    }
    None
}

/// Characters of the user's request kept.
pub const REQUEST_CHARS: usize = 2000;
/// Lines of a transcript read looking for it.
const MAX_TRANSCRIPT_LINES: usize = 5000;

fn text_of(content: &serde_json::Value) -> String {
    match content {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Array(parts) => parts
            .iter()
            .filter(|p| {
                p["type"]
                    .as_str()
                    .is_none_or(|t| t == "text" || t == "input_text")
            })
            .filter_map(|p| p["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// What `loki seal declare` is asked to record.
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    /// `$LOKI_HOME`.
    pub home: &'a Path,
    /// The repository the session works in.
    pub repo_root: &'a Path,
    /// A session of the worktree's lineage, when given; else the worktree of `repo_root`.
    pub session: Option<&'a str>,
    pub tests: &'a [String],
    pub reason: &'a str,
    /// The tests contradict the task (instead of: their change was asked for).
    pub contradiction: bool,
}

/// What `loki seal declare` recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recorded {
    /// The session named, else the one that stopped last in the worktree.
    pub session: String,
    /// Every declaration the worktree's state now holds.
    pub declarations: Vec<Declaration>,
}

/// Records declarations in the state of the worktree (see the module doc): the worktree whose
/// lineage holds `req.session` when one is named, else `req.repo_root`'s. Nothing is written
/// when any name is refused.
pub fn declare(req: &Request<'_>) -> Result<Recorded, SealError> {
    if req.tests.is_empty() {
        return Err(SealError::BadInput(
            "name at least one test to declare".into(),
        ));
    }
    if req.reason.trim().is_empty() {
        return Err(SealError::BadInput(
            "--reason is empty: say why, in the user's words (or which requirement the test contradicts)".into(),
        ));
    }
    let root = match req.session {
        Some(s) => {
            crate::state::worktree_of(req.home, s)?.ok_or_else(|| SealError::NoBaseline {
                session: s.to_owned(),
                path: req.home.join("seal"),
            })?
        }
        None => req.repo_root.to_path_buf(),
    };
    let _lock = crate::state::lock_worktree(req.home, &root)?;
    let mut open = match crate::state::load_open(req.home, &root, req.session)? {
        Some(open) if !open.state.history.is_empty() => open,
        _ => return Err(SealError::NothingToDeclare { repo: root }),
    };
    let state = &mut open.state;
    let kind = if req.contradiction {
        DeclarationKind::Contradiction
    } else {
        DeclarationKind::ExpectationChanged
    };
    let new: Vec<Declaration> = req
        .tests
        .iter()
        .map(|t| Declaration {
            kind,
            test: t.trim().to_owned(),
            reason: req.reason.trim().to_owned(),
            was: Vec::new(),
            now: Vec::new(),
        })
        .collect();
    check_names(&new, &state.pending, &state.known)?;
    for d in new {
        state
            .declarations
            .retain(|x| !(x.test == d.test && x.kind == d.kind));
        state.declarations.push(d);
    }
    let session = match req.session {
        Some(s) => s.to_owned(),
        None => state
            .history
            .iter()
            .rev()
            .find_map(|h| h.session.clone())
            .unwrap_or_else(|| state.session.clone()),
    };
    crate::state::save_open(req.home, &mut open)?;
    Ok(Recorded {
        session,
        declarations: open.state.declarations,
    })
}

#[cfg(test)]
#[expect(clippy::disallowed_methods, reason = "fixtures are written directly")]
mod tests {
    use super::*;

    fn change(test: &str) -> Declarable {
        let mut d = Declarable::new(
            DeclareKind::ExpectationChanged,
            "pytest",
            test,
            format!("what {test} expects changed"),
        );
        d.was = vec!["assert add(2, 2) == 4".into()];
        d.now = vec!["assert add(2, 2) == 5".into()];
        d
    }

    fn decl(test: &str, kind: DeclarationKind) -> Declaration {
        Declaration {
            kind,
            test: test.into(),
            reason: "the user asked for it".into(),
            was: Vec::new(),
            now: Vec::new(),
        }
    }

    #[test]
    fn an_undeclared_change_is_declare_and_a_declared_one_is_clean() {
        let mut j = Judged {
            declare: vec![change("tests/test_a.py::test_add")],
            ..Judged::default()
        };
        let a = apply(&mut j.clone(), &[], Mode::Declare);
        assert_eq!(a.verdict, Verdict::Declare);
        assert_eq!(a.undeclared.len(), 1);
        let a = apply(
            &mut j,
            &[decl("test_add", DeclarationKind::ExpectationChanged)],
            Mode::Declare,
        );
        assert_eq!(a.verdict, Verdict::Clean);
        assert_eq!(a.declared[0].was, ["assert add(2, 2) == 4"]);
        assert_eq!(a.declared[0].reason, "the user asked for it");
    }

    #[test]
    fn allow_makes_facts_and_refuse_makes_findings() {
        let j = Judged {
            declare: vec![change("t::a")],
            ..Judged::default()
        };
        let mut allowed = j.clone();
        assert_eq!(
            apply(&mut allowed, &[], Mode::Allow).verdict,
            Verdict::Clean
        );
        assert_eq!(allowed.facts[0].kind, FactKind::ExpectationChangeAllowed);
        let mut refused = j;
        assert_eq!(
            apply(&mut refused, &[], Mode::Refuse).verdict,
            Verdict::Findings
        );
        assert_eq!(refused.findings[0].kind, FindingKind::ExpectationChanged);
    }

    #[test]
    fn an_open_question_is_never_clean_and_a_declaration_does_not_close_it() {
        let mut j = Judged {
            declare: vec![change("t::a")],
            cannot_judge: vec![loki_checks::judge::CannotJudge {
                check: "pytest".into(),
                reason: "r".into(),
                fix: "f".into(),
            }],
            ..Judged::default()
        };
        let a = apply(
            &mut j,
            &[decl("t::a", DeclarationKind::ExpectationChanged)],
            Mode::Declare,
        );
        assert_eq!(a.verdict, Verdict::CannotJudge);
    }

    #[test]
    fn a_declaration_naming_no_change_is_refused() {
        let changes = [change("tests/test_a.py::test_add")];
        assert!(
            check_names(
                &[decl("test_add", DeclarationKind::ExpectationChanged)],
                &changes,
                &[]
            )
            .is_ok()
        );
        let e = check_names(
            &[decl("test_sub", DeclarationKind::ExpectationChanged)],
            &changes,
            &[],
        )
        .unwrap_err();
        assert!(e.to_string().contains("tests/test_a.py::test_add"), "{e}");
        // A contradiction may name a failing test that has no change to declare.
        let known = vec!["tests/test_a.py::test_impossible".to_owned()];
        assert!(
            check_names(
                &[decl("test_impossible", DeclarationKind::Contradiction)],
                &[],
                &known
            )
            .is_ok()
        );
        assert!(
            check_names(
                &[decl("test_impossible", DeclarationKind::ExpectationChanged)],
                &[],
                &known
            )
            .is_err()
        );
    }

    #[test]
    fn the_refusal_lists_old_and_new_and_offers_both_truthful_answers() {
        let m = declare_message(&[change("tests/test_a.py::test_add")]);
        assert!(m.contains("was: assert add(2, 2) == 4"), "{m}");
        assert!(m.contains("now: assert add(2, 2) == 5"), "{m}");
        assert!(
            m.contains("loki seal declare tests/test_a.py::test_add --reason"),
            "{m}"
        );
        assert!(m.contains("--contradiction"), "{m}");
    }

    #[test]
    fn the_first_request_is_read_from_claude_and_codex_transcripts() {
        let dir = tempfile::tempdir().unwrap();
        let claude = dir.path().join("c.jsonl");
        std::fs::write(
            &claude,
            concat!(
                "{\"type\":\"summary\",\"summary\":\"x\"}\n",
                "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"make add return 5 for 2+2\"}}\n",
                "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"second\"}}\n",
            ),
        )
        .unwrap();
        assert_eq!(
            first_request(&claude).as_deref(),
            Some("make add return 5 for 2+2")
        );
        let codex = dir.path().join("x.jsonl");
        std::fs::write(
            &codex,
            "{\"type\":\"response_item\",\"payload\":{\"type\":\"message\",\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":\"<environment_context>..</environment_context>\"}]}}\n{\"type\":\"response_item\",\"payload\":{\"type\":\"message\",\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":\"fix the parser\"}]}}\n",
        )
        .unwrap();
        assert_eq!(first_request(&codex).as_deref(), Some("fix the parser"));
        assert_eq!(first_request(&dir.path().join("missing")), None);
    }

    #[test]
    fn a_declared_file_is_a_list_or_an_object_and_needs_reasons() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("d.json");
        std::fs::write(&f, r#"{"declarations":[{"test":"t::a","reason":"asked"},{"test":"t::b","reason":"spec says 3","kind":"contradiction"}]}"#).unwrap();
        let d = read_file(&f).unwrap();
        assert_eq!(d[1].kind, DeclarationKind::Contradiction);
        std::fs::write(&f, r#"[{"test":"t::a"}]"#).unwrap();
        assert!(
            read_file(&f)
                .unwrap_err()
                .to_string()
                .contains("gives no reason")
        );
        std::fs::write(&f, "not json").unwrap();
        assert!(read_file(&f).is_err());
    }
}
