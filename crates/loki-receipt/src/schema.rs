//! The receipt `loki.receipt/1` as serde types, and its canonical hash.
//!
//! Field order here is the order of DESIGN.md; it does not matter for the hash, which is taken over
//! the RFC 8785 (JCS) canonical form. Optional fields are omitted, never `null`, so that adding a
//! field to the schema later does not change the hash of receipts that lack it. The one exception
//! is `cost.usd`: always present, a number or `null`, where `null` means "not measured" (never
//! `0`, which would claim the run was free).
//!
//! Every `f64` must be finite: JSON has no NaN or infinity, and serde_json would write them as
//! `null`, which then fails to parse back. [`Receipt::check_finite`] enforces it before hashing.

use loki_core::run::RunKind;
use loki_protocol::outcome::{Outcome, Verdict};
use loki_protocol::{CheckRole, CheckStatus, FactKind};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::ReceiptError;

/// The schema tag every receipt carries.
pub const SCHEMA: &str = "loki.receipt/1";
/// The name of the field the canonical hash leaves out (it holds that hash).
pub const HASH_FIELD: &str = "receipt_sha256";

/// One evidence receipt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Receipt {
    pub schema: String,
    pub run_id: String,
    /// Which producer wrote it: a build run, the seal stop hook, a heal (`loki fix`) run, …
    pub kind: RunKind,
    pub tool: Tool,
    pub task: Task,
    pub repo: RepoState,
    pub diff: DiffStats,
    pub wall: Wall,
    pub checks: Vec<Check>,
    pub integrity: Vec<IntegrityFinding>,
    /// Facts of the judgement that do not change the verdict (tests moved, flaky tests).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub facts: Vec<JudgeFact>,
    /// The judge's verdict on the change (seal and build runs), before the outcome's other rules.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judgement: Option<Verdict>,
    /// What the agent or the person declared about the change (expectations changed on purpose,
    /// tests removed with their code, tests that contradict the task), and the request it answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub declared: Option<Declared>,
    /// Model judgments. Recorded, never evidence: they can only lower the verdict.
    pub assessments: Vec<Assessment>,
    /// What this run did not prove, each with why and the command that would prove it. Never
    /// empty by omission: see [`crate::builder`]; the element format is [`crate::not_proven`].
    pub not_proven: Vec<crate::not_proven::NotProven>,
    /// The run's outcome, decided from the facts above.
    pub verdict: Outcome,
    pub cost: Cost,
    pub time: Time,
    pub provider: String,
    pub model: String,
    /// The revision of the agent's instructions (`.loki/agent/`) the run followed, for runs
    /// driven by loki's instructions (`loki_instructions`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_revision: Option<String>,
    /// The event log as it was when the receipt was sealed.
    pub events: EventsBinding,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contract: Option<Contract>,
    /// Files of the run directory the receipt binds by hash (screenshots of changed pages).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<Evidence>,
    /// For a deep verify (`kind` `deep`): `receipt_sha256` of the main run's receipt, whose run id
    /// and head this receipt shares. The main receipt is never changed by a deep verify.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub main_receipt: Option<String>,
    /// Hex SHA-256 of the JCS form of this receipt without this field.
    pub receipt_sha256: String,
}

/// The program that wrote the receipt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tool {
    pub name: String,
    pub version: String,
}

impl Tool {
    /// `{"name":"loki","version":<this crate's version>}`: the workspace shares one version.
    #[must_use]
    pub fn loki() -> Tool {
        Tool {
            name: "loki".to_string(),
            version: env!("CARGO_PKG_VERSION").to_string(),
        }
    }
}

/// Where the task came from and a digest of its text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Task {
    /// `text`, `github`, `gitlab`, `jira`, `linear`, `spec`, `hook`, `incident`, …
    pub source: String,
    /// Hex SHA-256 of the task text as the agent received it.
    pub sha256: String,
    /// The issue reference or spec path, when there is one.
    #[serde(rename = "ref", default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
}

/// The repository states the run went from and to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RepoState {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<String>,
    pub base_sha: String,
    pub head_sha: String,
    /// The tree object id of `head_sha`.
    pub tree: String,
}

/// The change, as `git diff-tree -r -z --raw --no-renames --no-abbrev <base> <head>` saw it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct DiffStats {
    /// Hex SHA-256 of the `diff-tree` output.
    pub sha256: String,
    pub files: u64,
    pub insertions: u64,
    pub deletions: u64,
}

/// The sealed acceptance checks (the wall) and how they fared on the unchanged base.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Wall {
    pub files: Vec<WallFile>,
    pub base_run: BaseRun,
    /// The wall passed on the final head.
    pub passed: bool,
}

/// One sealed wall file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WallFile {
    pub path: String,
    pub sha256: String,
}

/// Test counts of the wall on the base commit (before any change).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct BaseRun {
    pub pass: u64,
    pub fail: u64,
    pub not_run: u64,
}

/// One check that ran (or was meant to run).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Check {
    pub name: String,
    /// The part it played: `tests`, `wall`, `lint`, `repro`, `boot`, `secrets`,
    /// `replay`.
    pub kind: CheckRole,
    pub cmd: String,
    /// In the receipt's words (`passed`, `timed_out`; see [`loki_protocol::check`]).
    #[serde(with = "loki_protocol::check::receipt_words")]
    pub result: CheckStatus,
    pub executed: u64,
    pub passed: u64,
    pub failed: u64,
    pub skipped: u64,
    pub duration_s: f64,
    /// Hex SHA-256 of the check's log file under `checks/`.
    pub log_sha256: String,
}

impl Check {
    /// A check's `check.result` event as the receipt records it, `kind` being the role it played
    /// there (`tests`, `wall`, `lint`, …): the one mapping of a check's facts into a receipt, so
    /// every producer (suites, lint) maps its result once, into the event.
    #[must_use]
    pub fn of_event(e: &loki_events::payload::CheckResult, kind: CheckRole) -> Check {
        let run = &e.run;
        Check {
            name: run.name.clone(),
            kind,
            cmd: run.cmd.clone(),
            result: run.result,
            executed: run.executed,
            passed: run.passed,
            failed: run.failed,
            skipped: run.skipped,
            duration_s: e.duration_s,
            log_sha256: e.log_sha256.clone(),
        }
    }

    /// No silent pass: a check proves something only when it passed, ran more than zero tests and
    /// none failed (the rule of [`loki_protocol::CheckRun::proves`]).
    #[must_use]
    pub fn proves(&self) -> bool {
        self.result == CheckStatus::Pass && self.executed > 0 && self.failed == 0
    }
}

/// Something the integrity scan found: a test deleted, skipped or weakened, a reverted wall edit.
/// One type with the `integrity.finding` event, so the log and the receipt cannot drift apart:
/// `{kind, path, line?, test?, detail, advice?}`.
pub use loki_events::payload::IntegrityFinding;

/// A fact the judge established that is neither a pass nor a finding, such as a deliberate
/// behaviour change: the original form of a test fails on the new code and its new form fails on
/// the old code.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JudgeFact {
    pub kind: FactKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    pub detail: String,
}

/// The declarations of a run: signed, so a person sees what the agent said it was asked for.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Declared {
    /// The session's first request from its user, read from the agent's transcript, when the
    /// hook gave one (at most 2,000 characters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request: Option<String>,
    pub items: Vec<Declaration>,
}

/// What a declaration says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeclarationKind {
    /// The test's expectation was changed on purpose.
    ExpectationChanged,
    /// The test was removed on purpose, together with the code it tests.
    RemovedWithCode,
    /// The test contradicts the task: it cannot pass with the behaviour asked for. The run is
    /// released NOT VERIFIED.
    Contradiction,
    /// Not yet declared: the judge found the change and nobody declared it.
    Undeclared,
}

impl DeclarationKind {
    /// The serialised name.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            DeclarationKind::ExpectationChanged => "expectation_changed",
            DeclarationKind::RemovedWithCode => "removed_with_code",
            DeclarationKind::Contradiction => "contradiction",
            DeclarationKind::Undeclared => "undeclared",
        }
    }
}

/// One declaration about one test.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Declaration {
    pub kind: DeclarationKind,
    pub test: String,
    /// Why, in the words of whoever declared it (empty for [`DeclarationKind::Undeclared`]).
    pub reason: String,
    /// What the test expected before the change (its lines), when it changed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub was: Vec<String>,
    /// What it expects now.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub now: Vec<String>,
}

/// A model's judgment. It can lower the verdict (`lowers_to`), never raise it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Assessment {
    /// Who judged: `reviewer`, `council:security`, …
    pub by: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    pub summary: String,
    /// PARTIAL or FAILED: the verdict this judgment lowers the run to, if it is worse.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lowers_to: Option<Outcome>,
}

/// Cost of the run. `usd` is `None` (JSON `null`) when any session's cost was unknown.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Cost {
    // Always serialised: null is meaningful ("not measured").
    pub usd: Option<f64>,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_read_tokens: u64,
    pub cache_write_tokens: u64,
    pub measured_sessions: u64,
    pub total_sessions: u64,
}

/// Wall-clock time of the run and of each stage, in the order the stages ran.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Time {
    pub wall_s: f64,
    pub stages: Vec<StageTime>,
}

/// Wall-clock time of one stage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StageTime {
    pub stage: String,
    pub wall_s: f64,
}

/// `{count, head}` of `events.jsonl` when the receipt was sealed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventsBinding {
    pub count: u64,
    pub head: String,
}

/// The delivery contract (acceptance criteria) the run was judged against, when there was one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Contract {
    /// Hex SHA-256 of the contract file the run used (`contract.json` in its run directory).
    pub sha256: String,
    pub criteria: Vec<Criterion>,
}

impl Contract {
    /// Every criterion the verdict depends on (all but the advisory ones) is proven or held.
    #[must_use]
    pub fn all_required_proven(&self) -> bool {
        self.criteria
            .iter()
            .all(|c| c.advisory || c.status.is_met())
    }
}

/// One acceptance criterion and the evidence for it: the sealed wall tests whose names carry its
/// id and that failed on the base, passed on the head and were unchanged since sealed (`proven`),
/// or, for a criterion that asks for existing behaviour to keep working, that passed on the base
/// and on the head (`held`). Evidence, not a match of words: a criterion without such a test is
/// `not_proven`, with the reason.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Criterion {
    pub id: String,
    pub text: String,
    pub status: CriterionStatus,
    /// The ids of the tests that prove or hold it (empty when not proven).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub evidence: Vec<String>,
    /// Why it is not proven.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Accepted unproven by the user (`advisory: true` in the contract): never required.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub advisory: bool,
}

/// Whether a criterion was proven by a test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CriterionStatus {
    /// New behaviour: a wall test failed on the base and passed on the head.
    Proven,
    /// Existing behaviour kept working: a wall test passed on the base and on the head.
    Held,
    NotProven,
}

impl CriterionStatus {
    /// As printed in `receipt.md`.
    #[must_use]
    pub fn describe(self) -> &'static str {
        match self {
            CriterionStatus::Proven => "proven",
            CriterionStatus::Held => "held",
            CriterionStatus::NotProven => "not proven",
        }
    }

    /// Proven or held: the criterion counts for VERIFIED.
    #[must_use]
    pub fn is_met(self) -> bool {
        matches!(self, CriterionStatus::Proven | CriterionStatus::Held)
    }
}

/// Evidence files kept in the run directory and bound by their hashes: `loki verify` reports
/// TAMPERED when one is altered, missing or a symbolic link.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Evidence {
    /// Screenshots of the routes the change touched, in the order they were taken.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub screens: Vec<Screen>,
}

/// The directory of the run that holds the screenshots.
pub const SCREENS_DIR: &str = "screens";

/// One screenshot of a web page the run changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Screen {
    /// The route loaded (`/`, `/about`).
    pub route: String,
    /// The PNG's path relative to the run directory (`screens/01-about.png`).
    pub file: String,
    /// Hex SHA-256 of the PNG.
    pub sha256: String,
    pub bytes: u64,
}

impl Receipt {
    /// Refuses NaN and infinities, which JSON cannot carry.
    pub fn check_finite(&self) -> Result<(), ReceiptError> {
        let mut floats: Vec<(String, f64)> = vec![("time.wall_s".to_string(), self.time.wall_s)];
        floats.extend(self.cost.usd.map(|u| ("cost.usd".to_string(), u)));
        floats.extend(
            self.checks
                .iter()
                .map(|c| (format!("checks[{}].duration_s", c.name), c.duration_s)),
        );
        floats.extend(
            self.time
                .stages
                .iter()
                .map(|s| (format!("time.stages[{}].wall_s", s.stage), s.wall_s)),
        );
        match floats.into_iter().find(|(_, v)| !v.is_finite()) {
            Some((name, v)) => Err(ReceiptError::BadFacts {
                reason: format!("{name} is {v}, but JSON numbers must be finite"),
            }),
            None => Ok(()),
        }
    }

    /// The receipt as a JSON value (all fields, including `receipt_sha256`).
    pub fn to_value(&self) -> Result<serde_json::Value, ReceiptError> {
        serde_json::to_value(self).map_err(|e| ReceiptError::Encode {
            what: "the receipt",
            reason: e.to_string(),
        })
    }

    /// Computes the canonical hash of this receipt (ignoring the stored `receipt_sha256`).
    pub fn compute_sha256(&self) -> Result<String, ReceiptError> {
        self.check_finite()?;
        receipt_sha256_of_value(&self.to_value()?)
    }

    /// Fills `receipt_sha256` with [`Receipt::compute_sha256`].
    pub fn seal_hash(&mut self) -> Result<(), ReceiptError> {
        self.receipt_sha256 = self.compute_sha256()?;
        Ok(())
    }

    /// The receipt as written to `receipt.json`: pretty JSON and a final newline. The bytes on disk
    /// do not matter to the hash; the pretty form is for people reading the file.
    pub fn to_file_bytes(&self) -> Result<Vec<u8>, ReceiptError> {
        let mut bytes = serde_json::to_vec_pretty(self).map_err(|e| ReceiptError::Encode {
            what: "the receipt",
            reason: e.to_string(),
        })?;
        bytes.push(b'\n');
        Ok(bytes)
    }
}

/// The RFC 8785 canonical bytes of a JSON value.
pub fn canonical_bytes(value: &serde_json::Value) -> Result<Vec<u8>, ReceiptError> {
    serde_json_canonicalizer::to_vec(value).map_err(|e| ReceiptError::Encode {
        what: "a JSON value",
        reason: e.to_string(),
    })
}

/// `receipt_sha256` of a receipt given as any JSON object: the hex SHA-256 of the canonical form
/// of the object without its `receipt_sha256` member. Verification hashes the parsed file, not
/// the typed [`Receipt`], so fields this version does not know are covered too.
pub fn receipt_sha256_of_value(value: &serde_json::Value) -> Result<String, ReceiptError> {
    let mut v = value.clone();
    if let Some(obj) = v.as_object_mut() {
        obj.remove(HASH_FIELD);
    }
    Ok(hex::encode(Sha256::digest(canonical_bytes(&v)?)))
}

/// Hex SHA-256 of some bytes (task text, logs).
#[must_use]
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}
