//! `loki config show` and `loki config path`.
//!
//! - **show**: one line per key, `key  value  source`: the key padded to the longest key's width,
//!   the value (a secret shown masked) to 28 columns, then where it came from, dimmed. `--json`:
//!   `{"settings": [{key, value, secret, source, env}]}`.
//! - **path**: `user  <file> (<state>)`, `repo  <file> (<state>)` (state: `exists`, `not created`,
//!   or `unavailable` when there is no home or no repository, the path then empty), then
//!   `file  <--config>` when one was given. `--json`: `{"user": {path, state}, "repo": {path,
//!   state}, "file"}`.
//! - **a broken configuration file** left out by a command that repairs a setup: `warning: <the
//!   error>; this file is ignored for this command (<how to mend it>)`, the word in yellow.

use std::fmt::Write as _;
use std::path::Path;

use loki_core::config::{Config, Ignored, KEYS, Kind, Layer};

use crate::style::{DIM, YELLOW, paint};

/// How to mend a broken file of `layer`.
#[must_use]
pub fn repair_hint(layer: Layer) -> &'static str {
    match layer {
        Layer::Repo => {
            "fix it, `loki config set --repo KEY VALUE` a bad value, or replace it with `loki config init --repo --force`"
        }
        Layer::File => "fix it, or leave out --config",
        Layer::User | Layer::Default | Layer::Env | Layer::Flag => {
            "fix it, `loki config set KEY VALUE` a bad value, or replace it with `loki config init --force`"
        }
    }
}

/// The warning for a broken configuration file a command left out.
#[must_use]
pub fn ignored(bad: &Ignored) -> String {
    format!(
        "{}: {}; this file is ignored for this command ({})",
        paint(YELLOW, "warning"),
        bad.error,
        repair_hint(bad.layer)
    )
}

/// The text of `loki config show`.
#[must_use]
pub fn show(config: &Config) -> String {
    let width = KEYS.iter().map(|k| k.key.len()).max().unwrap_or(0);
    let mut out = String::new();
    for e in config.entries() {
        let value = e.display_value();
        let _ = writeln!(
            out,
            "{:<width$}  {:<28}  {}",
            e.def.key,
            value,
            paint(DIM, &e.source.to_string())
        );
    }
    out
}

/// The `--json` form of `loki config show`.
#[must_use]
pub fn show_json(config: &Config) -> serde_json::Value {
    let entries: Vec<_> = config
        .entries()
        .map(|e| {
            serde_json::json!({
                "key": e.def.key,
                "value": e.display_value(),
                "secret": e.def.kind == Kind::Secret,
                "source": e.source,
                "env": loki_core::config::env_name(e.def.key),
            })
        })
        .collect();
    serde_json::json!({ "settings": entries })
}

/// A configuration file's path and whether it is there.
fn describe(p: Option<(&Path, bool)>) -> (Option<String>, &'static str) {
    match p {
        Some((p, true)) => (Some(p.display().to_string()), "exists"),
        Some((p, false)) => (Some(p.display().to_string()), "not created"),
        None => (None, "unavailable"),
    }
}

/// `loki config path`: the text and the `--json` object, for the user's file and the
/// repository's (each with whether it exists) and the `--config` file.
#[must_use]
pub fn paths(
    user: Option<(&Path, bool)>,
    repo: Option<(&Path, bool)>,
    file: Option<&Path>,
) -> (String, serde_json::Value) {
    let (u, us) = describe(user);
    let (r, rs) = describe(repo);
    let json = serde_json::json!({
        "user": {"path": u, "state": us},
        "repo": {"path": r, "state": rs},
        "file": file.map(|p| p.display().to_string()),
    });
    let (u, r) = (u.unwrap_or_default(), r.unwrap_or_default());
    let mut text = format!("user  {u} ({us})\nrepo  {r} ({rs})\n");
    if let Some(f) = file {
        let _ = writeln!(text, "file  {}", f.display());
    }
    (text, json)
}
