//! Command lines of the CLI agents: a template per client ([`CliKind::template`]) of literal
//! arguments and slots ([`Arg`]) for the task, the model and the repository's test command.

use crate::kind::CliKind;

/// One element of a command line template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arg {
    /// Passed as written.
    Lit(&'static str),
    /// The task (the prompt).
    Task,
    /// The model flag and the model, when one was asked for ([`CliKind::model_flag`]).
    Model,
    /// The flags that hand the client the repository's test command, when the run has one
    /// ([`CliKind::test_flags`]): how a client that cannot run commands on its own (aider asks
    /// before every command it suggests) still runs the tests after its edits.
    Tests,
}
impl CliKind {
    /// The command line template: literal arguments and where the task goes ([`Arg::Task`]).
    #[must_use]
    pub fn template(self) -> &'static [Arg] {
        use Arg::{Lit, Model, Task, Tests};
        match self {
            CliKind::Claude => &[
                Lit("-p"),
                Task,
                Lit("--output-format"),
                Lit("json"),
                Lit("--permission-mode"),
                Lit("acceptEdits"),
                Lit("--allowedTools"),
                Lit("Bash,Edit,Write,Read"),
                Model,
            ],
            CliKind::Codex => &[
                Lit("exec"),
                Lit("--json"),
                Lit("--dangerously-bypass-approvals-and-sandbox"),
                Lit("--skip-git-repo-check"),
                Task,
            ],
            CliKind::Aider => &[
                Lit("--yes-always"),
                // loki commits the verified change; aider commits nothing, not even a file it
                // finds dirty before its edit.
                Lit("--no-auto-commits"),
                Lit("--no-dirty-commits"),
                // Otherwise aider adds `.aider*` to the worktree's .gitignore: a change loki
                // would commit.
                Lit("--no-gitignore"),
                Lit("--no-check-update"),
                Lit("--analytics-disable"),
                Lit("--no-pretty"),
                Lit("--no-fancy-input"),
                Model,
                Tests,
                Lit("--message"),
                Task,
            ],
            CliKind::Opencode => &[
                Lit("run"),
                Lit("--format"),
                Lit("json"),
                Lit("--auto"),
                // A title of its own: otherwise opencode first asks the model for one.
                Lit("--title"),
                Lit("loki"),
                Model,
                Task,
            ],
        }
    }

    /// The flag that names the model (`None`: loki cannot choose it).
    #[must_use]
    pub fn model_flag(self) -> Option<&'static str> {
        match self {
            CliKind::Claude | CliKind::Aider | CliKind::Opencode => Some("--model"),
            CliKind::Codex => None,
        }
    }

    /// Every flag loki may pass (the conformance suite checks each against the real `--help`).
    #[must_use]
    pub fn flags(self) -> Vec<&'static str> {
        let mut out: Vec<&'static str> = self
            .template()
            .iter()
            .filter_map(|a| match a {
                Arg::Lit(l) if l.starts_with('-') => Some(*l),
                _ => None,
            })
            .collect();
        out.extend(self.model_flag());
        out.extend(self.test_flags().iter().filter(|f| f.starts_with('-')));
        out
    }

    /// How the test command is passed (`{cmd}` stands for it): aider runs it after each edit
    /// and gives the model the failures (`--auto-test`). Empty for clients that run commands
    /// themselves.
    #[must_use]
    pub fn test_flags(self) -> &'static [&'static str] {
        match self {
            CliKind::Aider => &["--test-cmd", "{cmd}", "--auto-test"],
            CliKind::Claude | CliKind::Codex | CliKind::Opencode => &[],
        }
    }

    /// The non-interactive arguments for `task` (and `model`, when one was asked for and the
    /// client takes one).
    #[must_use]
    pub fn argv(self, task: &str, model: Option<&str>) -> Vec<String> {
        self.argv_with_tests(task, model, None)
    }

    /// [`CliKind::argv`] with the repository's test command, for the clients that take one.
    #[must_use]
    pub fn argv_with_tests(
        self,
        task: &str,
        model: Option<&str>,
        tests: Option<&str>,
    ) -> Vec<String> {
        let mut args = Vec::new();
        for a in self.template() {
            match a {
                Arg::Lit(l) => args.push((*l).to_string()),
                Arg::Task => args.push(task.to_string()),
                Arg::Tests => {
                    if let Some(cmd) = tests {
                        args.extend(self.test_flags().iter().map(|f| {
                            if *f == "{cmd}" {
                                cmd.to_string()
                            } else {
                                (*f).to_string()
                            }
                        }));
                    }
                }
                Arg::Model => {
                    if let (Some(flag), Some(model)) = (self.model_flag(), model) {
                        args.push(flag.to_string());
                        args.push(model.to_string());
                    }
                }
            }
        }
        args
    }

    /// The non-interactive arguments for `task`, without a model.
    #[must_use]
    pub fn args(self, task: &str) -> Vec<String> {
        self.argv(task, None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_lines_are_non_interactive_and_take_the_model_before_the_task() {
        assert_eq!(
            CliKind::Claude.args("fix it"),
            [
                "-p",
                "fix it",
                "--output-format",
                "json",
                "--permission-mode",
                "acceptEdits",
                "--allowedTools",
                "Bash,Edit,Write,Read"
            ]
        );
        assert_eq!(
            CliKind::Claude.argv("t", Some("claude-sonnet-4-5"))[8..],
            ["--model", "claude-sonnet-4-5"]
        );
        let aider = CliKind::Aider.argv("t", Some("openai/gpt-4.1"));
        assert_eq!(
            aider[aider.len() - 4..],
            ["--model", "openai/gpt-4.1", "--message", "t"]
        );
        assert_eq!(
            CliKind::Opencode.argv("t", Some("fake/m")),
            [
                "run", "--format", "json", "--auto", "--title", "loki", "--model", "fake/m", "t"
            ]
        );
        assert!(CliKind::Aider.flags().contains(&"--no-gitignore"));
    }
}
