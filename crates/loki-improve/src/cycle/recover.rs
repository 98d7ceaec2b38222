//! What a cycle settles before its own work, and how it undoes an edit: an apply a killed cycle
//! left mid-write (finished or undone), an apply it left unguarded (guarded now), and the
//! compare-and-swap rollback to a cycle's own parent revision.

use super::*;

impl Cycle<'_, '_> {
    /// A cycle killed while writing (step `applying`): when the files are at its candidate the
    /// apply landed whole and is guarded like any other; at neither its base nor its candidate, a
    /// partial write is undone back to the base (its kept revision).
    pub(super) fn finish_interrupted_apply(
        &mut self,
        records: &[CycleRecord],
    ) -> Result<(), ImproveError> {
        let Some(mut prev) = records
            .iter()
            .rev()
            .find(|r| r.step == APPLYING && r.applied_revision.is_none())
            .cloned()
        else {
            return Ok(());
        };
        let (Some(base), Some(candidate)) =
            (prev.base_revision.clone(), prev.candidate_revision.clone())
        else {
            return Ok(());
        };
        let now = self.current().map(|a| a.revision()).unwrap_or_default();
        if now == candidate {
            prev.applied_revision = Some(candidate);
            prev.guarded = Some(false);
        } else if now != base {
            let files = proposal::kept(&self.paths, &base)?;
            if let Applied::Done { from, to } = proposal::apply_over(&self.paths, &files)? {
                self.audit(
                    Entry::new(Action::Recover, "cycle", Some(&prev.id))
                        .detail(format!(
                            "the apply of {candidate} was interrupted mid-write; restored {to}"
                        ))
                        .revisions(&from, &to),
                )?;
            }
        }
        prev.step = "recovered".to_string();
        prev.notes.push(format!(
            "its interrupted apply was settled by cycle {}",
            self.rec.id
        ));
        prev.save(&self.paths)?;
        Ok(())
    }

    /// An apply that a killed cycle left unguarded is guarded now, before anything else.
    pub(super) fn guard_left_over(&mut self, records: &[CycleRecord]) -> Result<(), ImproveError> {
        self.finish_interrupted_apply(records)?;
        let records = cycles::list(&self.paths)?;
        let Some(prev) = cycles::unguarded(&records).cloned() else {
            return Ok(());
        };
        let (Some(applied), Some(parent)) =
            (prev.applied_revision.clone(), prev.base_revision.clone())
        else {
            return Ok(());
        };
        let mut prev = prev;
        let now = self.current()?.revision();
        if now != applied {
            prev.guarded = Some(true);
            prev.notes.push(format!(
                "not guarded by {}: the files are at {now}, no longer at the applied {applied}",
                self.rec.id
            ));
            prev.save(&self.paths)?;
            return Ok(());
        }
        let corpus = cases::corpus(&self.paths)?;
        let files = match proposal::kept(&self.paths, &applied) {
            Ok(f) => f,
            Err(e) => {
                // Without the applied files the guard cannot replay them; say so, once.
                prev.guarded = Some(true);
                prev.notes.push(format!(
                    "could not be guarded by cycle {}: {e}",
                    self.rec.id
                ));
                prev.save(&self.paths)?;
                return Ok(());
            }
        };
        let guard = self.guard(&corpus, &files);
        self.rec.tokens += guard.tokens;
        prev.guarded = Some(true);
        if guard.passed {
            self.audit(
                Entry::new(Action::GuardPass, "guard", Some(&prev.id))
                    .detail(format!(
                        "{} (guarded by cycle {})",
                        guard.reason, self.rec.id
                    ))
                    .revisions(&parent, &applied),
            )?;
            prev.notes.push(format!(
                "guarded by cycle {}: {}",
                self.rec.id, guard.reason
            ));
        } else {
            self.audit(
                Entry::new(Action::GuardFail, "guard", Some(&prev.id))
                    .detail(guard.reason.clone())
                    .revisions(&parent, &applied),
            )?;
            let rolled = self.roll_back(&prev.id, &applied, &parent, &guard.reason)?;
            if rolled {
                prev.outcome = Outcome::RolledBack;
                prev.reason = format!("guard (run by cycle {}): {}", self.rec.id, guard.reason);
            }
        }
        prev.guard = Some(guard);
        prev.save(&self.paths)?;
        self.rec
            .notes
            .push(format!("guarded the apply left by cycle {}", prev.id));
        Ok(())
    }

    /// Restores `parent` over `applied` (compare-and-swap), audited. False when refused.
    pub(super) fn roll_back(
        &mut self,
        cycle: &str,
        applied: &str,
        parent: &str,
        why: &str,
    ) -> Result<bool, ImproveError> {
        let files = proposal::kept(&self.paths, parent)?;
        match proposal::apply(&self.paths, applied, &files)? {
            Applied::Done { from, to } => {
                self.audit(
                    Entry::new(Action::Rollback, "guard", Some(cycle))
                        .detail(one_line(why))
                        .revisions(&from, &to),
                )?;
                Ok(true)
            }
            Applied::Stale { current } => {
                self.audit(
                    Entry::new(Action::RollbackRefused, "guard", Some(cycle))
                        .detail(format!(
                            "the files were edited after the apply (now {current}); the edit stays"
                        ))
                        .revisions(applied, parent),
                )?;
                Ok(false)
            }
            Applied::Refused(reason) => {
                self.audit(
                    Entry::new(Action::RollbackRefused, "guard", Some(cycle))
                        .detail(reason)
                        .revisions(applied, parent),
                )?;
                Ok(false)
            }
        }
    }
}
