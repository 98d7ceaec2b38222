//! How loki's prompts name the agent's tools: the built-in loop has `run`, `edit`,
//! `apply_patch` and `finish`; a CLI agent has its own (Claude Code's Bash/Read/Edit/Write,
//! opencode's bash/read/edit/write, aider's edit blocks and the shell commands it runs). A prompt
//! that names tools the agent does not have sends it looking for them.
//!
//! A CLI agent has no `finish` tool: it says how it ended on the first line of its final reply
//! (`DONE`, `ALREADY_DONE`, `SPEC_CONFLICT: <reason>`), read back by [`finish_from_reply`].
//! The CLI agents' words are in `loki_clients::words`.

use loki_clients::ToolWords;

use crate::tools::FinishStatus;

/// The built-in loop's tools.
pub const LOOP_WORDS: ToolWords = ToolWords {
    system: crate::agent::DEFAULT_SYSTEM_PROMPT,
    run_tests: "with `run`",
    finish: "End with `finish`: `done` when the task is done, `already_done` when nothing had to change, `spec_conflict` with the reason when the task contradicts the tests or the specification.",
    done: "call `finish` with status `done`",
};

/// The ending every CLI agent is told (it has no `finish` tool).
/// How a CLI agent said it ended, from its final reply (pure): the first line that starts with
/// `SPEC_CONFLICT` or `ALREADY_DONE` (markdown emphasis aside), with what follows as the
/// detail; otherwise done.
#[must_use]
pub fn finish_from_reply(reply: &str) -> (FinishStatus, String) {
    for line in reply.lines() {
        let l = line.trim().trim_start_matches(['*', '`', '#', ' ']);
        for (word, status) in [
            ("SPEC_CONFLICT", FinishStatus::SpecConflict),
            ("ALREADY_DONE", FinishStatus::AlreadyDone),
        ] {
            if let Some(rest) = l.strip_prefix(word) {
                let detail = rest.trim_start_matches(['*', '`', ':', ' ']).trim();
                return (status, detail.to_string());
            }
        }
    }
    (FinishStatus::Done, String::new())
}

#[cfg(test)]
mod tests {
    use super::*;
    use loki_clients::CLI_FINISH;

    #[test]
    fn a_cli_reply_says_how_it_ended() {
        assert_eq!(
            finish_from_reply("SPEC_CONFLICT: the tests want a - b\nmore"),
            (FinishStatus::SpecConflict, "the tests want a - b".into())
        );
        assert_eq!(
            finish_from_reply("**ALREADY_DONE**"),
            (FinishStatus::AlreadyDone, String::new())
        );
        assert_eq!(
            finish_from_reply("DONE\nadd now sums"),
            (FinishStatus::Done, String::new())
        );
        // The prompt's own wording, quoted back mid-line, is not an ending.
        assert_eq!(finish_from_reply(CLI_FINISH).0, FinishStatus::Done);
    }
}
