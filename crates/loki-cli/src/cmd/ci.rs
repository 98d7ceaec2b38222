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

use std::path::PathBuf;
use std::time::{Duration, Instant};

use loki_intake::review::{self, Ci, Request, gated};
use loki_protocol::outcome::ExitCode;

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
    let judging = review::judge::prepare(&review::judge::Ask {
        root: &root,
        cwd: &ctx.cwd,
        ci: ci_of(args.ci),
        base: args.base.as_deref(),
        remote: &args.remote,
        declared: args.declared.as_deref(),
        out: args.out.as_deref(),
    })?;
    let opts = crate::cmd::seal::options(ctx, root.join(".loki"))?;
    crate::interrupt::left("the change was not judged: nothing was found or cleared");
    let gate = (&args.gate.fail_on, args.gate.name.as_str());
    let home = ctx.home().ok().map(PathBuf::as_path);
    let judged = judging.judge(&root, &opts, gate, home, args.no_fail)?;
    let json = judging.summary_json(&judged, &args.gate.fail_on);
    let text = loki_term::ci::judged(&judged.report, &args.gate.fail_on, &judging.out);
    crate::output::print(ctx.global.json, json, text);
    Ok(judged.code)
}

fn post(ctx: &Ctx, args: &CiPostArgs) -> anyhow::Result<ExitCode> {
    let report = review::judge::read_report(&ctx.cwd.join(&args.report))?;
    let ci = ci_of(args.ci).ok_or_else(|| {
        UsageError(
            "not in GitHub Actions or GitLab CI (neither GITHUB_ACTIONS nor GITLAB_CI is true): say which with --ci github|gitlab".into(),
        )
    })?;
    let request = Request::from_env(ci)?;
    let gate = &args.gate;
    // A fork's jobs hold a read-only token: the verdict stays in the job summary and status.
    let on_fork = |request: &Request| anstream::eprintln!("{}", loki_term::ci::from_fork(request));
    let deadline = Instant::now() + POST_DEADLINE;
    let gated_by = (&gate.fail_on, gate.name.as_str());
    let review::judge::PostedReport { conclusion, posted } =
        review::judge::post_report(&report, &request, gated_by, deadline, on_fork)?;
    let json = serde_json::json!({"request": request.reference(), "verdict": report.verdict,
        "conclusion": conclusion, "passed": conclusion.passes(), "posted": posted});
    let text =
        loki_term::ci::posted_lines(report.verdict, conclusion, &gate.fail_on, posted.as_ref());
    crate::output::print(ctx.global.json, json, text);
    Ok(gated(&gate.fail_on, report.verdict))
}

fn comment(ctx: &Ctx, args: &CiCommentArgs) -> anyhow::Result<ExitCode> {
    let report = review::judge::read_report(&ctx.cwd.join(&args.report))?;
    let rendered = review::render(&report, None, &args.gate.fail_on, &args.gate.name);
    let json = serde_json::json!({
        "body": rendered.body, "title": rendered.title, "summary": rendered.summary,
        "conclusion": args.gate.fail_on.conclusion(report.verdict),
    });
    crate::output::show(ctx.global.json, json, &rendered.body)
}
