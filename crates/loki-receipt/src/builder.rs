//! Building and sealing a receipt: the one path every producer (build runs, `loki seal`,
//! `loki fix`) uses.
//!
//! # Verdict
//!
//! Facts decide ([`loki_protocol::outcome::decide`]). VERIFIED requires every one of: no tampering,
//! a non-empty diff, at least one check and every check proving something ([`Check::proves`]: it
//! passed, executed more than zero tests, none failed — flaky is not a pass), no integrity
//! finding, for build runs a sealed wall that passed, and with a delivery contract every
//! criterion not marked advisory proven ([`crate::schema::Criterion`]). PARTIAL: a non-empty diff and at least
//! one proving check. Then assessments can only lower: one with `lowers_to` PARTIAL or FAILED
//! moves a VERIFIED / ALREADY_SATISFIED down (or a PARTIAL to FAILED), never anything up, and it
//! never touches BUDGET_STOP, BLOCKED or STALLED, which are facts about the run.
//!
//! # NOT PROVEN
//!
//! Never empty by omission. First the entries every receipt of its kind carries
//! ([`always_not_proven`]; plus [`FULL_SUITE`] when only impacted tests ran), then one entry per
//! gap: each check that did not prove, each skipped test count, each pre-existing failure, each
//! integrity finding, each lowering assessment, each contract criterion not proven (advisory ones
//! too, marked so), a missing or
//! failed wall, an empty diff, unmeasured cost sessions, and what the producer adds.
//!
//! # Sealing
//!
//! [`ReceiptBuilder::seal`] syncs the event log and binds its `{count, head}` *before* appending
//! `receipt.sealed`, so events appended after the seal do not change what the receipt vouches for.
//! It writes `receipt.json`, `receipt.md` and `receipt.dsse.json` atomically, in that order (a crash
//! before the last leaves an intact, unsigned receipt, which `loki verify` reports as UNSIGNED; the
//! envelope comes last so that everything it binds exists once it does).
//! The envelope's statement binds `receipt.md`'s exact bytes (see [`crate::dsse`]).

use std::path::{Path, PathBuf};

use loki_core::fs::write_atomic;
use loki_core::run::RunKind;
use loki_events::EventWriter;
use loki_events::payload::ReceiptSealed;
use loki_protocol::outcome::{Outcome, OutcomeFacts, decide};

use crate::ReceiptError;
use crate::dsse::{Envelope, envelope_with_markdown};
use crate::keys::Signer;
use crate::markdown::{SignatureLine, render_markdown};
use crate::not_proven::NotProven;
use crate::schema::{
    Assessment, Check, Contract, Cost, DeclarationKind, Declared, DiffStats, EventsBinding,
    Evidence, IntegrityFinding, JudgeFact, Receipt, RepoState, SCHEMA, Task, Time, Tool, Wall,
};
use loki_protocol::outcome::Verdict;

/// Listed when only the impacted tests ran, not the whole suite.
pub const FULL_SUITE: &str = "full suite";
/// A build run changes code and runs its tests; it never starts the app or runs a security scanner.
pub const BUILD_ALWAYS_NOT_PROVEN: &[&str] = &["app boot", "security scan"];
/// The seal hook re-runs the suite; what the suite does not test is not proven by it.
pub const SEAL_ALWAYS_NOT_PROVEN: &[&str] = &[
    "behaviour the test suite does not cover",
    "app boot",
    "security scan",
];
/// A heal run proves the recorded reproduction no longer crashes, nothing about other inputs.
pub const HEAL_ALWAYS_NOT_PROVEN: &[&str] = &[
    "inputs other than the recorded reproduction",
    "security scan",
];
/// A deep verify runs the whole suite, boots the app and scans the change for secrets; it does not
/// scan dependencies or code for vulnerabilities, nor secrets already in the repository.
pub const DEEP_ALWAYS_NOT_PROVEN: &[&str] = &["security scan"];
/// Any other producer: no scanner ran.
pub const OTHER_ALWAYS_NOT_PROVEN: &[&str] = &["security scan"];
/// File names a sealed run directory holds.
pub const RECEIPT_FILE: &str = "receipt.json";
/// The DSSE envelope beside it.
pub const ENVELOPE_FILE: &str = "receipt.dsse.json";
/// The human-readable rendering.
pub const MARKDOWN_FILE: &str = "receipt.md";
/// The event log.
pub const EVENTS_FILE: &str = "events.jsonl";

/// The NOT PROVEN entries every receipt of `kind` carries.
#[must_use]
pub fn always_not_proven(kind: RunKind) -> &'static [&'static str] {
    match kind {
        RunKind::Build | RunKind::Quick => BUILD_ALWAYS_NOT_PROVEN,
        RunKind::Seal => SEAL_ALWAYS_NOT_PROVEN,
        RunKind::Heal | RunKind::Incident => HEAL_ALWAYS_NOT_PROVEN,
        RunKind::Improve | RunKind::Ask | RunKind::Checks => OTHER_ALWAYS_NOT_PROVEN,
        RunKind::Deep => DEEP_ALWAYS_NOT_PROVEN,
    }
}

/// Facts about how the run went that are not in the receipt's other fields.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RunFlags {
    /// The wall, the event log or a sealed file was changed behind loki's back.
    pub tampered: bool,
    /// The wall passed on the unchanged base (the gate stage).
    pub already_satisfied: bool,
    /// The run cap or the cost budget was hit.
    pub budget_hit: bool,
    /// The agent reported a specification conflict.
    pub spec_conflict: bool,
    /// The same failure signature was seen three times.
    pub stalled: bool,
    /// The judge could not judge part of the change (a suite that could not run on the base, so
    /// deleted, skipped or weakened tests could not be compared): something VERIFIED depends on is
    /// unproven, so the run is at best PARTIAL. The reasons are in NOT PROVEN.
    pub unjudged: bool,
    /// A signal (Ctrl-C, SIGTERM) stopped the run before it finished: the outcome is
    /// INTERRUPTED and [`ReceiptBuilder::new`] drops every claim derived from half-done state.
    pub interrupted: bool,
}

/// Everything a producer knows when it seals. Build with [`ReceiptFacts::new`] and fill the rest.
#[derive(Debug, Clone, PartialEq)]
pub struct ReceiptFacts {
    pub run_id: String,
    pub kind: RunKind,
    pub tool: Tool,
    pub task: Task,
    pub repo: RepoState,
    pub diff: DiffStats,
    pub wall: Wall,
    pub checks: Vec<Check>,
    pub integrity: Vec<IntegrityFinding>,
    /// Judge facts that do not change the verdict (`test_moved`, `flaky`, ...).
    pub facts: Vec<JudgeFact>,
    /// The judge's verdict on the change, when a judge ran: anything but CLEAN keeps the run
    /// from VERIFIED.
    pub judgement: Option<Verdict>,
    /// Declarations about the change; a contradiction keeps the run from VERIFIED.
    pub declared: Option<Declared>,
    pub assessments: Vec<Assessment>,
    pub cost: Cost,
    pub time: Time,
    pub provider: String,
    pub model: String,
    /// The revision of the agent's instructions the run followed.
    pub agent_revision: Option<String>,
    pub contract: Option<Contract>,
    /// Evidence files in the run directory (screenshots), bound by hash.
    pub evidence: Option<Evidence>,
    /// For a deep verify: `receipt_sha256` of the main run's receipt it is bound to.
    pub main_receipt: Option<String>,
    pub flags: RunFlags,
    /// True when the whole suite ran, not only the impacted tests.
    pub full_suite_ran: bool,
    /// Tests that failed on the base commit too (not caused by this change, not proven either).
    pub pre_existing_failures: Vec<String>,
    /// Producer-specific NOT PROVEN entries, appended as given (each with its why and command).
    pub extra_not_proven: Vec<NotProven>,
}

impl ReceiptFacts {
    /// Facts with everything empty: no diff, no checks, cost not measured.
    #[must_use]
    pub fn new(run_id: impl Into<String>, kind: RunKind) -> ReceiptFacts {
        ReceiptFacts {
            run_id: run_id.into(),
            kind,
            tool: Tool::loki(),
            task: Task {
                source: String::new(),
                sha256: String::new(),
                reference: None,
            },
            repo: RepoState {
                origin: None,
                base_sha: String::new(),
                head_sha: String::new(),
                tree: String::new(),
            },
            diff: DiffStats::default(),
            wall: Wall::default(),
            checks: Vec::new(),
            integrity: Vec::new(),
            facts: Vec::new(),
            judgement: None,
            declared: None,
            assessments: Vec::new(),
            cost: Cost::default(),
            time: Time::default(),
            provider: String::new(),
            model: String::new(),
            agent_revision: None,
            contract: None,
            evidence: None,
            main_receipt: None,
            flags: RunFlags::default(),
            full_suite_ran: false,
            pre_existing_failures: Vec::new(),
            extra_not_proven: Vec::new(),
        }
    }
}

/// What [`ReceiptBuilder::seal`] wrote.
#[derive(Debug, Clone, PartialEq)]
pub struct Sealed {
    pub receipt: Receipt,
    pub envelope: Envelope,
    pub keyid: String,
    pub receipt_path: PathBuf,
    pub envelope_path: PathBuf,
    pub markdown_path: PathBuf,
}

/// Turns facts into a receipt. See the module doc for the rules.
#[derive(Debug, Clone)]
pub struct ReceiptBuilder {
    facts: ReceiptFacts,
}

impl ReceiptBuilder {
    /// Starts from the producer's facts.
    #[must_use]
    pub fn new(mut facts: ReceiptFacts) -> ReceiptBuilder {
        if facts.flags.interrupted {
            drop_claims(&mut facts);
        }
        ReceiptBuilder { facts }
    }

    /// The facts as given.
    #[must_use]
    pub fn facts(&self) -> &ReceiptFacts {
        &self.facts
    }

    /// The run's outcome: facts decide, assessments can only lower.
    #[must_use]
    pub fn verdict(&self) -> Outcome {
        let from_facts = decide(outcome_facts(&self.facts));
        self.facts
            .assessments
            .iter()
            .filter_map(|a| a.lowers_to)
            .fold(from_facts, lower)
    }

    /// The NOT PROVEN list for these facts.
    #[must_use]
    pub fn not_proven(&self) -> Vec<NotProven> {
        crate::not_proven::of_facts(&self.facts)
    }

    /// The receipt for these facts bound to `events`, with its hash filled.
    pub fn build(&self, events: EventsBinding) -> Result<Receipt, ReceiptError> {
        for a in &self.facts.assessments {
            if let Some(to) = a.lowers_to
                && !matches!(to, Outcome::Partial | Outcome::Failed)
            {
                return Err(ReceiptError::BadFacts {
                    reason: format!(
                        "assessment by {} lowers to {to}; an assessment can only lower to PARTIAL or FAILED",
                        a.by
                    ),
                });
            }
        }
        let not_proven = self.not_proven();
        if let Some(bad) = not_proven.iter().find(|n| !n.is_complete()) {
            return Err(ReceiptError::BadFacts {
                reason: format!(
                    "NOT PROVEN entry {:?} does not say why it is not proven and the command that would prove it",
                    bad.what()
                ),
            });
        }
        let f = &self.facts;
        let mut receipt = Receipt {
            schema: SCHEMA.to_string(),
            run_id: f.run_id.clone(),
            kind: f.kind,
            tool: f.tool.clone(),
            task: f.task.clone(),
            repo: f.repo.clone(),
            diff: f.diff.clone(),
            wall: f.wall.clone(),
            checks: f.checks.clone(),
            integrity: f.integrity.clone(),
            facts: f.facts.clone(),
            judgement: f.judgement,
            declared: f.declared.clone(),
            assessments: f.assessments.clone(),
            not_proven,
            verdict: self.verdict(),
            cost: f.cost,
            time: f.time.clone(),
            provider: f.provider.clone(),
            model: f.model.clone(),
            agent_revision: f.agent_revision.clone(),
            events,
            contract: f.contract.clone(),
            evidence: f.evidence.clone(),
            main_receipt: f.main_receipt.clone(),
            receipt_sha256: String::new(),
        };
        receipt.seal_hash()?;
        Ok(receipt)
    }

    /// Binds the event log, writes `receipt.json`, `receipt.md` and `receipt.dsse.json` into
    /// `run_dir`, then appends `receipt.sealed` (data: `receipt_sha256`, `keyid`) to the log.
    pub fn seal(
        &self,
        run_dir: &Path,
        events: &mut EventWriter,
        signer: &Signer,
    ) -> Result<Sealed, ReceiptError> {
        events.sync()?;
        let binding = EventsBinding {
            count: events.count(),
            head: events.head().to_string(),
        };
        let receipt = self.build(binding)?;
        // receipt.md is rendered first: the signed statement binds its exact bytes.
        let markdown = render_markdown(
            &receipt,
            &SignatureLine::Signed {
                keyid: signer.keyid().to_string(),
            },
        );
        let envelope = envelope_with_markdown(&receipt, markdown.as_bytes(), signer)?;
        let receipt_path = run_dir.join(RECEIPT_FILE);
        let envelope_path = run_dir.join(ENVELOPE_FILE);
        let markdown_path = run_dir.join(MARKDOWN_FILE);
        // The envelope last: once it exists, everything it binds is on disk.
        write_atomic(&receipt_path, &receipt.to_file_bytes()?)?;
        write_atomic(&markdown_path, markdown.as_bytes())?;
        write_atomic(&envelope_path, &envelope.to_file_bytes()?)?;
        events.record(&ReceiptSealed {
            receipt_sha256: receipt.receipt_sha256.clone(),
            keyid: signer.keyid().to_string(),
        })?;
        Ok(Sealed {
            receipt,
            envelope,
            keyid: signer.keyid().to_string(),
            receipt_path,
            envelope_path,
            markdown_path,
        })
    }
}

/// What the first NOT PROVEN entry of every interrupted run names.
pub const INTERRUPTED: &str = "interrupted";

/// An interrupted run vouches for the stages that completed (their times, the sealed wall's
/// hashes, the committed diff) and for nothing derived from the state the signal cut: a suite
/// killed mid-run looks like a failure (or, rerun, like a flaky test), a half-written tree like a
/// deleted test. Check results, integrity findings, judge facts and verdict, declarations,
/// assessments, visual evidence, pre-existing failures and contract proofs all go, whatever the
/// producer passed; every criterion becomes not proven.
fn drop_claims(f: &mut ReceiptFacts) {
    f.checks.clear();
    f.integrity.clear();
    f.facts.clear();
    f.judgement = None;
    f.declared = None;
    f.assessments.clear();
    f.evidence = None;
    f.pre_existing_failures.clear();
    f.wall.passed = false;
    f.full_suite_ran = false;
    f.flags.unjudged = false;
    if let Some(c) = &mut f.contract {
        for criterion in &mut c.criteria {
            criterion.status = crate::schema::CriterionStatus::NotProven;
            criterion.evidence.clear();
            criterion.reason = Some("the run was interrupted".to_string());
        }
    }
    // The producer's own entries stay (it says where the signal came and what was tampered
    // with); it must not pass findings of the cut state as entries.
    f.extra_not_proven.insert(
        0,
        NotProven::new(
            INTERRUPTED,
            "a signal (Ctrl-C or SIGTERM) stopped the run before it finished, so nothing it was doing was verified",
            "run the same command again",
        ),
    );
}

pub(crate) fn requires_wall(kind: RunKind) -> bool {
    matches!(kind, RunKind::Build)
}

fn outcome_facts(f: &ReceiptFacts) -> OutcomeFacts {
    let changed = f.diff.files > 0;
    let wall_ok = !requires_wall(f.kind) || (!f.wall.files.is_empty() && f.wall.passed);
    let verified = !f.flags.tampered
        && !f.flags.unjudged
        && changed
        && !f.checks.is_empty()
        && f.checks.iter().all(Check::proves)
        && f.integrity.is_empty()
        && f.judgement.is_none_or(|v| v == Verdict::Clean)
        && !f.declared.as_ref().is_some_and(|d| {
            d.items.iter().any(|i| {
                matches!(
                    i.kind,
                    DeclarationKind::Contradiction | DeclarationKind::Undeclared
                )
            })
        })
        && wall_ok
        && f.contract
            .as_ref()
            .is_none_or(Contract::all_required_proven);
    OutcomeFacts {
        tampered: f.flags.tampered,
        verified,
        already_satisfied: f.flags.already_satisfied,
        budget_hit: f.flags.budget_hit,
        spec_conflict: f.flags.spec_conflict,
        stalled: f.flags.stalled,
        partial: changed && f.checks.iter().any(Check::proves),
        interrupted: f.flags.interrupted,
    }
}

/// Applies one assessment's `lowers_to` to the current outcome; never raises.
fn lower(current: Outcome, to: Outcome) -> Outcome {
    match (current, to) {
        (Outcome::Verified | Outcome::AlreadySatisfied, Outcome::Partial | Outcome::Failed)
        | (Outcome::Partial, Outcome::Failed) => to,
        (
            Outcome::Verified
            | Outcome::AlreadySatisfied
            | Outcome::Partial
            | Outcome::Failed
            | Outcome::BudgetStop
            | Outcome::Blocked
            | Outcome::Stalled
            | Outcome::Interrupted,
            _,
        ) => current,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::CriterionStatus;
    use loki_protocol::CheckStatus;

    fn passing_check(name: &str) -> Check {
        Check {
            name: name.to_string(),
            kind: loki_protocol::CheckRole::Tests,
            cmd: "cargo test".to_string(),
            result: CheckStatus::Pass,
            executed: 3,
            passed: 3,
            failed: 0,
            skipped: 0,
            duration_s: 1.5,
            log_sha256: "0".repeat(64),
        }
    }

    fn verified_facts() -> ReceiptFacts {
        let mut f = ReceiptFacts::new("run_20261129_151736_beef", RunKind::Build);
        f.diff.files = 1;
        f.checks = vec![passing_check("impacted tests")];
        f.wall.files = vec![crate::schema::WallFile {
            path: "tests/wall.rs".to_string(),
            sha256: "1".repeat(64),
        }];
        f.wall.passed = true;
        f
    }

    #[test]
    fn facts_decide_verified() {
        assert_eq!(
            ReceiptBuilder::new(verified_facts()).verdict(),
            Outcome::Verified
        );
    }

    #[test]
    fn each_missing_fact_prevents_verified() {
        type Mutation = Box<dyn Fn(&mut ReceiptFacts)>;
        let cases: Vec<(&str, Mutation)> = vec![
            ("empty diff", Box::new(|f| f.diff.files = 0)),
            ("no checks", Box::new(|f| f.checks.clear())),
            ("zero executed", Box::new(|f| f.checks[0].executed = 0)),
            (
                "flaky",
                Box::new(|f| f.checks[0].result = CheckStatus::Flaky),
            ),
            (
                "not run",
                Box::new(|f| f.checks[0].result = CheckStatus::NotRun),
            ),
            (
                "integrity",
                Box::new(|f| {
                    f.integrity.push(IntegrityFinding {
                        kind: loki_protocol::FindingKind::TestDeleted,
                        path: "t.rs".into(),
                        line: None,
                        test: None,
                        advice: None,
                        detail: String::new(),
                    });
                }),
            ),
            ("wall failed", Box::new(|f| f.wall.passed = false)),
            ("no wall", Box::new(|f| f.wall.files.clear())),
            ("tampered", Box::new(|f| f.flags.tampered = true)),
            // The judge's reasons arrive in `extra_not_proven`, from the producer.
            ("unjudged", Box::new(|f| f.flags.unjudged = true)),
        ];
        for (name, mutate) in cases {
            let mut f = verified_facts();
            mutate(&mut f);
            let b = ReceiptBuilder::new(f);
            assert_ne!(b.verdict(), Outcome::Verified, "{name}");
            assert!(
                b.not_proven().len() > 3 || name == "tampered" || name == "unjudged",
                "{name}: {:?}",
                b.not_proven()
            );
        }
    }

    #[test]
    fn assessments_only_lower() {
        let mut f = verified_facts();
        f.assessments.push(Assessment {
            by: "reviewer".into(),
            model: None,
            summary: "looks wrong".into(),
            lowers_to: Some(Outcome::Partial),
        });
        assert_eq!(ReceiptBuilder::new(f.clone()).verdict(), Outcome::Partial);
        // An assessment cannot raise a failed run.
        let mut failed = f.clone();
        failed.checks[0].result = CheckStatus::Fail;
        failed.assessments = vec![Assessment {
            by: "optimist".into(),
            model: None,
            summary: "fine".into(),
            lowers_to: Some(Outcome::Partial),
        }];
        assert_eq!(ReceiptBuilder::new(failed).verdict(), Outcome::Failed);
        // BUDGET_STOP is a fact about the run, not something a judgment changes.
        assert_eq!(
            lower(Outcome::BudgetStop, Outcome::Failed),
            Outcome::BudgetStop
        );
        // Lowering to VERIFIED is refused at build time.
        f.assessments[0].lowers_to = Some(Outcome::Verified);
        let err = ReceiptBuilder::new(f)
            .build(EventsBinding {
                count: 0,
                head: loki_events::GENESIS.into(),
            })
            .unwrap_err();
        assert!(err.to_string().contains("only lower"), "{err}");
    }

    #[test]
    fn not_proven_always_lists_the_kind_entries_first() {
        let whats = |b: ReceiptBuilder| -> Vec<String> {
            b.not_proven()
                .iter()
                .map(|n| n.what().to_string())
                .collect()
        };
        let np = ReceiptBuilder::new(verified_facts()).not_proven();
        assert_eq!(
            np.iter().map(NotProven::what).collect::<Vec<_>>(),
            vec!["full suite", "app boot", "security scan"]
        );
        // Each says why, and how to prove it: a build's gaps are what `loki deep` proves.
        for n in &np {
            assert!(n.is_complete(), "{n:?}");
            assert_eq!(n.prove(), "loki deep run_20261129_151736_beef", "{n:?}");
        }
        let mut f = verified_facts();
        f.full_suite_ran = true;
        f.checks[0].skipped = 2;
        f.pre_existing_failures.push("tests::old".into());
        f.cost.total_sessions = 2;
        f.cost.measured_sessions = 1;
        let b = ReceiptBuilder::new(f);
        assert!(b.not_proven().iter().all(NotProven::is_complete));
        assert_eq!(
            whats(b),
            vec![
                "app boot",
                "security scan",
                "check impacted tests",
                "pre-existing failure: tests::old",
                "cost"
            ]
        );
    }

    fn criterion(id: &str, status: CriterionStatus, advisory: bool) -> crate::schema::Criterion {
        crate::schema::Criterion {
            id: id.to_string(),
            text: format!("{id} holds"),
            status,
            evidence: if status == CriterionStatus::Proven {
                vec![format!(
                    "loki_wall_x_test.py::test_{}",
                    id.to_lowercase().replace('-', "_")
                )]
            } else {
                Vec::new()
            },
            reason: (status == CriterionStatus::NotProven)
                .then(|| "no wall test names it".to_string()),
            advisory,
        }
    }

    #[test]
    fn verified_needs_every_required_criterion_proven() {
        let mut f = verified_facts();
        f.contract = Some(Contract {
            sha256: "2".repeat(64),
            criteria: vec![
                criterion("AC-1", CriterionStatus::Proven, false),
                criterion("AC-2", CriterionStatus::NotProven, true),
            ],
        });
        let b = ReceiptBuilder::new(f.clone());
        assert_eq!(b.verdict(), Outcome::Verified);
        assert_eq!(
            b.not_proven().last().map(ToString::to_string).as_deref(),
            Some(
                "criterion AC-2 (advisory): AC-2 holds: no wall test names it (prove: loki logs run_20261129_151736_beef)"
            )
        );
        f.contract.as_mut().unwrap().criteria[1].advisory = false;
        let b = ReceiptBuilder::new(f);
        assert_eq!(b.verdict(), Outcome::Partial);
        assert_eq!(
            b.not_proven().last().map(NotProven::what),
            Some("criterion AC-2: AC-2 holds")
        );
    }

    #[test]
    fn a_receipt_without_a_contract_has_no_contract_field() {
        let r = ReceiptBuilder::new(verified_facts())
            .build(EventsBinding {
                count: 0,
                head: loki_events::GENESIS.into(),
            })
            .unwrap();
        let v = r.to_value().unwrap();
        assert!(v.get("contract").is_none(), "{v}");
        let mut f = verified_facts();
        f.contract = Some(Contract {
            sha256: "2".repeat(64),
            criteria: vec![criterion("AC-1", CriterionStatus::Proven, false)],
        });
        let v = ReceiptBuilder::new(f)
            .build(EventsBinding {
                count: 0,
                head: loki_events::GENESIS.into(),
            })
            .unwrap()
            .to_value()
            .unwrap();
        // Optional fields are omitted, never null or false.
        assert_eq!(
            v["contract"]["criteria"][0],
            serde_json::json!({"id": "AC-1", "text": "AC-1 holds", "status": "proven",
                               "evidence": ["loki_wall_x_test.py::test_ac_1"]})
        );
    }

    #[test]
    fn an_entry_without_why_or_command_is_refused_at_sealing() {
        for bad in [
            NotProven::new("app boot", "", "loki deep x"),
            NotProven::new("app boot", "never started", " "),
        ] {
            let mut f = verified_facts();
            f.extra_not_proven.push(bad);
            let err = ReceiptBuilder::new(f)
                .build(EventsBinding {
                    count: 0,
                    head: loki_events::GENESIS.into(),
                })
                .unwrap_err();
            assert!(err.to_string().contains("app boot"), "{err}");
        }
    }

    #[test]
    fn non_finite_numbers_are_refused() {
        let mut f = verified_facts();
        f.time.wall_s = f64::NAN;
        let err = ReceiptBuilder::new(f)
            .build(EventsBinding {
                count: 0,
                head: loki_events::GENESIS.into(),
            })
            .unwrap_err();
        assert!(err.to_string().contains("time.wall_s"), "{err}");
    }

    #[test]
    fn an_entry_noted_twice_is_listed_once_where_it_came_first() {
        let mut f = verified_facts();
        let refused = NotProven::new(
            "network: the CLI agent's commands asked for raw.githubusercontent.com:443 (refused by loki's egress proxy: not the agent's model)",
            "recorded by the run as it happened (the log has the detail)",
            "loki logs run_x",
        );
        let other = NotProven::new("wall file discarded: x", "why", "loki logs run_x");
        f.extra_not_proven = vec![refused.clone(), other.clone(), refused.clone()];
        let all = ReceiptBuilder::new(f).not_proven();
        assert_eq!(all.iter().filter(|n| **n == refused).count(), 1, "{all:#?}");
        let at = |n: &NotProven| all.iter().position(|x| x == n);
        assert!(at(&refused) < at(&other), "{all:#?}");
    }
}
