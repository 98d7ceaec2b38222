//! `run_takeover` (build script): a Cargo build script, new or changed, that writes into the
//! source tree. `build.rs` runs before every build of its package, `cargo test` included; one
//! that writes anywhere but `OUT_DIR` (`fs::write("tests/data/vectors.txt", ..)`) changes the
//! files the tests read after the change was made, so what the tests check is not what the change
//! shows. Writing into `OUT_DIR` (generated code, `include!`d) is what build scripts are for.
//!
//! Judged on the text of a file named `build.rs` whose added lines write a file (`fs::write`,
//! `File::create`, `OpenOptions`, `fs::copy`, `fs::rename`, `fs::remove_file`) and that never
//! names `OUT_DIR`.

use crate::rules::{Out, Prepared};
use loki_protocol::{Finding, FindingKind};

const WRITES: &[&str] = &[
    "fs::write(",
    "File::create(",
    "OpenOptions::new(",
    "fs::copy(",
    "fs::rename(",
    "fs::remove_file(",
    "write_all(",
];

pub(crate) fn rules(p: &Prepared, out: &mut Out) {
    let name = p.path.rsplit('/').next().unwrap_or(p.path);
    if name != "build.rs" {
        return;
    }
    let Some(text) = p.head_text.as_deref() else {
        return;
    };
    if text.contains("OUT_DIR") {
        return;
    }
    for (i, l) in text.lines().enumerate() {
        let at = u32::try_from(i + 1).unwrap_or(u32::MAX);
        if !p.added.contains(&at) || !WRITES.iter().any(|w| l.contains(w)) {
            continue;
        }
        out.push(
            Finding::new(
                FindingKind::RunTakeover,
                p.path,
                format!(
                    "`{}`: the build script writes into the source tree before every build, `cargo test` included, so the tests read what it wrote, not what the change shows",
                    loki_syntax::ast::quote(l)
                ),
            )
            .at_line(at),
        );
        return;
    }
}
