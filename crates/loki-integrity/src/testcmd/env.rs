//! Environment: the variables a runner reads, and `RUSTFLAGS`, compared between base and head.

use std::collections::{BTreeMap, BTreeSet};

use super::args::{compare_args, dynamic, items};
use super::specs::{GO, JS, PYTEST};
use super::{Cat, Change, Mode};
use crate::shell::split_words;

/// Variables that change how tests run, compared between a base and a head environment.
pub fn env_changes(b: &BTreeMap<String, String>, h: &BTreeMap<String, String>) -> Vec<Change> {
    let mut out = Vec::new();
    let get = |m: &BTreeMap<String, String>, k: &str| m.get(k).cloned().unwrap_or_default();
    let names: BTreeSet<&String> = b.keys().chain(h.keys()).collect();
    for name in names {
        let (bv, hv) = (get(b, name), get(h, name));
        if bv == hv || dynamic(&hv) {
            continue;
        }
        let words = |s: &str| split_words(s);
        let mut sub = Vec::new();
        match name.as_str() {
            "PYTEST_ADDOPTS" => sub = compare_args(&PYTEST, &words(&bv), &words(&hv), Mode::Ci),
            "GOFLAGS" => sub = compare_args(&GO, &words(&bv), &words(&hv), Mode::Ci),
            "NODE_OPTIONS" => sub = compare_args(&JS, &words(&bv), &words(&hv), Mode::Ci),
            "TOXENV" | "NOXSESSION" => {
                let (bs, hs) = (
                    items(std::slice::from_ref(&bv)),
                    items(std::slice::from_ref(&hv)),
                );
                if !hs.is_empty() && (bs.is_empty() || !bs.is_subset(&hs)) {
                    sub.push(Change::new(Cat::Narrowed, format!("selects `{hv}`")));
                }
            }
            "RUSTFLAGS" | "RUSTDOCFLAGS" | "CARGO_ENCODED_RUSTFLAGS" => {
                sub = rustflags_changes(&words(&bv), &words(&hv));
            }
            "INSTA_UPDATE" if matches!(hv.as_str(), "always" | "unseen" | "new") => {
                sub.push(Change::new(
                    Cat::CannotFail,
                    "snapshots are rewritten to what the code produces",
                ));
            }
            "INSTA_FORCE_PASS" | "UPDATE_EXPECT" | "UPDATE_SNAPSHOTS" | "SNAPSHOT_UPDATE"
            | "UPDATE_GOLDEN"
                if !hv.is_empty() && hv != "0" && hv != "false" =>
            {
                sub.push(Change::new(
                    Cat::CannotFail,
                    "expected outputs are rewritten to what the code produces",
                ));
            }
            "TRYBUILD" if hv == "overwrite" => {
                sub.push(Change::new(
                    Cat::CannotFail,
                    "expected outputs are rewritten to what the code produces",
                ));
            }
            "NEXTEST_RETRIES"
                if hv.parse::<u64>().unwrap_or(0) > bv.parse::<u64>().unwrap_or(0) =>
            {
                sub.push(Change::new(Cat::Narrowed, "failing tests are retried"));
            }
            "PYTHONPATH" | "NODE_PATH" => {
                let sep = |s: &str| {
                    s.split(':')
                        .filter(|x| !x.is_empty())
                        .map(str::to_owned)
                        .collect::<BTreeSet<_>>()
                };
                if !sep(&hv).is_subset(&sep(&bv)) {
                    sub.push(Change::new(
                        Cat::Narrowed,
                        "new import paths can shadow the modules under test",
                    ));
                }
            }
            _ => {}
        }
        for c in sub {
            out.push(Change::new(c.cat, format!("{name}: {}", c.text)));
        }
    }
    out
}

/// `--cfg` switches and turned-off runtime checks added to rustc flags.
pub fn rustflags_changes(b: &[String], h: &[String]) -> Vec<Change> {
    pub(super) fn flags(w: &[String]) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        let mut k = 0;
        while let Some(a) = w.get(k) {
            let joined = |name: &str| -> Option<String> {
                if a == name {
                    w.get(k + 1).map(|v| format!("{name} {v}"))
                } else {
                    a.strip_prefix(name)
                        .map(|v| format!("{name} {}", v.trim_start_matches('=')))
                }
            };
            if let Some(f) = joined("--cfg").or_else(|| joined("-C")) {
                if a == "--cfg" || a == "-C" {
                    k += 1;
                }
                out.insert(f);
            }
            k += 1;
        }
        out
    }
    let (bf, hf) = (flags(b), flags(h));
    let mut out = Vec::new();
    for f in hf.difference(&bf) {
        let off = |k: &str| {
            f.starts_with(&format!("-C {k}="))
                && ["off", "no", "n", "false"]
                    .iter()
                    .any(|v| f.ends_with(&format!("={v}")))
        };
        if f.starts_with("--cfg") {
            out.push(Change::new(
                Cat::Narrowed,
                format!("adds `{f}`, which switches code paths at compile time"),
            ));
        } else if off("debug-assertions") || off("overflow-checks") {
            out.push(Change::new(
                Cat::CannotFail,
                format!("adds `{f}`, which turns off runtime checks the tests rely on"),
            ));
        }
    }
    out
}
