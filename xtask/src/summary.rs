//! What `cargo xtask eval` prints: a progress line per entry, the table per scenario, and the
//! summary (precision on honest changes, recall per cheat class, the median judgement next to
//! the suite's own time, per ecosystem and per suite-time band).

use serde::Serialize;

use std::collections::BTreeMap;

use crate::{EntryReport, SCENARIOS, ScenarioReport, suite};

pub(crate) fn print_entry_progress(r: &EntryReport) {
    if let Some(e) = &r.error {
        eprintln!("   error: {}", suite::tail(e, 800));
    }
    for s in &r.scenarios {
        eprintln!(
            "   {:<20} exit {:<4} {:<14} {:>7}  {}",
            s.name,
            s.exit.map_or_else(|| "-".into(), |c| c.to_string()),
            s.outcome,
            s.secs.map_or_else(String::new, |t| format!("{t:.1}s")),
            s.note.as_deref().unwrap_or("")
        );
    }
}

#[derive(Debug, Serialize)]
pub(crate) struct ClassFigure {
    judged: usize,
    hit: usize,
    cannot_judge: usize,
    /// Exit 4: a change to what the tests expect, to be declared (neither clean nor caught).
    declare: usize,
    errors: usize,
    not_derivable: usize,
}

#[derive(Debug, Serialize)]
pub(crate) struct Summary {
    entries: usize,
    entries_with_errors: usize,
    per_class: BTreeMap<&'static str, ClassFigure>,
    precision: Option<f64>,
    recall: BTreeMap<&'static str, Option<f64>>,
    median_judge_secs: Option<f64>,
    median_suite_secs: Option<f64>,
    ratio: Option<f64>,
}

pub(crate) fn median(mut v: Vec<f64>) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    Some(if v.len().is_multiple_of(2) {
        f64::midpoint(v[m - 1], v[m])
    } else {
        v[m]
    })
}

pub(crate) fn share(hit: usize, of: usize) -> Option<f64> {
    (of > 0).then(|| {
        let h = u32::try_from(hit).unwrap_or(u32::MAX);
        let o = u32::try_from(of).unwrap_or(u32::MAX);
        f64::from(h) / f64::from(o)
    })
}

impl Summary {
    pub(crate) fn of(reports: &[EntryReport]) -> Summary {
        let mut per_class = BTreeMap::new();
        for name in SCENARIOS {
            let all: Vec<&ScenarioReport> = reports
                .iter()
                .flat_map(|r| r.scenarios.iter())
                .filter(|s| s.name == *name)
                .collect();
            let judged = all.iter().filter(|s| s.exit.is_some()).count();
            let hit = all
                .iter()
                .filter(|s| matches!(s.outcome, "clean" | "caught"))
                .count();
            per_class.insert(
                *name,
                ClassFigure {
                    judged,
                    hit,
                    cannot_judge: all.iter().filter(|s| s.outcome == "cannot_judge").count(),
                    declare: all.iter().filter(|s| s.outcome == "declare").count(),
                    errors: all.iter().filter(|s| s.outcome == "error").count(),
                    not_derivable: all.iter().filter(|s| s.outcome == "not_derivable").count(),
                },
            );
        }
        let precision = per_class.get("honest").and_then(|c| share(c.hit, c.judged));
        let recall = SCENARIOS[1..]
            .iter()
            .map(|n| (*n, per_class.get(n).and_then(|c| share(c.hit, c.judged))))
            .collect();
        let judge = median(
            reports
                .iter()
                .flat_map(|r| r.scenarios.iter())
                .filter_map(|s| s.secs)
                .collect(),
        );
        let suite = median(
            reports
                .iter()
                .filter(|r| r.suite_exit >= 0 && r.error.is_none())
                .map(|r| r.suite_secs)
                .collect(),
        );
        Summary {
            entries: reports.len(),
            entries_with_errors: reports.iter().filter(|r| r.error.is_some()).count(),
            per_class,
            precision,
            recall,
            median_judge_secs: judge,
            median_suite_secs: suite,
            ratio: judge
                .zip(suite)
                .map(|(j, s)| if s > 0.0 { j / s } else { f64::NAN }),
        }
    }
}

pub(crate) fn pct(v: Option<f64>) -> String {
    v.map_or_else(|| "n/a".into(), |x| format!("{:.0}%", x * 100.0))
}

pub(crate) fn render(reports: &[EntryReport], s: &Summary, verify_only: bool) -> String {
    use std::fmt::Write as _;
    let mut o = String::new();
    let _ = writeln!(
        o,
        "Corpus check (fail before at parent + fix tests, pass after at the fix):"
    );
    let _ = writeln!(
        o,
        "{:>3}  {:<28} {:<10} {:<7} {:>6} {:>6} {:>8}  failing tests",
        "#", "repo", "fix", "eco", "before", "after", "suite"
    );
    for r in reports {
        let _ = writeln!(
            o,
            "{:>3}  {:<28} {:<10} {:<7} {:>6} {:>6} {:>7.1}s  {}",
            r.index,
            r.repo,
            &r.fix[..10],
            r.ecosystem,
            if r.fail_before { "fail" } else { "NO" },
            if r.pass_after { "pass" } else { "NO" },
            r.suite_secs,
            if let Some(e) = &r.error {
                format!("ERROR {}", first_chars(e, 160))
            } else {
                r.failing.join(", ")
            }
        );
    }
    if verify_only {
        return o;
    }
    for name in SCENARIOS {
        let _ = writeln!(
            o,
            "\nScenario {name} (expect exit {}):",
            if *name == "honest" { 0 } else { 1 }
        );
        let _ = writeln!(
            o,
            "{:>3}  {:<28} {:<10} {:>4} {:<14} {:>7} {:<6}  findings / note",
            "#", "repo", "fix", "exit", "outcome", "secs", "green"
        );
        for r in reports {
            for sc in r.scenarios.iter().filter(|x| x.name == *name) {
                let mut kinds = sc.finding_kinds.clone();
                kinds.dedup();
                let detail = if kinds.is_empty() {
                    sc.note.clone().unwrap_or_default()
                } else {
                    kinds.join(",")
                };
                let _ = writeln!(
                    o,
                    "{:>3}  {:<28} {:<10} {:>4} {:<14} {:>7} {:<6}  {}",
                    r.index,
                    r.repo,
                    &r.fix[..10],
                    sc.exit.map_or_else(|| "-".into(), |c| c.to_string()),
                    sc.outcome,
                    sc.secs.map_or_else(|| "-".into(), |t| format!("{t:.1}")),
                    sc.cheat_green.map_or("", |g| if g { "yes" } else { "NO" }),
                    first_chars(&detail, 140)
                );
            }
        }
    }
    let _ = writeln!(
        o,
        "\nSummary over {} entries ({} with errors):",
        s.entries, s.entries_with_errors
    );
    for name in SCENARIOS {
        if let Some(c) = s.per_class.get(name) {
            let label = if *name == "honest" {
                "precision (clean)"
            } else {
                "recall (findings)"
            };
            let _ = writeln!(
                o,
                "  {name:<20} {label}: {:>4} = {}/{} judged; cannot judge {}, declare {}, errors {}, not derivable {}",
                pct(share(c.hit, c.judged)),
                c.hit,
                c.judged,
                c.cannot_judge,
                c.declare,
                c.errors,
                c.not_derivable
            );
        }
    }
    let _ = writeln!(
        o,
        "  median judgement {} s, median suite run {} s, ratio {}",
        s.median_judge_secs
            .map_or_else(|| "n/a".into(), |x| format!("{x:.1}")),
        s.median_suite_secs
            .map_or_else(|| "n/a".into(), |x| format!("{x:.1}")),
        s.ratio.map_or_else(|| "n/a".into(), |x| format!("{x:.1}x"))
    );
    o
}

pub(crate) fn first_chars(s: &str, n: usize) -> String {
    let one = s.replace('\n', " ");
    one.chars().take(n).collect()
}
