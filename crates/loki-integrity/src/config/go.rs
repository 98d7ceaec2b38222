//! `go.mod` and `go.work`: `replace`, `go`, `toolchain` and `godebug` directives, and the
//! workspace's `use` list.

use std::collections::BTreeMap;

use crate::testcmd::runs::Hit;

/// go.mod / go.work directives: (verb, arguments, line), blocks expanded, comments dropped.
fn go_directives(text: &str) -> Vec<(String, String, u32)> {
    let mut out = Vec::new();
    let mut block: Option<String> = None;
    for (i, raw) in text.lines().enumerate() {
        let l = raw.split("//").next().unwrap_or("").trim();
        if l.is_empty() {
            continue;
        }
        let line = u32::try_from(i + 1).unwrap_or(u32::MAX);
        if let Some(v) = &block {
            if l == ")" {
                block = None;
            } else {
                out.push((
                    v.clone(),
                    l.split_whitespace().collect::<Vec<_>>().join(" "),
                    line,
                ));
            }
            continue;
        }
        let (verb, rest) = l.split_once(char::is_whitespace).unwrap_or((l, ""));
        let rest = rest.trim();
        if rest == "(" {
            block = Some(verb.to_owned());
            continue;
        }
        out.push((
            verb.to_owned(),
            rest.split_whitespace().collect::<Vec<_>>().join(" "),
            line,
        ));
    }
    out
}

fn one(d: &[(String, String, u32)], verb: &str) -> Option<(String, u32)> {
    d.iter()
        .rev()
        .find(|(v, _, _)| v == verb)
        .map(|(_, a, l)| (a.clone(), *l))
}

fn replaces(d: &[(String, String, u32)]) -> BTreeMap<String, (String, u32)> {
    d.iter()
        .filter(|(v, _, _)| v == "replace")
        .filter_map(|(_, a, l)| {
            let (from, to) = a.split_once("=>")?;
            Some((from.trim().to_owned(), (to.trim().to_owned(), *l)))
        })
        .collect()
}

fn go_common(
    file: &str,
    b: &[(String, String, u32)],
    h: &[(String, String, u32)],
    existed: bool,
    out: &mut Vec<Hit>,
) {
    // A new module's `go` line is where it starts, not a change.
    for verb in ["go", "toolchain"].into_iter().filter(|_| existed) {
        let (bv, hv) = (one(b, verb), one(h, verb));
        if bv.as_ref().map(|x| &x.0) != hv.as_ref().map(|x| &x.0) {
            let show = |v: &Option<(String, u32)>| {
                v.as_ref()
                    .map_or_else(|| "unset".to_owned(), |x| format!("`{}`", x.0))
            };
            out.push(Hit {
                line: hv.as_ref().map(|x| x.1),
                detail: format!("{file} `{verb}` changed from {} to {}: the language and toolchain version change how the code behaves", show(&bv), show(&hv)),
            });
        }
    }
    let (br, hr) = (replaces(b), replaces(h));
    for (from, (to, line)) in &hr {
        if br.get(from).map(|x| &x.0) != Some(to) {
            let what = if to.starts_with('.') || to.starts_with('/') {
                "a local directory"
            } else {
                "another module"
            };
            out.push(Hit {
                line: Some(*line),
                detail: format!("{file} `replace {from} => {to}` swaps a dependency for {what}"),
            });
        }
    }
}

pub(super) fn go_mod(existed: bool, base: &str, head: &str) -> Vec<Hit> {
    let (b, h) = (go_directives(base), go_directives(head));
    let mut out = Vec::new();
    go_common("go.mod", &b, &h, existed, &mut out);
    let debug = |d: &[(String, String, u32)]| -> BTreeMap<String, u32> {
        d.iter()
            .filter(|(v, _, _)| v == "godebug")
            .map(|(_, a, l)| (a.clone(), *l))
            .collect()
    };
    let (bd, hd) = (debug(&b), debug(&h));
    for (k, line) in hd.iter().filter(|(k, _)| !bd.contains_key(*k)) {
        out.push(Hit {
            line: Some(*line),
            detail: format!("go.mod `godebug {k}` changes runtime behaviour"),
        });
    }
    out
}

pub(super) fn go_work(existed: bool, base: &str, head: &str) -> Vec<Hit> {
    let (b, h) = (go_directives(base), go_directives(head));
    let uses = |d: &[(String, String, u32)]| -> BTreeMap<String, u32> {
        d.iter()
            .filter(|(v, _, _)| v == "use")
            .map(|(_, a, l)| (a.clone(), *l))
            .collect()
    };
    let (bu, hu) = (uses(&b), uses(&h));
    if !existed {
        if h.is_empty() {
            return Vec::new();
        }
        let list = hu
            .keys()
            .map(|u| format!("`{u}`"))
            .collect::<Vec<_>>()
            .join(", ");
        return vec![Hit {
            line: hu.values().next().copied().or(Some(1)),
            detail: format!(
                "go.work added: `go test` now builds in workspace mode with the local modules {list} instead of the required versions"
            ),
        }];
    }
    let mut out = Vec::new();
    for (u, line) in hu.iter().filter(|(u, _)| !bu.contains_key(*u)) {
        out.push(Hit {
            line: Some(*line),
            detail: format!(
                "go.work `use {u}` builds against a local module instead of the required version"
            ),
        });
    }
    go_common("go.work", &b, &h, true, &mut out);
    out
}
