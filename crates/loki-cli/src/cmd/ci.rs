//! `loki ci judge|post|comment`: a pull or merge request judged in CI
//! ([`loki_intake::review`] is the spec).
//!
//! `judge` runs the change's suites and holds no forge token: it fetches the target branch,
//! judges the checkout against the merge base with a sealed `seal check`, and writes to `--out`:
//! `report.json` (`seal check --json`), `comment.md`, `receipt.json`, `receipt.dsse.json`,
//! `receipt.md`, `events.jsonl` (the log the receipt binds) and `pubkey.pem` (the signing key's
//! public half), so `loki verify receipt.dsse.json --pubkey pubkey.pem` there checks it.
//!
//! `post` holds the token and runs nothing: it reads a report, posts the comment and the check,
//! and in GitHub Actions appends the Markdown to the job summary and `verdict`, `conclusion`,
//! `passed`, `receipt-sha256` and `comment-url` to the step's outputs. A pull request from a
//! fork (whose jobs hold a read-only token) gets no comment or check run: the job summary and
//! the job's status carry the verdict.
//!
//! Both exit by the gate: 0 when the check passes (success or neutral), else the verdict's
//! `seal check` code (1 FINDINGS, 3 CANNOT JUDGE, 4 DECLARE); `judge --no-fail` exits 0 on any
//! verdict, for a pipeline whose `post` gates (the receipt is uploaded between the two).

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use loki_core::outcome::ExitCode;
use loki_intake::review::{self, Ci, Conclusion, FailOn, Request};
use loki_seal::report::Report;

use crate::cli::{CiCommand, CiCommentArgs, CiJudgeArgs, CiName, CiPostArgs};
use crate::cmd::UsageError;
use crate::context::Ctx;

/// How long posting may take, rate-limit waits included.
const POST_DEADLINE: Duration = Duration::from_secs(300);

pub fn run(ctx: &Ctx, cmd: &CiCommand) -> anyhow::Result<ExitCode> {
    match cmd {
        CiCommand::Judge(a) => judge(ctx, a),
        CiCommand::Post(a) => post(ctx, a),
        CiCommand::Comment(a) => comment(ctx, a),
    }
}

fn ci_of(name: Option<CiName>) -> Option<Ci> {
    match name {
        Some(CiName::Github) => Some(Ci::GithubActions),
        Some(CiName::Gitlab) => Some(Ci::GitlabCi),
        None => Ci::detect(),
    }
}

/// The exit code of a verdict under a gate.
fn gated(gate: &FailOn, verdict: loki_core::outcome::Verdict) -> ExitCode {
    match gate.conclusion(verdict) {
        Conclusion::Failure => verdict.exit_code(),
        Conclusion::Success | Conclusion::Neutral => ExitCode::Success,
    }
}

fn judge(ctx: &Ctx, args: &CiJudgeArgs) -> anyhow::Result<ExitCode> {
    let root = ctx.repo()?.root;
    let request = match ci_of(args.ci) {
        Some(ci) => Some(Request::from_env(ci)?),
        None => None,
    };
    let base = match (&args.base, &request) {
        (Some(b), _) => b.clone(),
        (None, Some(r)) => review::fork_point(&root, &args.remote, &r.target)?,
        (None, None) => {
            return Err(UsageError(
                "no pull or merge request here: run in a GitHub Actions pull_request job or a GitLab merge request pipeline (or say which with --ci), or name the revision with --base REV".into(),
            )
            .into());
        }
    };
    let declared = match &args.declared {
        Some(p) => loki_seal::declare::read_file(&ctx.cwd.join(p))?,
        None => Vec::new(),
    };
    let out = args
        .out
        .as_ref()
        .map_or_else(|| root.join(".loki/ci"), |o| ctx.cwd.join(o));
    let opts = crate::cmd::seal::options(ctx, root.join(".loki"))?;
    let task = request.as_ref().map_or_else(
        || format!("loki seal check --base {base}"),
        Request::reference,
    );
    crate::interrupt::left("the change was not judged: nothing was found or cleared");
    let report = loki_seal::check_sealed(&root, &base, &declared, &opts, &task)?;
    let json = report.to_json();
    let typed: Report = serde_json::from_value(json.clone())
        .context("the report does not read back as a report (a bug in loki)")?;
    let rendered = review::render(
        &typed,
        request.as_ref(),
        &args.gate.fail_on,
        &args.gate.name,
    );
    write_out(&out, &json, &rendered.body, &typed, ctx)?;
    let code = if args.no_fail {
        ExitCode::Success
    } else {
        gated(&args.gate.fail_on, report.verdict())
    };
    if ctx.global.json {
        crate::output::json(serde_json::json!({
            "verdict": report.verdict(),
            "conclusion": args.gate.fail_on.conclusion(report.verdict()),
            "fail_on": args.gate.fail_on.keys(),
            "base": base,
            "request": request.as_ref().map(Request::reference),
            "receipt": json.get("receipt"),
            "out": out,
        }));
    } else {
        anstream::print!(
            "{}",
            crate::cmd::checks::render_results(&report.judged.head)
        );
        anstream::print!("{}", loki_term::seal::check(&report));
        anstream::println!(
            "{:<12}{} (fail-on: {})",
            "Check:",
            args.gate.fail_on.conclusion(report.verdict()).github(),
            args.gate.fail_on
        );
        anstream::println!("{:<12}{}", "Report:", out.join("report.json").display());
    }
    Ok(code)
}

/// Writes the report, the comment, the receipt's files and the public key into `out`.
fn write_out(
    out: &Path,
    json: &serde_json::Value,
    comment: &str,
    report: &Report,
    ctx: &Ctx,
) -> anyhow::Result<()> {
    std::fs::create_dir_all(out)
        .with_context(|| format!("cannot create the output directory {}", out.display()))?;
    let text = serde_json::to_string_pretty(json)?;
    loki_core::fs::write_atomic(&out.join("report.json"), format!("{text}\n").as_bytes())?;
    loki_core::fs::write_atomic(&out.join("comment.md"), comment.as_bytes())?;
    let Some(receipt) = &report.receipt else {
        return Ok(());
    };
    for name in [
        "receipt.json",
        "receipt.dsse.json",
        "receipt.md",
        "events.jsonl",
    ] {
        let from = receipt.dir.join(name);
        let bytes =
            std::fs::read(&from).with_context(|| format!("cannot read {}", from.display()))?;
        loki_core::fs::write_atomic(&out.join(name), &bytes)?;
    }
    let signer =
        loki_receipt::Signer::load_or_create(ctx.home()?, &loki_receipt::KeyEnv::from_process())?;
    loki_core::fs::write_atomic(
        &out.join("pubkey.pem"),
        signer.export_public_pem()?.as_bytes(),
    )?;
    Ok(())
}

fn read_report(path: &Path) -> anyhow::Result<Report> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        UsageError(format!(
            "cannot read the report {}: {e} (did `loki ci judge` run and fail before writing it? its log says why)",
            path.display()
        ))
    })?;
    Report::parse(&text).map_err(|e| {
        UsageError(format!(
            "{} is not a `loki seal check --json` report: {e}",
            path.display()
        ))
        .into()
    })
}

fn post(ctx: &Ctx, args: &CiPostArgs) -> anyhow::Result<ExitCode> {
    let report = read_report(&ctx.cwd.join(&args.report))?;
    let ci = ci_of(args.ci).ok_or_else(|| {
        UsageError(
            "not in GitHub Actions or GitLab CI (neither GITHUB_ACTIONS nor GITLAB_CI is true): say which with --ci github|gitlab".into(),
        )
    })?;
    let request = Request::from_env(ci)?;
    let gate = &args.gate;
    let conclusion = gate.fail_on.conclusion(report.verdict);
    let rendered = review::render(&report, Some(&request), &gate.fail_on, &gate.name);
    if let Some(summary) = loki_core::env::GITHUB_STEP_SUMMARY.get_os() {
        append(Path::new(&summary), &format!("{}\n", rendered.summary))?;
    }
    // A fork's jobs hold a read-only token: the verdict stays in the job summary and status.
    let posted = if request.fork {
        anstream::eprintln!(
            "loki ci post: {} comes from a fork, whose jobs get a read-only token: no comment or check run; the verdict is in the job summary and the job's status",
            request.reference()
        );
        None
    } else {
        let deadline = Instant::now() + POST_DEADLINE;
        Some(review::post(
            &request,
            &rendered,
            conclusion,
            &gate.name,
            &loki_intake::Endpoints::from_env(),
            deadline,
        )?)
    };
    if let Some(file) = loki_core::env::GITHUB_OUTPUT.get_os() {
        let url = posted
            .as_ref()
            .and_then(|p| p.comment_url.clone())
            .unwrap_or_default();
        let sha = report
            .receipt
            .as_ref()
            .map(|r| r.receipt_sha256.clone())
            .unwrap_or_default();
        append(
            Path::new(&file),
            &format!(
                "verdict={}\nconclusion={}\npassed={}\nreceipt-sha256={sha}\ncomment-url={url}\n",
                report.verdict.key(),
                conclusion.github(),
                conclusion.passes()
            ),
        )?;
    }
    if ctx.global.json {
        crate::output::json(serde_json::json!({
            "request": request.reference(),
            "verdict": report.verdict,
            "conclusion": conclusion,
            "passed": conclusion.passes(),
            "posted": posted,
        }));
    } else {
        anstream::println!("{:<12}{}", "Verdict:", report.verdict);
        anstream::println!(
            "{:<12}{} (fail-on: {})",
            "Check:",
            conclusion.github(),
            gate.fail_on
        );
        if let Some(p) = &posted {
            let did = if p.comment_created {
                "created"
            } else {
                "updated"
            };
            anstream::println!(
                "{:<12}{did} {}",
                "Comment:",
                p.comment_url.as_deref().unwrap_or("(no address given)")
            );
        }
    }
    Ok(gated(&gate.fail_on, report.verdict))
}

/// Appends `text` to one of the runner's files (`GITHUB_OUTPUT`, `GITHUB_STEP_SUMMARY`): the
/// runner's protocol is appending, so this is not loki's state.
fn append(path: &Path, text: &str) -> anyhow::Result<()> {
    use std::io::Write as _;
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .with_context(|| format!("cannot open {} to append to it", path.display()))?;
    f.write_all(text.as_bytes())
        .with_context(|| format!("cannot append to {}", path.display()))
}

fn comment(ctx: &Ctx, args: &CiCommentArgs) -> anyhow::Result<ExitCode> {
    let report = read_report(&ctx.cwd.join(&args.report))?;
    let rendered = review::render(&report, None, &args.gate.fail_on, &args.gate.name);
    if ctx.global.json {
        crate::output::json(serde_json::json!({
            "body": rendered.body, "title": rendered.title, "summary": rendered.summary,
            "conclusion": args.gate.fail_on.conclusion(report.verdict),
        }));
    } else {
        anstream::print!("{}", rendered.body);
    }
    Ok(ExitCode::Success)
}
