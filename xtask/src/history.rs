//! `cargo xtask history REPO`: the integrity rules alone (no test runs) on upstream history. Every
//! non-merge commit of the repository that changes a file with one of the given extensions is
//! scanned against its first parent, as `loki seal check` scans a change. An upstream commit is a
//! change its maintainers made and reviewed, so every finding is a false-positive candidate of the
//! rules (or, rarely, a real weakening upstream): the report lists each with its commit, and
//! counts commits and findings per kind.
//!
//! The repository is a git directory (a mirror that the search tool's `fetch` brought in, such as
//! `/work/.mirror/jhy+jsoup/repo`) or a work tree; nothing is written to it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::suite;

#[derive(Debug, clap::Args)]
pub struct HistoryArgs {
    /// The repository (a git directory or a work tree).
    repo: PathBuf,
    /// Only commits that change files with this extension (no dot); may repeat.
    #[arg(long = "ext", default_value = "java")]
    exts: Vec<String>,
    /// How many commits to scan, newest first.
    #[arg(long, default_value_t = 300)]
    max: usize,
    /// Where history starts.
    #[arg(long, default_value = "HEAD")]
    rev: String,
}

pub fn run(args: &HistoryArgs) -> anyhow::Result<()> {
    let repo = args.repo.as_path();
    let specs: Vec<String> = args.exts.iter().map(|e| format!("*.{e}")).collect();
    let mut rev_list = vec![
        "rev-list".to_owned(),
        "--no-merges".to_owned(),
        format!("--max-count={}", args.max),
        args.rev.clone(),
        "--".to_owned(),
    ];
    rev_list.extend(specs);
    let listed: Vec<&str> = rev_list.iter().map(String::as_str).collect();
    let commits = suite::must("git", &listed, repo, &[])?;
    let git = loki_git::Git::new(repo);
    let mut by_kind: BTreeMap<String, usize> = BTreeMap::new();
    let (mut scanned, mut flagged) = (0usize, 0usize);
    for commit in commits.lines().map(str::trim).filter(|c| !c.is_empty()) {
        let Some(parent) = first_parent(repo, commit) else {
            continue;
        };
        let input = loki_integrity::scan_input(&git, &parent, commit)?;
        let findings = loki_integrity::scan(&input);
        scanned += 1;
        if !findings.is_empty() {
            flagged += 1;
        }
        for f in &findings {
            *by_kind.entry(f.kind.as_str().to_owned()).or_default() += 1;
            let at = f.line.map_or_else(String::new, |l| format!(":{l}"));
            let detail: String = f.detail.chars().take(160).collect();
            println!(
                "{} {} {}{at} {detail}",
                &commit[..12.min(commit.len())],
                f.kind.as_str(),
                f.path
            );
        }
    }
    println!();
    println!(
        "{scanned} commits scanned, {flagged} with a finding ({:.1}%)",
        percent(flagged, scanned)
    );
    for (kind, n) in &by_kind {
        println!("  {kind:<28} {n}");
    }
    Ok(())
}

fn first_parent(repo: &Path, commit: &str) -> Option<String> {
    let spec = format!("{commit}^");
    let out = suite::must(
        "git",
        &["rev-parse", "--verify", "--quiet", &spec],
        repo,
        &[],
    )
    .ok()?;
    Some(out.trim().to_owned()).filter(|p| !p.is_empty())
}

fn percent(n: usize, of: usize) -> f64 {
    if of == 0 {
        return 0.0;
    }
    #[expect(
        clippy::cast_precision_loss,
        reason = "counts of commits, far below 2^52"
    )]
    let r = n as f64 * 100.0 / of as f64;
    r
}
