//! `loki ci judge|post|comment`: judging pull and merge requests in CI.

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};
use loki_intake::review::FailOn;

#[derive(Debug, Subcommand)]
pub enum CiCommand {
    /// Judge the checkout against the request's target branch (fetched): `seal check` with a
    /// signed receipt, the report and receipt written to --out. Runs the suites; needs no token
    Judge(CiJudgeArgs),
    /// Post a report on the pull or merge request: one comment updated on every push, and a
    /// check run (GitHub) or commit status (GitLab). Exit 0 unless the verdict fails the check
    Post(CiPostArgs),
    /// Print a report's verdict as the Markdown comment `loki ci post` writes
    Comment(CiCommentArgs),
}

/// Which CI system the job runs in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CiName {
    Github,
    Gitlab,
}

/// How the verdict concludes the check.
#[derive(Debug, Args, Clone)]
pub struct GateArgs {
    /// Verdicts that fail the check: findings, declare, cannot_judge (comma-separated), or none
    #[arg(long, value_name = "VERDICTS", default_value = loki_intake::review::DEFAULT_FAIL_ON)]
    pub fail_on: FailOn,
    /// The check's name (the check run's, the commit status's; one comment per name)
    #[arg(long, default_value = "loki")]
    pub name: String,
}

#[derive(Debug, Args, Clone)]
pub struct CiJudgeArgs {
    /// The revision to judge against [default: where the request forked from its target branch]
    #[arg(long, value_name = "REV")]
    pub base: Option<String>,
    /// The remote the target branch is fetched from
    #[arg(long, default_value = "origin")]
    pub remote: String,
    /// Where report.json, comment.md, the receipt and the public key go [default: .loki/ci]
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Declarations of intent (as `loki seal check --declared`)
    #[arg(long, value_name = "FILE")]
    pub declared: Option<PathBuf>,
    /// The CI system [default: from GITHUB_ACTIONS / GITLAB_CI]
    #[arg(long, value_enum)]
    pub ci: Option<CiName>,
    /// Exit 0 whatever the verdict (an error still fails): for a job whose `loki ci post` gates
    #[arg(long)]
    pub no_fail: bool,
    #[command(flatten)]
    pub gate: GateArgs,
}

#[derive(Debug, Args, Clone)]
pub struct CiPostArgs {
    /// The report `loki ci judge` wrote (report.json), or `loki seal check --json`'s output
    #[arg(value_name = "REPORT")]
    pub report: PathBuf,
    /// The CI system [default: from GITHUB_ACTIONS / GITLAB_CI]
    #[arg(long, value_enum)]
    pub ci: Option<CiName>,
    #[command(flatten)]
    pub gate: GateArgs,
}

#[derive(Debug, Args, Clone)]
pub struct CiCommentArgs {
    /// The report (`loki seal check --json`'s output)
    #[arg(value_name = "REPORT")]
    pub report: PathBuf,
    #[command(flatten)]
    pub gate: GateArgs,
}
