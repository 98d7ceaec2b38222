//! The cycle's replays: admission of protected cases (all of [`PROTECT_REPLAYS`] must pass), the
//! canary (the failed runs with the current and the candidate files, the protected runs with the
//! candidate; metered against the cycle's cap) and the guard (never cut off).

use super::*;

impl Cycle<'_, '_> {
    /// `--protect` admissions (metered), then the corpus. `Err(why)` when the cap ran out.
    pub(super) fn admit_protected(
        &mut self,
        files: &[AgentFile],
    ) -> Result<Result<Vec<Case>, String>, ImproveError> {
        for run in self.opts.protect.clone() {
            let mut case = cases::passing_run(&self.rt.repo, &run)?;
            let mut score = Score {
                run: run.clone(),
                ..Score::default()
            };
            for _ in 0..PROTECT_REPLAYS {
                if self.tokens_left() == 0 || self.rt.cancel.is_cancelled() {
                    break;
                }
                let r = replay::replay_once(
                    &self.rt.repo,
                    &case,
                    files,
                    self.rt.replay,
                    Some(self.tokens_left()),
                );
                self.rec.tokens += r.tokens;
                score.runs += 1;
                score.passed += u32::from(r.passed);
                score.outcomes.push(r.outcome);
                if !r.passed {
                    break;
                }
            }
            self.rec.checkpoint(&self.paths, "protect")?;
            if score.passed == PROTECT_REPLAYS {
                case.admitted_at = Some(loki_core::time::now_rfc3339());
                cases::save_protected(&self.paths, &case)?;
                self.audit(self.entry(Action::Protect, "user").detail(format!(
                    "{run} passed {PROTECT_REPLAYS} of {PROTECT_REPLAYS} replays"
                )))?;
            } else {
                self.audit(self.entry(Action::ProtectRefused, "user").detail(format!(
                    "{run} passed {} of {} replays ({}); a protected case must pass all {PROTECT_REPLAYS}",
                    score.passed,
                    score.runs,
                    score.outcomes.join(", ")
                )))?;
                self.rec
                    .notes
                    .push(format!("{run} was not admitted as a protected case"));
                if self.tokens_left() == 0 {
                    return Ok(Err(format!(
                        "admitting {run} reached the cycle's token cap ({})",
                        self.cap
                    )));
                }
            }
        }
        let corpus = cases::corpus(&self.paths)?;
        self.rec.protected = corpus.iter().map(|c| c.run.clone()).collect();
        Ok(Ok(corpus))
    }

    /// Replays with metering; `None` when the cap ran out mid-way.
    pub(super) fn canary(
        &mut self,
        training: &[Case],
        corpus: &[Case],
        current: &[AgentFile],
        candidate: &[AgentFile],
    ) -> Result<Option<CanaryResult>, ImproveError> {
        let runs = self.cfg.canary.replay_runs;
        let mut res = CanaryResult::default();
        let jobs: Vec<(&Case, &[AgentFile], u8)> = training
            .iter()
            .map(|c| (c, current, 0))
            .chain(training.iter().map(|c| (c, candidate, 1)))
            .chain(corpus.iter().map(|c| (c, candidate, 2)))
            .collect();
        for (case, files, which) in jobs {
            if self.tokens_left() == 0 {
                self.rec.canary = Some(res);
                return Ok(None);
            }
            let (score, tokens) = replay::score(
                &self.rt.repo,
                case,
                files,
                runs,
                self.rt.replay,
                &self.rt.cancel,
                Some(self.tokens_left()),
            );
            self.rec.tokens += tokens;
            res.tokens += tokens;
            res.replays += score.runs;
            match which {
                0 => res.baseline.push(score),
                1 => res.candidate.push(score),
                _ => res.protected.push(score),
            }
            self.rec.checkpoint(&self.paths, "canary")?;
        }
        let sum = |s: &[Score]| s.iter().map(|x| x.passed).sum::<u32>();
        let unjudged: Vec<&str> = res
            .baseline
            .iter()
            .chain(&res.candidate)
            .chain(&res.protected)
            .filter(|s| s.unjudged > 0 || s.runs < runs)
            .map(|s| s.run.as_str())
            .collect();
        let regressed: Vec<String> = res
            .protected
            .iter()
            .filter(|s| s.passed < s.runs)
            .map(|s| format!("{} ({}/{})", s.run, s.passed, s.runs))
            .collect();
        let (base, cand) = (sum(&res.baseline), sum(&res.candidate));
        let total = runs * u32::try_from(training.len()).unwrap_or(u32::MAX);
        res.accepted = unjudged.is_empty() && regressed.is_empty() && cand > base;
        res.reason = if !unjudged.is_empty() {
            format!("replays of {} could not be judged", unjudged.join(", "))
        } else if !regressed.is_empty() {
            format!("protected case(s) regressed: {}", regressed.join(", "))
        } else if cand <= base {
            format!(
                "the failed runs passed {cand}/{total} replays with the candidate and {base}/{total} with the current instructions: no improvement"
            )
        } else {
            format!(
                "the failed runs passed {cand}/{total} replays with the candidate (current: {base}/{total}); {} protected case(s) held",
                res.protected.len()
            )
        };
        Ok(Some(res))
    }

    pub(super) fn guard(&self, corpus: &[Case], files: &[AgentFile]) -> GuardResult {
        let runs = self.cfg.guard.runs;
        let mut g = GuardResult::default();
        for case in corpus {
            // The guard is never cut off by the budget or Ctrl-C: an edit is judged whole.
            let (score, tokens) = replay::score(
                &self.rt.repo,
                case,
                files,
                runs,
                self.rt.replay,
                &Cancel::new(),
                None,
            );
            g.tokens += tokens;
            g.protected.push(score);
        }
        let bad: Vec<String> = g
            .protected
            .iter()
            .filter(|s| s.passed < s.runs || s.unjudged > 0)
            .map(|s| {
                if s.unjudged > 0 {
                    format!("{} could not be judged ({})", s.run, s.outcomes.join(", "))
                } else {
                    format!("{} passed {}/{}", s.run, s.passed, s.runs)
                }
            })
            .collect();
        g.passed = bad.is_empty();
        g.reason = if corpus.is_empty() {
            "no protected case to replay".to_string()
        } else if g.passed {
            format!("{} protected case(s) passed every replay", corpus.len())
        } else {
            format!("regression: {}", bad.join("; "))
        };
        g
    }
}
