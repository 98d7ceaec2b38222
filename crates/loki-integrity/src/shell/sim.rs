//! Simulation: one simple command assumed to fail, whether the script still exits non-zero.

use std::collections::BTreeSet;

use super::{AndOr, Cmd, List, Pipeline, Script, Simple, walk_cmd, walk_list};

/// Whether a test command's failure fails the script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fate {
    Propagates,
    /// The script exits 0 anyway; why.
    Swallowed(String),
    /// The command is never reached; why.
    NeverRuns(String),
    /// The script reads the status in a way this reader does not follow.
    Unknown,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum St {
    Ok,
    Fail,
    Unknown,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flow {
    Go,
    Exit(St),
}

#[derive(Clone)]
struct Sim {
    target: usize,
    errexit: bool,
    /// `-e` was on and a `set +e` turned it off.
    errexit_dropped: bool,
    pipefail: bool,
    last: St,
    /// The last status is the target's failure, still travelling.
    failing: bool,
    hit: bool,
    /// Why the target's failure did not stop the script at once.
    pending: Option<String>,
    why: Option<String>,
    /// An `exit` ran before the target.
    early_exit: Option<String>,
    tainted: BTreeSet<String>,
    /// Ids of the script's other test commands, and whether one is running as a retry.
    tests: BTreeSet<usize>,
    retrying: bool,
}

fn contains_list(l: &List, id: usize) -> bool {
    let mut found = false;
    walk_list(l, &mut |s| found |= s.id == id);
    found
}

fn contains_cmd(c: &Cmd, id: usize) -> bool {
    let mut found = false;
    walk_cmd(c, &mut |s| found |= s.id == id);
    found
}

fn contains_pipeline(p: &Pipeline, id: usize) -> bool {
    p.cmds.iter().any(|c| contains_cmd(c, id))
}

fn contains_and_or(ao: &AndOr, id: usize) -> bool {
    contains_pipeline(&ao.first, id) || ao.rest.iter().any(|(_, p)| contains_pipeline(p, id))
}

/// Renders a command's words for a reason (`echo ok`).
fn show_words(words: &[String]) -> String {
    let mut s = words.join(" ");
    if s.chars().count() > 40 {
        s = s.chars().take(37).collect::<String>() + "...";
    }
    s
}

fn first_words(p: &Pipeline) -> String {
    match p.cmds.first() {
        Some(Cmd::Simple(s)) => show_words(&s.words),
        Some(Cmd::Group { .. }) => "a group of commands".into(),
        _ => "a compound command".into(),
    }
}

impl Sim {
    /// Takes what a subshell learnt: whether it reached the target, and why a failure was lost
    /// (only when it was: a stale reason must not explain a status that still fails).
    fn merge(&mut self, sub: Sim, st: St) {
        self.hit |= sub.hit;
        if st != St::Fail {
            self.why = self.why.take().or(sub.why);
        }
        self.early_exit = self.early_exit.take().or(sub.early_exit);
    }

    fn note(&mut self, why: impl Into<String>) {
        if self.failing && self.why.is_none() {
            self.why = Some(why.into());
        }
    }

    /// The target's failure was overwritten by a later status.
    fn overwrite(&mut self, st: St, by: &str) {
        if self.failing && st != St::Fail {
            let pending = self
                .pending
                .clone()
                .unwrap_or_else(|| "the script goes on after it".into());
            self.note(format!(
                "{pending}, and a later command (`{by}`) sets the exit status"
            ));
            self.failing = false;
        }
    }

    fn list(&mut self, l: &List, in_cond: bool) -> Flow {
        for (ao, bg) in &l.items {
            if *bg {
                if contains_and_or(ao, self.target) {
                    self.hit = true;
                    self.failing = true;
                    self.note("it runs in the background (`&`), so its status is never read");
                    self.failing = false;
                }
                self.last = St::Ok;
                continue;
            }
            let label = first_words(&ao.first);
            let was_failing = self.failing;
            let (st, eligible) = match self.and_or(ao, in_cond) {
                Ok(v) => v,
                Err(flow) => return flow,
            };
            // A later list sets `$?`: the failure travelling so far is overwritten (a later
            // deliberate failure, `false`, fails the script on its own account).
            let later = !contains_and_or(ao, self.target);
            if was_failing && ((self.failing && st != St::Fail) || later) {
                self.overwrite(st, &label);
            }
            self.last = st;
            if !in_cond && eligible && self.errexit {
                match st {
                    St::Fail => return Flow::Exit(St::Fail),
                    St::Unknown => return Flow::Exit(St::Unknown),
                    St::Ok => {}
                }
            }
            if st == St::Fail && self.failing && self.pending.is_none() {
                self.pending = Some(if in_cond {
                    "it is a condition".into()
                } else if !eligible {
                    "`&&` after it exempts it from `set -e`".into()
                } else if self.errexit_dropped {
                    "`set +e` before it turns off stopping on errors".into()
                } else {
                    "the shell does not stop on errors (no `set -e`)".into()
                });
            }
        }
        Flow::Go
    }

    /// The status of an and-or list and whether `-e` may act on it. `Err` carries an exit.
    pub(super) fn and_or(&mut self, ao: &AndOr, in_cond: bool) -> Result<(St, bool), Flow> {
        let all: Vec<(Option<bool>, &Pipeline)> = std::iter::once((None, &ao.first))
            .chain(ao.rest.iter().map(|(a, p)| (Some(*a), p)))
            .collect();
        // Before the target, assume whatever leads to it: start at the target's pipeline.
        let start = if self.hit {
            0
        } else {
            all.iter()
                .position(|(_, p)| contains_pipeline(p, self.target))
                .unwrap_or(0)
        };
        let mut st = St::Ok;
        let mut last_ran = start;
        for (k, (op, p)) in all.iter().enumerate().skip(start) {
            if k > start {
                let run = matches!(
                    (op, st),
                    (Some(true), St::Ok) | (Some(false), St::Fail) | (_, St::Unknown)
                );
                if !run {
                    continue;
                }
            }
            let rescuing = *op == Some(false) && self.failing;
            // `pytest || pytest --lf` is a retry: the second run fails as the first did.
            let retry = rescuing && self.tests.iter().any(|&t| contains_pipeline(p, t));
            let saved = self.retrying;
            self.retrying |= retry;
            let why_before = self.why.clone();
            let r = self.pipeline(p);
            self.retrying = saved;
            last_ran = k;
            if rescuing {
                // Whatever the handler did inside, its result is what becomes of the failure.
                self.why = why_before;
                if matches!(r, Ok(St::Ok) | Err(Flow::Exit(St::Ok))) {
                    self.failing = true;
                    self.note(format!("`|| {}` after it", first_words(p)));
                    self.failing = false;
                } else {
                    self.failing = true;
                }
            }
            st = r?;
        }
        let eligible = last_ran == all.len() - 1 && !in_cond;
        Ok((st, eligible))
    }

    pub(super) fn pipeline(&mut self, p: &Pipeline) -> Result<St, Flow> {
        let n = p.cmds.len();
        let mut statuses = Vec::with_capacity(n);
        let mut target_at = None;
        for (k, c) in p.cmds.iter().enumerate() {
            let has = contains_cmd(c, self.target);
            if has {
                target_at = Some(k);
            }
            let st = if n > 1 {
                // Pipeline members run in subshells: their `exit` and `set` stay there.
                let mut sub = self.clone();
                let st = match sub.cmd(c) {
                    Flow::Exit(s) => s,
                    Flow::Go => sub.last,
                };
                self.merge(sub, st);
                self.failing = self.failing || (has && st == St::Fail);
                st
            } else {
                match self.cmd(c) {
                    Flow::Exit(s) => return Err(Flow::Exit(s)),
                    Flow::Go => self.last,
                }
            };
            statuses.push(st);
        }
        let mut st = if self.pipefail {
            statuses
                .iter()
                .rev()
                .find(|s| **s != St::Ok)
                .copied()
                .unwrap_or(St::Ok)
        } else {
            statuses.last().copied().unwrap_or(St::Ok)
        };
        if let Some(k) = target_at {
            if k + 1 < n && !self.pipefail && self.failing {
                let into = match &p.cmds[n - 1] {
                    Cmd::Simple(s) => show_words(&s.words[..s.words.len().min(1)]),
                    _ => "another command".into(),
                };
                self.note(format!(
                    "its exit status is lost in the pipe into `{into}` (no `set -o pipefail`)"
                ));
                self.failing = false;
            } else if k + 1 < n && self.failing {
                self.failing = st == St::Fail;
            }
        }
        if p.negated {
            st = match st {
                St::Ok => St::Fail,
                St::Fail => St::Ok,
                St::Unknown => St::Unknown,
            };
            if self.failing {
                self.note("it is negated with `!`");
                self.failing = false;
            }
        }
        self.last = st;
        Ok(st)
    }

    fn cmd(&mut self, c: &Cmd) -> Flow {
        match c {
            Cmd::Simple(s) => self.simple(s),
            Cmd::Group { body, subshell } => {
                if *subshell {
                    let mut sub = self.clone();
                    let st = match sub.list(body, false) {
                        Flow::Exit(s) => s,
                        Flow::Go => sub.last,
                    };
                    let failing = sub.failing && st == St::Fail;
                    self.merge(sub, st);
                    self.failing = failing;
                    self.last = st;
                    Flow::Go
                } else {
                    self.list(body, false)
                }
            }
            Cmd::If { arms, otherwise } => self.if_(arms, otherwise.as_ref()),
            Cmd::Loop { cond, body } => {
                if cond.as_ref().is_some_and(|c| contains_list(c, self.target)) {
                    // `until pytest; do ...; done` retries; what it ends with is not knowable here.
                    self.hit = true;
                    self.last = St::Unknown;
                    return Flow::Exit(St::Unknown);
                }
                if let Some(c) = cond
                    && let f @ Flow::Exit(_) = self.list(c, true)
                {
                    return f;
                }
                self.list(body, false)
            }
            Cmd::Opaque(body) => {
                if contains_list(body, self.target) {
                    self.hit = true;
                    self.last = St::Unknown;
                    return Flow::Exit(St::Unknown);
                }
                self.last = St::Ok;
                Flow::Go
            }
        }
    }

    fn if_(&mut self, arms: &[(List, List)], otherwise: Option<&List>) -> Flow {
        // Before the target: take the branch that reaches it.
        if !self.hit {
            for (k, (cond, body)) in arms.iter().enumerate() {
                if contains_list(cond, self.target) {
                    let saved = self.errexit;
                    let f = self.list(cond, true);
                    self.errexit = saved;
                    if let Flow::Exit(_) = f {
                        return f;
                    }
                    if self.last == St::Ok {
                        return self.list(body, false);
                    }
                    if self.failing {
                        self.note(
                            "it is the condition of an `if`, so its failure only picks a branch",
                        );
                        self.failing = false;
                    }
                    let rest = &arms[k + 1..];
                    return self.branches(rest, otherwise);
                }
                if contains_list(body, self.target) {
                    return self.list(body, false);
                }
            }
            if let Some(o) = otherwise.filter(|o| contains_list(o, self.target)) {
                return self.list(o, false);
            }
        }
        self.branches(arms, otherwise)
    }

    /// After the target (or away from it): try every branch; when they disagree, the answer is
    /// unknown.
    fn branches(&mut self, arms: &[(List, List)], otherwise: Option<&List>) -> Flow {
        let mut outcomes = Vec::new();
        for (cond, body) in arms {
            let mut sub = self.clone();
            let reads_status = reads_status_list(cond, &self.tainted);
            let f = match sub.list(cond, true) {
                Flow::Go => sub.list(body, false),
                f @ Flow::Exit(_) => f,
            };
            if reads_status && self.failing {
                return Flow::Exit(St::Unknown);
            }
            outcomes.push((f, sub));
        }
        let mut sub = self.clone();
        let f = match otherwise {
            Some(o) => sub.list(o, false),
            None => {
                sub.last = St::Ok;
                Flow::Go
            }
        };
        outcomes.push((f, sub));
        let first = outcomes[0].0;
        let first_last = outcomes[0].1.last;
        let agree = outcomes
            .iter()
            .all(|(f, s)| *f == first && (first != Flow::Go || s.last == first_last));
        if !agree {
            self.last = St::Unknown;
            return Flow::Exit(St::Unknown);
        }
        let (_, s) = outcomes.swap_remove(0);
        *self = s;
        first
    }

    pub(super) fn simple(&mut self, s: &Simple) -> Flow {
        for (name, value) in &s.assigns {
            if reads_status(value, &self.tainted) {
                self.tainted.insert(name.clone());
            }
        }
        if self.retrying && self.tests.contains(&s.id) {
            self.last = St::Fail;
            self.failing = true;
            return Flow::Go;
        }
        if s.id == self.target {
            self.hit = true;
            self.failing = true;
            self.last = St::Fail;
            return Flow::Go;
        }
        if let Some(n) = &s.nested
            && (contains_list(&n.list, self.target) || !self.hit)
        {
            let mut sub = self.clone();
            sub.errexit = n.errexit;
            sub.errexit_dropped = false;
            sub.pipefail = n.pipefail;
            sub.pending = None;
            let st = match sub.list(&n.list, false) {
                Flow::Exit(st) => st,
                Flow::Go => sub.last,
            };
            let failing = sub.failing && st == St::Fail;
            self.merge(sub, st);
            self.failing = failing;
            self.last = st;
            return Flow::Go;
        }
        let w: Vec<&str> = s.words.iter().map(String::as_str).collect();
        let Some(&cmd) = w.first() else {
            self.last = St::Ok;
            return Flow::Go;
        };
        match cmd {
            "set" => {
                self.set(&w[1..]);
                self.last = St::Ok;
            }
            "exit" | "return" => {
                let st = match w.get(1) {
                    None => self.last,
                    Some(&"0") => St::Ok,
                    Some(a) if a.parse::<i64>().is_ok() => St::Fail,
                    Some(a) if *a == "$?" || *a == "${?}" => self.last,
                    Some(_) => St::Unknown,
                };
                if self.failing && st == St::Ok {
                    self.note(format!("`{}` after it", show_words(&s.words)));
                    self.failing = false;
                }
                if !self.hit {
                    self.early_exit = Some(format!(
                        "`{}` before it ends the script",
                        show_words(&s.words)
                    ));
                }
                self.last = st;
                return Flow::Exit(st);
            }
            "false" => self.last = St::Fail,
            "[" | "[[" | "test" if w[1..].iter().any(|a| reads_status(a, &self.tainted)) => {
                self.last = St::Unknown;
            }
            _ => self.last = St::Ok,
        }
        Flow::Go
    }

    fn set(&mut self, args: &[&str]) {
        let mut k = 0;
        while let Some(a) = args.get(k) {
            if (*a == "-o" || *a == "+o") && k + 1 < args.len() {
                let on = *a == "-o";
                match args[k + 1] {
                    "errexit" => self.set_errexit(on),
                    "pipefail" => self.pipefail = on,
                    _ => {}
                }
                k += 2;
                continue;
            }
            let (on, flags) = if let Some(f) = a.strip_prefix('-') {
                (true, f)
            } else if let Some(f) = a.strip_prefix('+') {
                (false, f)
            } else {
                break;
            };
            if flags.contains('e') {
                self.set_errexit(on);
            }
            if flags.ends_with('o')
                && let Some(&"pipefail") = args.get(k + 1)
            {
                self.pipefail = on;
                k += 1;
            }
            k += 1;
        }
    }

    fn set_errexit(&mut self, on: bool) {
        if !on && self.errexit {
            self.errexit_dropped = true;
        }
        self.errexit = on;
    }
}

fn reads_status(word: &str, tainted: &BTreeSet<String>) -> bool {
    word.contains("$?")
        || word.contains("${?}")
        || word.contains("PIPESTATUS")
        || tainted
            .iter()
            .any(|t| word.contains(&format!("${t}")) || word.contains(&format!("${{{t}}}")))
}

fn reads_status_list(l: &List, tainted: &BTreeSet<String>) -> bool {
    let mut found = false;
    walk_list(l, &mut |s| {
        found |= s.words.iter().any(|w| reads_status(w, tainted));
    });
    found
}

/// How a script starts: `-e` and `-o pipefail`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Opts {
    pub errexit: bool,
    pub pipefail: bool,
}

/// Whether the failure of simple command `target` in `script` fails the script. `tests` are the
/// ids of the script's test commands: one on the right of `||` after the target is a retry, which
/// fails as the target did.
pub fn fate(script: &Script, target: usize, opts: Opts, tests: &BTreeSet<usize>) -> Fate {
    let Opts { errexit, pipefail } = opts;
    let mut sim = Sim {
        tests: tests.clone(),
        retrying: false,
        target,
        errexit,
        errexit_dropped: false,
        pipefail,
        last: St::Ok,
        failing: false,
        hit: false,
        pending: None,
        why: None,
        early_exit: None,
        tainted: BTreeSet::new(),
    };
    let flow = sim.list(&script.list, false);
    if !sim.hit {
        return Fate::NeverRuns(
            sim.early_exit
                .unwrap_or_else(|| "nothing in the script reaches it".into()),
        );
    }
    let end = match flow {
        Flow::Exit(st) => st,
        Flow::Go => sim.last,
    };
    match end {
        St::Fail => Fate::Propagates,
        St::Unknown => Fate::Unknown,
        St::Ok => Fate::Swallowed(sim.why.unwrap_or_else(|| {
            sim.pending
                .unwrap_or_else(|| "its exit status is not the script's".into())
        })),
    }
}
