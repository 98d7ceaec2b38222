//! The editor's side of a cycle: its model (built once per cycle), the proposal, and the one
//! reflection a rejected or rolled-back cycle gets.

use super::*;

impl Cycle<'_, '_> {
    pub(super) fn editor_box(&self) -> editor::EditorBox {
        let mut secrets = vec![self.rt.home.clone()];
        secrets.extend(self.rt.key_env.signing_key_file.clone());
        editor::EditorBox {
            repo: self.rt.repo.clone(),
            secrets,
            confine_exe: self.rt.confine_exe.clone(),
        }
    }

    pub(super) fn editor_backend(&mut self) -> Result<&Backend, String> {
        if self.editor.is_none() {
            self.editor = Some((self.rt.editor)()?);
        }
        self.editor.as_ref().ok_or_else(|| "no editor".to_string())
    }

    pub(super) fn propose(
        &mut self,
        training: &[Case],
        current: &AgentFiles,
        records: &[CycleRecord],
    ) -> Result<Proposal, Box<Result<CycleRecord, ImproveError>>> {
        let reflections: Vec<String> = records
            .iter()
            .rev()
            .filter_map(|r| r.reflection.clone())
            .take(REFLECTIONS_SHOWN)
            .collect();
        let brief = editor::brief(&self.rt.repo, training, current, &reflections);
        let timeout = Duration::from_secs(self.cfg.editor_timeout_s);
        let left = self.tokens_left();
        let boxed = self.editor_box();
        let answer = match self.editor_backend() {
            Ok(b) => editor::propose(b, &brief, timeout, left, &boxed).map_err(|o| o.0),
            Err(e) => Err(e),
        };
        match answer {
            Err(why) => Err(Box::new(
                self.end(Outcome::Outage, format!("editor: {why}")),
            )),
            Ok((answer, tokens)) => {
                self.rec.tokens += tokens;
                match answer {
                    EditorAnswer::Proposal(p) => {
                        self.rec.rationale = Some(p.rationale.clone());
                        Ok(p)
                    }
                    EditorAnswer::Malformed(why) => {
                        let r = self
                            .audit(self.entry(Action::Reject, "gate").detail(why.clone()))
                            .and_then(|()| {
                                self.reflect_text(
                                    "(not a proposal)",
                                    &format!("the gate refused it: {why}"),
                                );
                                self.end(
                                    Outcome::Rejected,
                                    format!("the gate refused the editor's answer: {why}"),
                                )
                            });
                        Err(Box::new(r))
                    }
                }
            }
        }
    }

    pub(super) fn reflect(&mut self, p: &Proposal, what: &str) {
        let text = serde_json::to_string_pretty(p).unwrap_or_default();
        self.reflect_text(&text, what);
    }

    /// One reflection, audited; its failure is audited as `reflect-fail` and ends nothing.
    pub(super) fn reflect_text(&mut self, proposal: &str, what: &str) {
        let timeout = Duration::from_secs(self.cfg.editor_timeout_s);
        let boxed = self.editor_box();
        let result = match self.editor_backend() {
            Ok(b) => editor::reflect(b, proposal, what, timeout, &boxed).map_err(|o| o.0),
            Err(e) => Err(e),
        };
        let entry = match result {
            Ok((text, tokens)) => {
                self.rec.tokens += tokens;
                self.rec.reflection = Some(text.clone());
                self.entry(Action::Reflect, "cycle").detail(one_line(&text))
            }
            Err(why) => self.entry(Action::ReflectFail, "cycle").detail(why),
        };
        // The cycle's outcome stands whether or not its reflection could be audited.
        let _ = self.audit(entry);
    }
}
