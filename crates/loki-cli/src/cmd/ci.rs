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

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use loki_intake::review::{self, Ci, Request, gated};
use loki_protocol::outcome::ExitCode;
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
    let home = ctx.home().ok().map(PathBuf::as_path);
    review::out::write_out(&out, &json, &rendered.body, &typed, home)?;
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
        anstream::print!("{}", loki_term::checks::results(&report.judged.head));
        anstream::print!("{}", loki_term::seal::check(&report));
        let lines = review::out::judged_lines(&args.gate.fail_on, report.verdict(), &out);
        anstream::print!("{lines}");
    }
    Ok(code)
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
        review::out::append(Path::new(&summary), &format!("{}\n", rendered.summary))?;
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
        let lines = review::out::outputs(&report, conclusion, posted.as_ref());
        review::out::append(Path::new(&file), &lines)?;
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
        let lines =
            review::out::posted_lines(report.verdict, conclusion, &gate.fail_on, posted.as_ref());
        anstream::print!("{lines}");
    }
    Ok(gated(&gate.fail_on, report.verdict))
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
