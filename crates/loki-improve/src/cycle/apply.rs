//! The end of an accepted proposal: queued for a person (manual), or applied by compare-and-swap
//! after the guard's cost is known to fit, guarded, kept with a receipt or rolled back (auto).

use super::*;

impl Cycle<'_, '_> {
    pub(super) fn queue(
        &mut self,
        current: &AgentFiles,
        files: &[AgentFile],
    ) -> Result<CycleRecord, ImproveError> {
        let pending = Pending {
            id: self.rec.id.replacen("cyc_", "prop_", 1),
            cycle: self.rec.id.clone(),
            created_at: loki_core::time::now_rfc3339(),
            base_revision: current.revision(),
            candidate_revision: self.rec.candidate_revision.clone().unwrap_or_default(),
            rationale: self.rec.rationale.clone().unwrap_or_default(),
            files: files.to_vec(),
            canary: self.rec.canary.clone(),
        };
        proposal::save_pending(&self.paths, &pending)?;
        self.audit(
            self.entry(Action::Pending, "canary")
                .detail(format!(
                    "queued as {} for `loki improve approve`",
                    pending.id
                ))
                .revisions(&pending.base_revision, &pending.candidate_revision),
        )?;
        self.rec.pending = Some(pending.id.clone());
        self.end(
            Outcome::Pending,
            format!(
                "the canary accepted it; queued as {} (`loki improve approve {}`)",
                pending.id, pending.id
            ),
        )
    }

    pub(super) fn apply_and_guard(
        mut self,
        current: &AgentFiles,
        files: &[AgentFile],
        corpus: &[Case],
        p: &Proposal,
    ) -> Result<CycleRecord, ImproveError> {
        let estimate = self.guard_estimate(corpus);
        if estimate > self.tokens_left() {
            return self.end(
                Outcome::BudgetExceeded,
                format!(
                    "the guard would need about {estimate} tokens and {} are left of the cycle's cap; nothing was applied",
                    self.tokens_left()
                ),
            );
        }
        if let Some(r) = self.stop_here("the write")? {
            return Ok(r);
        }
        self.rt.hooks.at(Point::BeforeWrite);
        let base = current.revision();
        // A crash during the writes leaves this step: the next cycle finishes or undoes them,
        // from the two revisions kept first.
        proposal::keep(&self.paths, &current.files)?;
        proposal::keep(&self.paths, files)?;
        self.rec.checkpoint(&self.paths, APPLYING)?;
        self.rt.hooks.at(Point::Applying);
        let applied = proposal::apply(&self.paths, &base, files)?;
        let (from, to) = match applied {
            Applied::Stale { current: now } => {
                self.audit(
                    self.entry(Action::Stale, "canary")
                        .detail(format!(
                            "the files changed since the cycle read them (now {now})"
                        ))
                        .revisions(
                            &base,
                            self.rec.candidate_revision.as_deref().unwrap_or_default(),
                        ),
                )?;
                return self.end(
                    Outcome::Stale,
                    format!(
                        "the instructions were edited during the cycle ({} → {}): nothing applied",
                        short(&base),
                        short(&now)
                    ),
                );
            }
            Applied::Refused(why) => {
                return self.end(Outcome::Refused, format!("the apply was refused: {why}"));
            }
            Applied::Done { from, to } => (from, to),
        };
        self.audit(
            self.entry(Action::Apply, "canary")
                .detail(one_line(&p.rationale))
                .revisions(&from, &to),
        )?;
        self.rec.applied_revision = Some(to.clone());
        self.rec.guarded = Some(false);
        self.rec.checkpoint(&self.paths, "apply")?;
        self.rt.hooks.at(Point::Applied);
        let guard = self.guard(corpus, files);
        self.rec.tokens += guard.tokens;
        let passed = guard.passed;
        let reason = guard.reason.clone();
        self.rec.guard = Some(guard);
        self.rec.guarded = Some(true);
        self.rec.checkpoint(&self.paths, "guard")?;
        self.rt.hooks.at(Point::Guarded);
        self.settle_guard(current, files, p, (&from, &to), (passed, &reason))
    }

    /// The tokens the guard would spend on `corpus`: its runs of each case at the canary's cost
    /// per replay.
    fn guard_estimate(&self, corpus: &[Case]) -> u64 {
        let per_replay = self
            .rec
            .canary
            .as_ref()
            .filter(|c| c.replays > 0)
            .map_or(0, |c| c.tokens / u64::from(c.replays));
        u64::try_from(corpus.len()).unwrap_or(u64::MAX)
            * u64::from(self.cfg.guard.runs)
            * per_replay
    }

    /// The end of a guarded apply: kept when the guard passed, else rolled back to `from` (and
    /// reflected on), unless the rollback was refused; sealed either way it settles.
    fn settle_guard(
        &mut self,
        current: &AgentFiles,
        files: &[AgentFile],
        p: &Proposal,
        (from, to): (&str, &str),
        (passed, reason): (bool, &str),
    ) -> Result<CycleRecord, ImproveError> {
        if passed {
            self.audit(
                self.entry(Action::GuardPass, "guard")
                    .detail(reason)
                    .revisions(from, to),
            )?;
            let why = format!("applied {} → {}; guard: {reason}", short(from), short(to));
            self.rec.outcome = Outcome::Applied;
            self.seal(&current.files, files);
            return self.end(Outcome::Applied, why);
        }
        self.audit(
            self.entry(Action::GuardFail, "guard")
                .detail(reason)
                .revisions(from, to),
        )?;
        let id = self.rec.id.clone();
        if self.roll_back(&id, to, from, reason)? {
            self.reflect(
                p,
                &format!("it was applied, then the guard found a regression: {reason}"),
            );
            self.rec.outcome = Outcome::RolledBack;
            self.seal(&current.files, files);
            return self.end(
                Outcome::RolledBack,
                format!("guard: {reason}; rolled back to {}", short(from)),
            );
        }
        self.end(
            Outcome::Applied,
            format!("guard: {reason}; the rollback was refused, so the edit stays (see the audit)"),
        )
    }

    pub(super) fn seal(&mut self, old: &[AgentFile], new: &[AgentFile]) {
        let seconds = self.started.elapsed().as_secs_f64();
        match crate::receipt::seal(&self.paths, &self.rec, old, new, self.rt, seconds) {
            Ok(path) => self.rec.receipt = Some(path),
            Err(e) => self
                .rec
                .notes
                .push(format!("the receipt could not be sealed: {e}")),
        }
    }
}
