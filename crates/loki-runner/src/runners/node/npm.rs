//! A package script whose runner loki does not know: no structured report, its output read as
//! TAP, node's summary or a vitest/jest summary, whichever it is; never narrowed (the whole
//! script runs), never located (its ids name no file). Detection, status and isolation are the
//! family's ([`super`]).

use crate::isolate::Isolation;
use crate::reports::report::TestReport;
use crate::reports::{js, tap};
use crate::runners::Runner;

/// Another runner in a package script.
#[derive(Debug)]
pub(crate) struct Npm;

impl Runner for Npm {
    fn parse_log(&self, log: &str) -> Option<TestReport> {
        tap::parse_tap(log)
            .or_else(|| tap::parse_node_summary(log))
            .or_else(|| js::parse_summary(log))
    }

    fn missing_tool(&self, exit_code: i32, log: &str) -> Option<String> {
        super::missing_tool(exit_code, log)
    }

    fn isolation(&self) -> Isolation {
        Isolation::JavaScript
    }

    // Another runner's ids are read as the family's where they name a file (`<file> > …`);
    // nothing says where its children start.
    fn id_file_separator(&self) -> Option<&'static str> {
        Some(super::ID_SEPARATOR)
    }

    fn home<'a>(&self, id: &'a str) -> &'a str {
        super::file_of(id)
    }

    fn loads_other_sources(&self) -> bool {
        true
    }
}
