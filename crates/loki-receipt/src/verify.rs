//! `loki verify`: checks a sealed receipt, cheapest check first, and stops at the first failure.
//!
//! 1. **parse**: `receipt.json` is JSON with `schema` `loki.receipt/1`. (For an envelope given
//!    alone, the receipt is its signed predicate.)
//! 2. **receipt hash**: `receipt_sha256` equals the hash of the parsed file's canonical form
//!    without it. Any changed value → TAMPERED; reordered keys or reformatting → still intact.
//! 3. **event log**: `events.jsonl` beside it is a valid chain for at least `events.count` lines
//!    and line `count` hashes to `events.head`. Truncated, or a line before the seal edited →
//!    TAMPERED; valid events appended after the seal are fine. A run directory without its log is
//!    TAMPERED; a receipt copied elsewhere without one skips this step and says so.
//!    Then the **screens** (only for a receipt with `evidence.screens`, see
//!    `verify_files.rs`): each listed file, resolved against the directory the receipt is
//!    in (the run directory, where the event log is found), is a regular file reached through no
//!    symbolic link, inside that directory, with the bound size and sha256. Altered, missing, a
//!    symlink, or a path leaving the directory → TAMPERED, naming the file. A receipt copied away
//!    from its run directory skips this step and says so.
//! 4. **signature**: the DSSE envelope's signature over PAE verifies with a trusted key chosen by
//!    keyid. No envelope → UNSIGNED (or skipped with `allow_unsigned`); a key we do not have →
//!    UNCHECKED, never TAMPERED; a signature that fails with a key we have → TAMPERED.
//! 5. **statement**: the signed statement names this receipt's sha256 and its head commit and
//!    tree, and its predicate is this receipt. A mismatch → TAMPERED.
//! 6. **receipt.md** (see `verify_files.rs`): the file beside the receipt has the exact bytes the
//!    signed statement binds. Changed, missing from a run directory, or a symbolic link →
//!    TAMPERED, naming the file (and, when the line that changed can be found, that line).
//!    A statement signed before loki bound `receipt.md` (no such subject), an unsigned receipt
//!    accepted with `--allow-unsigned`, or a receipt copied away without it skip the step and
//!    say so: the file is then not evidence, and an old receipt still verifies.
//! 7. **outcome**: the receipt's verdict is VERIFIED or ALREADY_SATISFIED, else NOT_VERIFIED (4).
//!
//! A `receipt.json` that does not parse was changed if a trusted signature vouches for a receipt
//! beside it (TAMPERED); otherwise there is nothing to compare it with (UNCHECKED). I/O failures,
//! an unreadable or non-Ed25519 `--pubkey` and unknown keys are UNCHECKED: they say nothing about
//! the evidence. Verification never writes anything.

use std::fs;
use std::path::{Path, PathBuf};

use loki_events::{GENESIS, LogStatus, read_events};
use loki_protocol::outcome::VerifyVerdict;
use serde_json::Value;

use crate::ReceiptError;
use crate::builder::{ENVELOPE_FILE, EVENTS_FILE, RECEIPT_FILE};
use crate::dsse::{
    Envelope, GIT_SUBJECT_PREFIX, PAYLOAD_TYPE, PREDICATE_TYPE, STATEMENT_TYPE, SignatureCheck,
    Statement, check_signatures,
};
use crate::keys::{KeyEnv, TrustedKeys};
use crate::report::{Step, StepName, StepStatus, VerifyReport};
use crate::schema::{HASH_FIELD, Receipt, SCHEMA, canonical_bytes, receipt_sha256_of_value};

/// The run run.json marks a directory as a run directory (so a missing log there is suspicious).
const RUN_RECORD_FILE: &str = "run.json";
/// Hex digits of a hash shown in one-line details.
const SHORT_HASH_CHARS: usize = 12;

/// What to verify.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VerifyInput {
    /// A run directory holding `receipt.json`, `receipt.dsse.json`, `events.jsonl`.
    RunDir(PathBuf),
    /// A `receipt.json` or an envelope file (told apart by content).
    File(PathBuf),
}

impl VerifyInput {
    /// A directory is a run directory; anything else a file.
    #[must_use]
    pub fn from_path(path: &Path) -> VerifyInput {
        if path.is_dir() {
            VerifyInput::RunDir(path.to_path_buf())
        } else {
            VerifyInput::File(path.to_path_buf())
        }
    }
}

/// Which keys to trust and whether a missing signature is acceptable.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VerifyOptions {
    /// `$LOKI_HOME` for the current and retired keys (None: environment keys only).
    pub home: Option<PathBuf>,
    /// The key environment.
    pub env: KeyEnv,
    /// `--pubkey FILE`: trust only this key.
    pub pubkey: Option<PathBuf>,
    /// `--allow-unsigned`.
    pub allow_unsigned: bool,
}

/// Where the pieces are.
#[derive(Debug, Default)]
struct Located {
    receipt: Option<PathBuf>,
    envelope: Option<PathBuf>,
    events: Option<PathBuf>,
    run_dir: bool,
    /// The directory the receipt's files are resolved in.
    dir: PathBuf,
    /// The input was an envelope: the receipt is its predicate.
    envelope_input: bool,
}

/// The verdict-deciding failure of a step.
struct Stop {
    verdict: VerifyVerdict,
    reason: String,
    /// The step that failed, when it is not the next of [`StepName::ALL`].
    step: Option<StepName>,
}

fn stop(verdict: VerifyVerdict, reason: impl Into<String>) -> Stop {
    Stop {
        verdict,
        reason: reason.into(),
        step: None,
    }
}

struct Ctx<'a> {
    opts: &'a VerifyOptions,
    report: VerifyReport,
    envelope: Option<(Envelope, Vec<u8>)>,
}

impl Ctx<'_> {
    fn pass(&mut self, name: StepName, detail: impl Into<String>) {
        self.push(name, StepStatus::Pass, detail.into());
    }

    fn skip(&mut self, name: StepName, detail: impl Into<String>) {
        self.push(name, StepStatus::Skip, detail.into());
    }

    fn push(&mut self, name: StepName, status: StepStatus, detail: String) {
        self.report.steps.push(Step {
            name,
            status,
            detail,
        });
    }

    fn trust(&self) -> Result<TrustedKeys, Stop> {
        let keys = match &self.opts.pubkey {
            Some(path) => TrustedKeys::from_pubkey_file(path)
                .map_err(|e| stop(VerifyVerdict::Unchecked, format!("--pubkey: {e}")))?,
            None => TrustedKeys::local(self.opts.home.as_deref(), &self.opts.env).map_err(|e| {
                stop(
                    VerifyVerdict::Unchecked,
                    format!("cannot load the trusted keys: {e}"),
                )
            })?,
        };
        if keys.is_empty() {
            return Err(stop(
                VerifyVerdict::Unchecked,
                "no trusted key: there is no signing key on this machine; pass the signer's public key with --pubkey FILE",
            ));
        }
        Ok(keys)
    }

    /// The envelope and its decoded body, read once.
    fn envelope(&mut self, path: &Path) -> Result<(Envelope, Vec<u8>), Stop> {
        if let Some(e) = &self.envelope {
            return Ok(e.clone());
        }
        let text = fs::read(path).map_err(|e| {
            stop(
                VerifyVerdict::Unchecked,
                format!("cannot read {}: {e}", path.display()),
            )
        })?;
        let env: Envelope = serde_json::from_slice(&text).map_err(|e| {
            stop(
                VerifyVerdict::Tampered,
                format!("{} is not a DSSE envelope: {e}", path.display()),
            )
        })?;
        let body = env.payload_bytes().ok_or_else(|| {
            stop(
                VerifyVerdict::Tampered,
                format!("the payload of {} is not base64", path.display()),
            )
        })?;
        self.envelope = Some((env.clone(), body.clone()));
        Ok((env, body))
    }
}

/// Verifies a receipt. Never fails: every problem is a verdict with a reason.
#[must_use]
pub fn verify(input: &VerifyInput, opts: &VerifyOptions) -> VerifyReport {
    let mut ctx = Ctx {
        opts,
        report: VerifyReport {
            verdict: VerifyVerdict::Verified,
            exit_code: 0,
            reason: None,
            run_id: None,
            receipt_sha256: None,
            keyid: None,
            signer: None,
            outcome: None,
            steps: Vec::new(),
        },
        envelope: None,
    };
    let verdict = run(&mut ctx, input).err();
    let mut report = ctx.report;
    let reported = |steps: &[Step], name: StepName| steps.iter().any(|s| s.name == name);
    if let Some(Stop {
        verdict,
        reason,
        step,
    }) = verdict
    {
        let failed = step.or_else(|| {
            StepName::ALL
                .into_iter()
                .find(|n| !reported(&report.steps, *n))
        });
        if let Some(name) = failed {
            report.steps.push(Step {
                name,
                status: StepStatus::Fail,
                detail: reason.clone(),
            });
        }
        report.verdict = verdict;
        report.reason = Some(reason);
    }
    for name in StepName::ALL {
        if reported(&report.steps, name) {
            continue;
        }
        report.steps.push(Step {
            name,
            status: StepStatus::Skip,
            detail: "not reached".to_string(),
        });
    }
    report.exit_code = report.verdict.exit_status();
    report
}

fn locate(input: &VerifyInput) -> Result<Located, Stop> {
    let existing = |p: PathBuf| p.exists().then_some(p);
    match input {
        VerifyInput::RunDir(dir) => Ok(Located {
            receipt: existing(dir.join(RECEIPT_FILE)),
            envelope: existing(dir.join(ENVELOPE_FILE)),
            events: Some(dir.join(EVENTS_FILE)),
            run_dir: true,
            dir: dir.clone(),
            envelope_input: false,
        }),
        VerifyInput::File(path) => {
            let bytes = fs::read(path).map_err(|e| {
                stop(
                    VerifyVerdict::Unchecked,
                    format!("cannot read {}: {e}", path.display()),
                )
            })?;
            let dir = path
                .parent()
                .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
            let is_envelope = serde_json::from_slice::<Value>(&bytes)
                .ok()
                .is_some_and(|v| v.get("payloadType").is_some());
            let beside = |name: &str| existing(dir.join(name)).filter(|p| p != path);
            Ok(Located {
                receipt: if is_envelope {
                    beside(RECEIPT_FILE)
                } else {
                    Some(path.clone())
                },
                envelope: if is_envelope {
                    Some(path.clone())
                } else {
                    beside(ENVELOPE_FILE)
                },
                events: Some(dir.join(EVENTS_FILE)),
                run_dir: dir.join(RUN_RECORD_FILE).exists(),
                dir,
                envelope_input: is_envelope,
            })
        }
    }
}

fn run(ctx: &mut Ctx<'_>, input: &VerifyInput) -> Result<(), Stop> {
    let loc = locate(input)?;
    let (value, receipt) = parse_step(ctx, &loc)?;
    ctx.report.run_id = Some(receipt.run_id.clone());
    ctx.report.outcome = Some(receipt.verdict);

    // 2. receipt hash
    let stored = value
        .get(HASH_FIELD)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let computed = receipt_sha256_of_value(&value)
        .map_err(|e| stop(VerifyVerdict::Unchecked, e.to_string()))?;
    ctx.report.receipt_sha256 = Some(computed.clone());
    if stored != computed {
        return Err(stop(
            VerifyVerdict::Tampered,
            format!(
                "receipt_sha256 is {} but the receipt hashes to {}: the receipt was changed after sealing",
                short(&stored),
                short(&computed)
            ),
        ));
    }
    ctx.pass(StepName::ReceiptHash, format!("sha256:{computed} matches"));

    // 3. event log, 3b. screens
    event_log_step(ctx, &loc, &receipt)?;
    crate::verify_files::screens_step(&mut ctx.report.steps, &loc.dir, loc.run_dir, &receipt)
        .map_err(|(verdict, reason)| Stop {
            verdict,
            reason,
            step: Some(StepName::Screens),
        })?;

    // 4. signature, 5. statement, 6. receipt.md
    let statement = signature_steps(ctx, &loc, &value, &receipt)?;
    crate::verify_files::markdown_step(
        &mut ctx.report.steps,
        &crate::verify_files::Bound {
            dir: &loc.dir,
            in_run_dir: loc.run_dir,
            receipt: &receipt,
            statement: statement.as_ref(),
            keyid: ctx.report.keyid.as_deref(),
        },
    )
    .map_err(|(verdict, reason)| Stop {
        verdict,
        reason,
        step: Some(StepName::Markdown),
    })?;

    // 7. outcome
    if receipt.verdict.is_success() {
        ctx.pass(
            StepName::Outcome,
            format!("the run's outcome is {}", receipt.verdict),
        );
        Ok(())
    } else {
        Err(stop(
            VerifyVerdict::NotVerified,
            format!(
                "the receipt is intact, but the run's outcome is {}",
                receipt.verdict
            ),
        ))
    }
}

fn parse_step(ctx: &mut Ctx<'_>, loc: &Located) -> Result<(Value, Receipt), Stop> {
    let (value, origin) = match (&loc.receipt, &loc.envelope) {
        (Some(path), _) if !loc.envelope_input => {
            let bytes = fs::read(path).map_err(|e| {
                stop(
                    VerifyVerdict::Unchecked,
                    format!("cannot read {}: {e}", path.display()),
                )
            })?;
            if let Some(name) = crate::dupkeys::first_duplicate(&bytes) {
                return Err(stop(
                    VerifyVerdict::Tampered,
                    format!(
                        "{} names {name} twice in one object: JSON readers disagree on which counts, so the receipt cannot be trusted",
                        path.display()
                    ),
                ));
            }
            match serde_json::from_slice::<Value>(&bytes) {
                Ok(v) => (v, path.display().to_string()),
                Err(e) => {
                    return Err(unparseable(
                        ctx,
                        loc,
                        &format!("{} is not JSON: {e}", path.display()),
                    ));
                }
            }
        }
        (_, Some(env_path)) => {
            let (_, body) = ctx.envelope(env_path)?;
            if let Some(name) = crate::dupkeys::first_duplicate(&body) {
                return Err(stop(
                    VerifyVerdict::Tampered,
                    format!(
                        "the payload of {} names {name} twice in one object",
                        env_path.display()
                    ),
                ));
            }
            let statement: Statement = serde_json::from_slice(&body).map_err(|e| {
                stop(
                    VerifyVerdict::Tampered,
                    format!(
                        "the payload of {} is not an in-toto statement: {e}",
                        env_path.display()
                    ),
                )
            })?;
            (
                statement.predicate,
                format!("the predicate of {}", env_path.display()),
            )
        }
        (_, None) => {
            return Err(stop(
                VerifyVerdict::Unchecked,
                "no receipt.json: the run was not sealed",
            ));
        }
    };
    let schema = value
        .get("schema")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if schema != SCHEMA {
        return Err(unparseable(
            ctx,
            loc,
            &format!("{origin} has schema {schema:?}, not {SCHEMA}"),
        ));
    }
    let receipt: Receipt = match serde_json::from_value(value.clone()) {
        Ok(r) => r,
        Err(e) => {
            return Err(unparseable(
                ctx,
                loc,
                &format!("{origin} is not a valid {SCHEMA} receipt: {e}"),
            ));
        }
    };
    ctx.pass(StepName::Parse, format!("{SCHEMA}, run {}", receipt.run_id));
    Ok((value, receipt))
}

/// A receipt that does not parse: TAMPERED if a trusted signature vouches for the receipt that
/// should be here, UNCHECKED if nothing does.
fn unparseable(ctx: &mut Ctx<'_>, loc: &Located, problem: &str) -> Stop {
    let vouched = loc.envelope.as_ref().is_some_and(|path| {
        let Ok((env, body)) = ctx.envelope(path) else {
            return false;
        };
        let Ok(keys) = ctx.trust() else { return false };
        matches!(
            check_signatures(&env, &body, &keys),
            SignatureCheck::Valid { .. }
        )
    });
    if vouched {
        stop(
            VerifyVerdict::Tampered,
            format!(
                "{problem}; the signed receipt beside it says otherwise: the receipt was changed"
            ),
        )
    } else {
        stop(VerifyVerdict::Unchecked, problem.to_string())
    }
}

fn event_log_step(ctx: &mut Ctx<'_>, loc: &Located, receipt: &Receipt) -> Result<(), Stop> {
    let bound = &receipt.events;
    let path = match &loc.events {
        Some(p) if p.exists() => p.clone(),
        Some(p) if loc.run_dir && bound.count > 0 => {
            return Err(stop(
                VerifyVerdict::Tampered,
                format!(
                    "{} is missing; the receipt binds {} events",
                    p.display(),
                    bound.count
                ),
            ));
        }
        Some(_) | None => {
            ctx.skip(
                StepName::EventLog,
                "no events.jsonl beside the receipt: the event log binding was not checked",
            );
            return Ok(());
        }
    };
    let (events, summary) = read_events(&path, Some(&receipt.run_id)).map_err(|e| {
        stop(
            VerifyVerdict::Unchecked,
            format!("cannot read the event log: {e}"),
        )
    })?;
    if summary.count < bound.count {
        let why = match &summary.status {
            LogStatus::Broken(bad) => format!(
                "line {} of {} is broken before the seal: {}",
                bad.line,
                path.display(),
                bad.reason
            ),
            LogStatus::Intact | LogStatus::Interrupted { .. } => format!(
                "{} has {} valid events, the receipt binds {}: the log was truncated",
                path.display(),
                summary.count,
                bound.count
            ),
        };
        return Err(stop(VerifyVerdict::Tampered, why));
    }
    let head_at_seal = match usize::try_from(bound.count) {
        Ok(0) => GENESIS.to_string(),
        Ok(n) => events
            .get(n - 1)
            .map(|e| e.hash.clone())
            .unwrap_or_default(),
        Err(_) => String::new(),
    };
    if head_at_seal != bound.head {
        return Err(stop(
            VerifyVerdict::Tampered,
            format!(
                "line {} of {} hashes to {}, the receipt binds {}: the log was rewritten",
                bound.count,
                path.display(),
                short(&head_at_seal),
                short(&bound.head)
            ),
        ));
    }
    let mut detail = format!(
        "{} event{} bound, head {} matches",
        bound.count,
        if bound.count == 1 { "" } else { "s" },
        short(&bound.head)
    );
    let after = summary.count - bound.count;
    if after > 0 {
        detail.push_str(&format!(", {after} after the seal"));
    }
    match &summary.status {
        LogStatus::Intact => {}
        LogStatus::Interrupted { torn_bytes } => detail.push_str(&format!(
            ", torn last line of {torn_bytes} bytes after the seal"
        )),
        LogStatus::Broken(bad) => detail.push_str(&format!(
            ", line {} after the seal is broken ({})",
            bad.line, bad.reason
        )),
    }
    ctx.pass(StepName::EventLog, detail);
    Ok(())
}

/// The signature and statement steps; the verified statement, or `None` when an unsigned
/// receipt was accepted.
fn signature_steps(
    ctx: &mut Ctx<'_>,
    loc: &Located,
    value: &Value,
    receipt: &Receipt,
) -> Result<Option<Statement>, Stop> {
    let Some(env_path) = &loc.envelope else {
        return unsigned(ctx, "no receipt.dsse.json");
    };
    let (env, body) = ctx.envelope(env_path)?;
    if env.signatures.is_empty() || !signature_step(ctx, &env, &body)? {
        return unsigned(ctx, "the envelope has no signatures");
    }
    statement_step(ctx, &body, value, receipt).map(Some)
}

/// An unsigned receipt (`what` says why it counts as one): accepted, with both steps skipped,
/// only under `--allow-unsigned`.
fn unsigned(ctx: &mut Ctx<'_>, what: &str) -> Result<Option<Statement>, Stop> {
    if ctx.opts.allow_unsigned {
        ctx.skip(
            StepName::Signature,
            format!("{what}; accepted because of --allow-unsigned"),
        );
        ctx.skip(StepName::Statement, "nothing signed to compare");
        Ok(None)
    } else {
        Err(stop(
            VerifyVerdict::Unsigned,
            format!("{what}: the receipt is not signed (--allow-unsigned accepts it)"),
        ))
    }
}

/// The signature step: whether a trusted key signed the envelope (`false` when it holds no
/// signature after all); a signature that does not verify, or only unknown keys, stops.
fn signature_step(ctx: &mut Ctx<'_>, env: &Envelope, body: &[u8]) -> Result<bool, Stop> {
    let keys = ctx.trust()?;
    match check_signatures(env, body, &keys) {
        SignatureCheck::Valid { keyid, role } => {
            ctx.report.keyid = Some(keyid.clone());
            ctx.report.signer = Some(role);
            if env.payload_type != PAYLOAD_TYPE {
                return Err(stop(
                    VerifyVerdict::Unchecked,
                    format!("payloadType {:?} is not {PAYLOAD_TYPE}", env.payload_type),
                ));
            }
            ctx.pass(
                StepName::Signature,
                format!(
                    "Ed25519 signature by {} ({})",
                    short(&keyid),
                    role.describe()
                ),
            );
            Ok(true)
        }
        SignatureCheck::Invalid { keyid, reason } => {
            ctx.report.keyid = Some(keyid.clone());
            Err(stop(
                VerifyVerdict::Tampered,
                format!("the signature by known key {}: {reason}", short(&keyid)),
            ))
        }
        SignatureCheck::UnknownKey { keyids } => {
            let shown: Vec<String> = keyids
                .iter()
                .map(|k| {
                    if k.is_empty() {
                        "(no keyid)".to_string()
                    } else {
                        k.clone()
                    }
                })
                .collect();
            ctx.report.keyid = keyids.into_iter().next().filter(|k| !k.is_empty());
            Err(stop(
                VerifyVerdict::Unchecked,
                format!(
                    "signed by a key this machine does not trust ({}); pass the signer's public key with --pubkey FILE",
                    shown.join(", ")
                ),
            ))
        }
        SignatureCheck::NoSignatures => Ok(false),
    }
}

/// The statement step: the signed payload is a loki receipt statement whose subjects name this
/// receipt and its commit, and whose predicate is this receipt (`value`).
fn statement_step(
    ctx: &mut Ctx<'_>,
    body: &[u8],
    value: &Value,
    receipt: &Receipt,
) -> Result<Statement, Stop> {
    let statement: Statement = serde_json::from_slice(body).map_err(|e| {
        stop(
            VerifyVerdict::Unchecked,
            format!("the signed payload is not an in-toto statement: {e}"),
        )
    })?;
    if statement.statement_type != STATEMENT_TYPE || statement.predicate_type != PREDICATE_TYPE {
        return Err(stop(
            VerifyVerdict::Unchecked,
            format!(
                "the signed statement is {} / {}, not a loki receipt ({STATEMENT_TYPE} / {PREDICATE_TYPE})",
                statement.statement_type, statement.predicate_type
            ),
        ));
    }
    if !statement.has_digest("sha256", &receipt.receipt_sha256) {
        return Err(stop(
            VerifyVerdict::Tampered,
            format!(
                "the signed statement does not name this receipt (sha256:{})",
                short(&receipt.receipt_sha256)
            ),
        ));
    }
    let head = &receipt.repo.head_sha;
    let git_ok = statement.subject.iter().any(|s| {
        s.digest.get("gitCommit") == Some(head)
            && s.digest.get("gitTree") == Some(&receipt.repo.tree)
    });
    if !git_ok {
        let named: Vec<&str> = statement
            .subject
            .iter()
            .filter_map(|s| s.digest.get("gitCommit").map(String::as_str))
            .collect();
        return Err(stop(
            VerifyVerdict::Tampered,
            format!(
                "the signed statement names commit {}, the receipt's head is {head} (tree {})",
                named.join(", "),
                receipt.repo.tree
            ),
        ));
    }
    let same = canonical_bytes(&statement.predicate).ok() == canonical_bytes(value).ok();
    if !same {
        return Err(stop(
            VerifyVerdict::Tampered,
            "the signed receipt differs from receipt.json",
        ));
    }
    ctx.pass(
        StepName::Statement,
        format!("subjects name receipt sha256:{} and {GIT_SUBJECT_PREFIX}{}; the predicate is this receipt", short(&receipt.receipt_sha256), short(head)),
    );
    Ok(statement)
}

fn short(hash: &str) -> &str {
    hash.get(..SHORT_HASH_CHARS).unwrap_or(hash)
}

/// The envelope of a run, for `loki verify --export-dsse`: refused unless the run verifies
/// (verdict VERIFIED, which implies an outcome of VERIFIED or ALREADY_SATISFIED). Unsigned
/// receipts are never exported, whatever `opts.allow_unsigned` says.
pub fn export_dsse(run_dir: &Path, opts: &VerifyOptions) -> Result<String, ReceiptError> {
    let strict = VerifyOptions {
        allow_unsigned: false,
        ..opts.clone()
    };
    let report = verify(&VerifyInput::RunDir(run_dir.to_path_buf()), &strict);
    if report.verdict != VerifyVerdict::Verified {
        return Err(ReceiptError::ExportRefused {
            verdict: report.verdict,
            reason: report.reason,
        });
    }
    let path = run_dir.join(ENVELOPE_FILE);
    fs::read_to_string(&path).map_err(|e| ReceiptError::io("read", &path, e))
}
