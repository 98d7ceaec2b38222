//! Test runs and how a change weakened them: the comparison shared by CI workflows and by test
//! scripts in configuration (`package.json` scripts, cargo aliases, tox commands).
//!
//! A [`Side`] lists every test command a file runs ([`Run`]: the command, where (job and step),
//! its environment and directory, the gates that stop it running or failing, and the shell-level
//! [`Fate`] of its failure), plus "ghosts": test commands that are only an argument of `echo` /
//! `printf` / `:` / `true`, or commented out. [`compare`] pairs base runs with head runs (same
//! job and command first, then the same command anywhere, then the same tool, then the same
//! family, so moved, renamed and reordered steps still pair) and reports, for every base run that
//! could fail at base:
//! - no head partner: removed (or turned into an `echo` argument / a comment, named as such); a
//!   whole job gone is one finding; a command merged into a broader one of the same tool (more
//!   paths, fewer filters) is covered, while the same command left in another job is not (the
//!   platform or setup it ran on is gone);
//! - a head gate (`if: false`, `continue-on-error: true`, `when: manual`, ...): one finding per gate
//!   listing the commands it affects;
//! - a head fate that swallows the failure or never reaches the command;
//! - narrower arguments or environment ([`testcmd::compare_args`], [`testcmd::env_changes`]), a
//!   directory deeper than before, or `cargo test` replaced by nextest with no doctest run left.
//!
//! Runs that were already gated or could not fail at base prove nothing, so nothing is reported
//! about them; added runs are never findings.

use std::collections::{BTreeMap, BTreeSet};

use crate::shell::{self as shell, Fate, Opts, Resolver};
use crate::testcmd;
use crate::testcmd::{Cat, Change, Mode, TestCmd};

/// A condition outside the command that stops it running or failing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Gate {
    pub cat: Cat,
    /// What it is, e.g. "`continue-on-error: true`".
    pub why: String,
    /// What it applies to, e.g. "job `test`": gates with the same label and reason are one finding.
    pub label: String,
    pub line: Option<u32>,
}

#[derive(Debug, Clone)]
pub struct Run {
    /// Stable id of the job (or script) the run belongs to, for pairing.
    pub job: String,
    /// Where it is, in words: "job `test`, step `Run tests`".
    pub place: String,
    pub cmd: TestCmd,
    pub fate: Fate,
    pub gates: Vec<Gate>,
    pub env: BTreeMap<String, String>,
    pub cwd: String,
    pub line: Option<u32>,
}

impl Run {
    /// Whether this run can fail CI: reached, not gated, failure not swallowed.
    fn effective(&self) -> bool {
        self.gates.is_empty() && matches!(self.fate, Fate::Propagates | Fate::Unknown)
    }
}

/// A test command that is only text: an argument of `echo`, or a comment.
#[derive(Debug, Clone)]
pub struct Ghost {
    pub job: String,
    pub tool: String,
    pub how: String,
    pub line: Option<u32>,
}

/// Everything one version of a file runs.
#[derive(Debug, Clone, Default)]
pub struct Side {
    pub runs: Vec<Run>,
    pub ghosts: Vec<Ghost>,
    /// Job id → label and line, for jobs that exist on this side.
    pub jobs: BTreeMap<String, (String, Option<u32>)>,
    /// Where a removed job is reported (the `jobs:` line).
    pub jobs_line: Option<u32>,
}

/// One finding of [`compare`], before it gets a kind and a path.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Hit {
    pub line: Option<u32>,
    pub detail: String,
}

/// A script and where its lines are in the file.
#[derive(Debug, Clone, Default)]
pub struct Src {
    pub text: String,
    /// File line of each script line.
    pub lines: Vec<Option<u32>>,
}

impl Src {
    pub fn one(text: &str, line: Option<u32>) -> Src {
        Src {
            text: text.to_owned(),
            lines: vec![line],
        }
    }

    /// Appends `text` whose first line is at file line `first` (later lines follow on when
    /// `literal`, as in a `|` block scalar, else they all map to `first`).
    pub fn push(&mut self, text: &str, first: Option<u32>, literal: bool) {
        if !self.text.is_empty() && !self.text.ends_with('\n') {
            self.text.push('\n');
        }
        for (k, _) in text.split('\n').enumerate() {
            let k = u32::try_from(k).unwrap_or(0);
            self.lines
                .push(if literal { first.map(|f| f + k) } else { first });
        }
        self.text.push_str(text);
    }

    fn line_at(&self, offset: usize) -> Option<u32> {
        let k = self
            .text
            .get(..offset)
            .map_or(0, |t| t.matches('\n').count());
        self.lines.get(k).or(self.lines.last()).copied().flatten()
    }
}

/// Where a script runs, for [`script_runs`].
#[derive(Debug, Clone, Default)]
pub struct Ctx {
    pub job: String,
    pub place: String,
    pub gates: Vec<Gate>,
    pub env: BTreeMap<String, String>,
    pub cwd: String,
    pub opts: Opts,
    /// Set when nothing the script does can fail its job (GitLab `after_script`).
    pub cannot_fail: Option<String>,
}

const TEXT_ONLY: &[&str] = &["echo", "printf", ":", "true"];

/// Test commands per script whose fate is simulated; the rest (a generated script) are taken as
/// able to fail, so a huge script cannot cost the seal its time budget.
const MAX_SIMULATED: usize = 256;

/// `dir/rel` for `cd`, or `None` when it cannot be known statically.
fn cd(cwd: &str, to: &str) -> Option<String> {
    if to.contains('$') || to == "-" || to.starts_with('~') {
        return None;
    }
    if to.starts_with('/') {
        return Some(to.to_owned());
    }
    Some(crate::shell::join(cwd, to))
}

/// The command word with the environment's value when it is a variable (`${{ env.CARGO }} test`,
/// `$CARGO test`), so a tool chosen through the environment is still recognised.
fn expand_command(words: &[String], env: &BTreeMap<String, String>) -> Vec<String> {
    let mut out = words.to_vec();
    if let Some(first) = out.first_mut() {
        let name = first
            .strip_prefix("${{")
            .and_then(|r| r.strip_suffix("}}"))
            .map(str::trim)
            .and_then(|r| r.strip_prefix("env."))
            .or_else(|| first.strip_prefix("${").and_then(|r| r.strip_suffix('}')))
            .or_else(|| first.strip_prefix('$'));
        if let Some(v) = name.and_then(|n| env.get(n.trim())) {
            let mut expanded = shell::split_words(v);
            if !expanded.is_empty() {
                expanded.extend(out.drain(1..));
                return expanded;
            }
        }
    }
    out
}

/// The test runs and ghosts of one script.
pub fn script_runs(src: &Src, ctx: &Ctx, resolve: Option<Resolver<'_>>, side: &mut Side) {
    let script = shell::parse(&src.text, resolve);
    let simples = script.list.simples();
    let tests: Vec<(&shell::Simple, TestCmd)> = simples
        .iter()
        .filter_map(|s| {
            let words = expand_command(&s.words, &ctx.env);
            testcmd::identify(&words, &s.assigns).map(|c| (*s, c))
        })
        .collect();
    let ids: BTreeSet<usize> = tests.iter().map(|(s, _)| s.id).collect();
    // The directory each command runs in, after the `cd`s before it in script order
    // (approximate: subshells are not scoped).
    let mut dirs: BTreeMap<usize, Option<String>> = BTreeMap::new();
    let mut dir = Some(ctx.cwd.clone());
    for c in &simples {
        dirs.insert(c.id, dir.clone());
        if c.words.first().map(String::as_str) == Some("cd") {
            dir = match (dir, c.words.get(1)) {
                (Some(d), Some(to)) => cd(&d, to),
                (_, None) => Some(String::new()),
                (None, _) => None,
            };
        }
    }
    for (k, (s, cmd)) in tests.into_iter().enumerate() {
        let cwd = dirs.get(&s.id).cloned().flatten();
        let fate = match &ctx.cannot_fail {
            Some(why) => Fate::Swallowed(why.clone()),
            None if k >= MAX_SIMULATED => Fate::Unknown,
            None => shell::fate(&script, s.id, ctx.opts, &ids),
        };
        let mut env = ctx.env.clone();
        env.extend(cmd.env.iter().cloned());
        side.runs.push(Run {
            job: ctx.job.clone(),
            place: ctx.place.clone(),
            fate,
            gates: ctx.gates.clone(),
            env,
            cwd: cwd.unwrap_or_else(|| "?".into()),
            line: src.line_at(s.offset),
            cmd,
        });
    }
    for s in &simples {
        let Some(first) = s.words.first().filter(|w| TEXT_ONLY.contains(&w.as_str())) else {
            continue;
        };
        let text = s.words[1..].join(" ");
        if let Some(c) = testcmd::identify(&shell::split_words(&text), &[]) {
            side.ghosts.push(Ghost {
                job: ctx.job.clone(),
                tool: c.tool,
                how: format!("is now only an argument of `{first}`"),
                line: src.line_at(s.offset),
            });
        }
    }
    for (off, text) in &script.comments {
        if let Some(c) = testcmd::identify(&shell::split_words(text), &[]) {
            side.ghosts.push(Ghost {
                job: ctx.job.clone(),
                tool: c.tool,
                how: "is commented out".into(),
                line: src.line_at(*off),
            });
        }
    }
}

/// At most 80 characters of a command, for details.
pub fn short(cmd: &str) -> String {
    let one_line = cmd.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() > 80 {
        one_line.chars().take(77).collect::<String>() + "..."
    } else {
        one_line
    }
}

fn join_cmds(cmds: &BTreeSet<String>) -> String {
    cmds.iter()
        .map(|c| format!("`{c}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn within(head: &str, base: &str) -> bool {
    let (h, b) = (head.trim_matches('/'), base.trim_matches('/'));
    h != b && h != "?" && b != "?" && (b.is_empty() || b == "." || h.starts_with(&format!("{b}/")))
}

/// Gate (label, reason, category) → its line and the commands it stops.
type Gated = BTreeMap<(String, String, Cat), (Option<u32>, BTreeSet<String>)>;

/// The weakenings from `base` to `head` (see the module doc).
pub fn compare(base: &Side, head: &Side, mode: Mode) -> Vec<Hit> {
    let pair = pair_runs(base, head);
    let doctests = has_doctests(head);
    let mut out = Vec::new();
    // Gate → (line, commands); removed job → commands.
    let mut gated: Gated = BTreeMap::new();
    let mut gone: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (i, b) in base.runs.iter().enumerate() {
        if !b.effective() {
            continue;
        }
        match pair[i] {
            None => unpaired(b, head, mode, &mut out, &mut gone),
            Some(j) => paired(b, &head.runs[j], mode, doctests, &mut out, &mut gated),
        }
    }
    for ((label, why, cat), (line, cmds)) in gated {
        let verb = match cat {
            Cat::NeverRuns => "never runs",
            Cat::CannotFail => "can no longer fail",
            Cat::Narrowed => "runs fewer tests",
        };
        out.push(Hit {
            line,
            detail: format!("{label} {verb}: {why}; it runs {}", join_cmds(&cmds)),
        });
    }
    for (job, cmds) in gone {
        let label = base
            .jobs
            .get(&job)
            .map_or_else(|| format!("`{job}`"), |(l, _)| l.clone());
        out.push(Hit {
            line: head.jobs_line,
            detail: format!("{label} was removed; it ran {}", join_cmds(&cmds)),
        });
    }
    out.sort();
    out.dedup();
    out
}

/// Each base run's head run, most alike first: same job and command, the same command
/// elsewhere, the same arguments to a tool of the same family (`cargo test` → `cargo nextest
/// run`), then the same tool, then the same family. Each head run pairs at most once.
fn pair_runs(base: &Side, head: &Side) -> Vec<Option<usize>> {
    type Key = fn(&Run) -> String;
    let keys: [Key; 8] = [
        |r| format!("{}\0{}", r.job, r.cmd.key()),
        |r| r.cmd.key(),
        |r| format!("{}\0{}\0{}", r.job, r.cmd.family, r.cmd.args.join(" ")),
        |r| format!("{}\0{}", r.cmd.family, r.cmd.args.join(" ")),
        |r| format!("{}\0{}", r.job, r.cmd.tool),
        |r| r.cmd.tool.clone(),
        |r| format!("{}\0{}", r.job, r.cmd.family),
        |r| r.cmd.family.to_owned(),
    ];
    let mut pair: Vec<Option<usize>> = vec![None; base.runs.len()];
    let mut used = vec![false; head.runs.len()];
    for key in keys {
        for (i, b) in base.runs.iter().enumerate() {
            if pair[i].is_some() {
                continue;
            }
            let kb = key(b);
            if let Some(j) = (0..head.runs.len()).find(|&j| !used[j] && key(&head.runs[j]) == kb) {
                pair[i] = Some(j);
                used[j] = true;
            }
        }
    }
    pair
}

/// Whether the head still runs doctests: `cargo test` does unless it selects other targets
/// (`--lib`, `--tests`, ...).
fn has_doctests(head: &Side) -> bool {
    const NOT_DOC: &[&str] = &[
        "--lib",
        "--bins",
        "--bin",
        "--tests",
        "--test",
        "--examples",
        "--example",
        "--benches",
        "--bench",
        "--all-targets",
        "--no-run",
    ];
    head.runs.iter().any(|r| {
        r.cmd.tool == "cargo test"
            && r.effective()
            && (r.cmd.args.iter().any(|a| a == "--doc")
                || !r.cmd.args.iter().any(|a| NOT_DOC.contains(&a.as_str())))
    })
}

/// A base run with no head run: covered by a broader command, disabled where it stood (a
/// ghost), removed from a job that is still there, or gone with its whole job (`gone`).
fn unpaired(
    b: &Run,
    head: &Side,
    mode: Mode,
    out: &mut Vec<Hit>,
    gone: &mut BTreeMap<String, BTreeSet<String>>,
) {
    let shown = short(&b.cmd.text);
    // Merged into a broader command (`pytest tests/a` and `pytest tests/b` became
    // `pytest tests/a tests/b`): covered, not removed. The same command elsewhere is not
    // cover: a job that ran it on another platform or setup is gone.
    let covered = head.runs.iter().any(|h| {
        h.effective()
            && std::ptr::eq(h.cmd.spec, b.cmd.spec)
            && h.cmd.tool == b.cmd.tool
            && h.cmd.key() != b.cmd.key()
            && testcmd::compare_args(b.cmd.spec, &b.cmd.args, &h.cmd.args, mode).is_empty()
            && testcmd::env_changes(&b.env, &h.env).is_empty()
    });
    if covered {
        return;
    }
    let ghost = head
        .ghosts
        .iter()
        .filter(|g| g.tool == b.cmd.tool)
        .min_by_key(|g| g.job != b.job);
    if let Some(g) = ghost {
        out.push(Hit {
            line: g.line,
            detail: format!("`{shown}` ({}) {}, so it no longer runs", b.place, g.how),
        });
    } else if let Some((_, line)) = head.jobs.get(&b.job) {
        out.push(Hit {
            line: *line,
            detail: format!(
                "test command removed: `{shown}` ({}) no longer runs",
                b.place
            ),
        });
    } else {
        gone.entry(b.job.clone()).or_default().insert(shown);
    }
}

/// A base run and its head run `h`: gated (collected per gate in `gated`), swallowed or never
/// run, or changed in its arguments, environment, directory or tool.
fn paired(b: &Run, h: &Run, mode: Mode, has_doctests: bool, out: &mut Vec<Hit>, gated: &mut Gated) {
    let head_shown = short(&h.cmd.text);
    if !h.gates.is_empty() {
        for g in &h.gates {
            gated
                .entry((g.label.clone(), g.why.clone(), g.cat))
                .or_insert_with(|| (g.line, BTreeSet::new()))
                .1
                .insert(head_shown.clone());
        }
        return;
    }
    match &h.fate {
        Fate::Swallowed(why) => {
            out.push(Hit {
                line: h.line,
                detail: format!("`{head_shown}` ({}) can no longer fail: {why}", h.place),
            });
            return;
        }
        Fate::NeverRuns(why) => {
            out.push(Hit {
                line: h.line,
                detail: format!("`{head_shown}` ({}) never runs: {why}", h.place),
            });
            return;
        }
        Fate::Propagates | Fate::Unknown => {}
    }
    let mut changes: Vec<Change> = Vec::new();
    if std::ptr::eq(b.cmd.spec, h.cmd.spec) {
        changes.extend(testcmd::compare_args(
            b.cmd.spec,
            &b.cmd.args,
            &h.cmd.args,
            mode,
        ));
    }
    changes.extend(testcmd::env_changes(&b.env, &h.env));
    if within(&h.cwd, &b.cwd) {
        changes.push(Change {
            cat: Cat::Narrowed,
            text: format!(
                "runs in `{}` instead of `{}`",
                h.cwd,
                if b.cwd.is_empty() { "." } else { &b.cwd }
            ),
        });
    }
    if b.cmd.tool == "cargo test" && h.cmd.tool == "cargo nextest run" && !has_doctests {
        changes.push(Change {
            cat: Cat::Narrowed,
            text: "`cargo test` became `cargo nextest run`, which does not run doctests, and no `cargo test --doc` is left".into(),
        });
    }
    for (cat, verb) in [
        (Cat::NeverRuns, "no longer runs tests"),
        (Cat::CannotFail, "can no longer fail"),
        (Cat::Narrowed, "runs fewer tests"),
    ] {
        let texts: Vec<&str> = changes
            .iter()
            .filter(|c| c.cat == cat)
            .map(|c| c.text.as_str())
            .collect();
        if !texts.is_empty() {
            out.push(Hit {
                line: h.line,
                detail: format!("`{head_shown}` ({}) {verb}: {}", h.place, texts.join("; ")),
            });
        }
    }
}

/// The effective test commands of a side, for "it ran ..." details.
pub fn effective_commands(side: &Side) -> BTreeSet<String> {
    side.runs
        .iter()
        .filter(|r| r.effective())
        .map(|r| short(&r.cmd.text))
        .collect()
}

/// `join_cmds` for other modules.
pub fn list_commands(cmds: &BTreeSet<String>) -> String {
    join_cmds(cmds)
}
