//! How loki's prompts name a CLI agent's tools: Claude Code's Bash/Read/Edit/Write, opencode's
//! bash/read/edit/write, aider's edit blocks and the shell commands it runs. A prompt that names
//! tools the agent does not have sends it looking for them. A CLI agent has no `finish` tool: it
//! says how it ended on the first line of its final reply ([`CLI_FINISH`]).

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

pub const CLI_FINISH: &str = "End with a final reply whose first line is one word: DONE when the task is done, ALREADY_DONE when nothing had to change, or SPEC_CONFLICT followed by a colon and the reason when the task contradicts the tests or the specification.";
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

#[cfg(test)]
mod tests {
    use super::*;

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
