//! How loki's prompts name the agent's tools: the built-in loop has `run`, `edit`,
//! `apply_patch` and `finish`; a CLI agent has its own (Claude Code's Bash/Read/Edit/Write,
//! opencode's bash/read/edit/write, aider's edit blocks and the shell commands it runs). A prompt
//! that names tools the agent does not have sends it looking for them.
//!
//! A CLI agent has no `finish` tool: it says how it ended on the first line of its final reply
//! (`DONE`, `ALREADY_DONE`, `SPEC_CONFLICT: <reason>`), read back by [`finish_from_reply`].

use crate::tools::FinishStatus;

/// The words of one agent's toolset, spliced into loki's prompts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolWords {
    /// The implementer's system prompt.
    pub system: &'static str,
    /// Completes "run the relevant tests …".
    pub run_tests: &'static str,
    /// How a session ends, with its three outcomes (the last rule of the implementer's brief).
    pub finish: &'static str,
    /// "When done, …": ending a session that did its job.
    pub done: &'static str,
}

/// The built-in loop's tools.
pub const LOOP_WORDS: ToolWords = ToolWords {
    system: crate::agent::DEFAULT_SYSTEM_PROMPT,
    run_tests: "with `run`",
    finish: "End with `finish`: `done` when the task is done, `already_done` when nothing had to change, `spec_conflict` with the reason when the task contradicts the tests or the specification.",
    done: "call `finish` with status `done`",
};

/// The ending every CLI agent is told (it has no `finish` tool).
const CLI_FINISH: &str = "End with a final reply whose first line is one word: DONE when the task is done, ALREADY_DONE when nothing had to change, or SPEC_CONFLICT followed by a colon and the reason when the task contradicts the tests or the specification.";
const CLI_DONE: &str = "end with a final reply whose first line is DONE";

/// Claude Code's tools.
pub const CLAUDE_WORDS: ToolWords = ToolWords {
    system: "You are a careful software engineer working in a git repository. \
Read the code with the Read tool, make the smallest change that does the task with the Edit and Write tools, \
and run the tests with the Bash tool. Paths are relative to the repository root (your working directory).",
    run_tests: "with the Bash tool",
    finish: CLI_FINISH,
    done: CLI_DONE,
};

/// opencode's tools.
pub const OPENCODE_WORDS: ToolWords = ToolWords {
    system: "You are a careful software engineer working in a git repository. \
Read the code with the read tool, make the smallest change that does the task with the edit and write tools, \
and run the tests with the bash tool. Paths are relative to the repository root (your working directory).",
    run_tests: "with the bash tool",
    finish: CLI_FINISH,
    done: CLI_DONE,
};

/// aider's way of working: edit blocks in its edit format. It does not run commands itself (under
/// `--yes-always` it still asks for an explicit yes before a suggested shell command): loki hands
/// it the repository's tests (`--test-cmd … --auto-test`), which it runs after each edit,
/// feeding the failures back to the model.
pub const AIDER_WORDS: ToolWords = ToolWords {
    system: "You are a careful software engineer working in a git repository. \
Make the smallest change that does the task with your file edit blocks. You do not run commands here: \
the repository's tests run after each of your edits and you are shown what failed. Paths are relative to the repository root.",
    run_tests: "by making your edit (the tests run after each edit and you see what failed)",
    finish: CLI_FINISH,
    done: CLI_DONE,
};

/// Codex's tools: its shell (`exec_command`, 0.171), and `apply_patch` only for the models Codex
/// gives it to (a model without it edits through the shell).
pub const CODEX_WORDS: ToolWords = ToolWords {
    system: "You are a careful software engineer working in a git repository. \
Read the code and run the tests with your shell tool, and make the smallest change that does the task with your file editing tool (or the shell). \
Paths are relative to the repository root (your working directory).",
    run_tests: "with your shell tool",
    finish: CLI_FINISH,
    done: CLI_DONE,
};

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

    #[test]
    fn cli_words_name_no_tool_of_the_loop() {
        for w in [CLAUDE_WORDS, CODEX_WORDS, OPENCODE_WORDS, AIDER_WORDS] {
            for loop_tool in ["`run`", "`finish`", "`edit`", "apply_patch"] {
                for text in [w.system, w.run_tests, w.finish, w.done] {
                    assert!(!text.contains(loop_tool), "{loop_tool} in {text}");
                }
            }
        }
    }
}
