//! Matrices: GitHub `strategy.matrix` values lost, `exclude` added, `include` removed; GitLab
//! `parallel: matrix` combinations lost.

use std::collections::BTreeSet;

use serde_yaml_ng::{Mapping, Value};

use super::yaml::{key, render};
use super::{Format, Read};
use crate::ci::yamlpos::YamlPos;
use crate::testcmd::runs::Hit;

fn seq_items(v: &Value) -> Option<Vec<Value>> {
    match v {
        Value::Sequence(s) => Some(s.clone()),
        Value::String(s) if s.contains("${{") => None,
        Value::Mapping(_) => None,
        v => Some(vec![v.clone()]),
    }
}

fn github_matrix(b: &Value, h: &Value) -> Vec<(String, String)> {
    let (Some(bm), Some(hm)) = (b.as_mapping(), h.as_mapping()) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (k, bv) in bm {
        let Some(name) = k.as_str() else { continue };
        if matches!(name, "include" | "exclude") {
            continue;
        }
        let Some(bl) = seq_items(bv) else { continue };
        match hm.get(k) {
            None if bl.len() > 1 => out.push((
                name.to_owned(),
                format!(
                    "`{name}` lost all its values ({})",
                    bl.iter().map(render).collect::<Vec<_>>().join(", ")
                ),
            )),
            None => {}
            Some(hv) => {
                let Some(hl) = seq_items(hv) else { continue };
                let lost: Vec<String> = bl.iter().filter(|x| !hl.contains(x)).map(render).collect();
                if !lost.is_empty() {
                    out.push((
                        name.to_owned(),
                        format!(
                            "`{name}` lost {}",
                            lost.iter()
                                .map(|x| format!("`{x}`"))
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    ));
                }
            }
        }
    }
    let list = |m: &Mapping, k: &str| {
        m.get(k)
            .and_then(Value::as_sequence)
            .cloned()
            .unwrap_or_default()
    };
    for x in list(hm, "exclude") {
        if !list(bm, "exclude").contains(&x) {
            out.push((
                "exclude".into(),
                format!("adds the exclusion `{}`", render(&x)),
            ));
        }
    }
    // An `include` entry is dropped when no head entry still names the values it selects by:
    // its scalar keys (`toolchain: beta`). Keys that only carry extra settings (`env:` maps)
    // may be reshaped (`env: {DO_FUZZ: 1}` → `fuzz: 1`) without running less.
    let selectors = |e: &Value| -> Vec<(Value, Value)> {
        e.as_mapping()
            .map(|m| {
                m.iter()
                    .filter(|(_, v)| !v.is_mapping() && !v.is_sequence())
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect()
            })
            .unwrap_or_default()
    };
    let head_includes = list(hm, "include");
    for x in list(bm, "include") {
        if head_includes.contains(&x) {
            continue;
        }
        let wanted = selectors(&x);
        let kept = !wanted.is_empty()
            && head_includes.iter().any(|h| {
                let have = selectors(h);
                let shared: Vec<&(Value, Value)> = wanted
                    .iter()
                    .filter(|(k, _)| have.iter().any(|(hk, _)| hk == k))
                    .collect();
                !shared.is_empty() && shared.iter().all(|kv| have.contains(kv))
            });
        if !kept {
            out.push((
                "include".into(),
                format!("drops the entry `{}`", render(&x)),
            ));
        }
    }
    out
}

/// GitLab `parallel: matrix` as the set of variable combinations it runs.
fn gitlab_combos(v: &Value) -> Option<BTreeSet<String>> {
    let entries = v.as_sequence()?;
    let mut out = BTreeSet::new();
    for e in entries {
        let m = e.as_mapping()?;
        let mut combos: Vec<Vec<(String, String)>> = vec![Vec::new()];
        for (k, v) in m {
            let name = render(k);
            let values: Vec<String> = seq_items(v)?.iter().map(render).collect();
            let mut next = Vec::new();
            for c in &combos {
                for val in &values {
                    let mut c = c.clone();
                    c.push((name.clone(), val.clone()));
                    next.push(c);
                    if next.len() > 4096 {
                        return None;
                    }
                }
            }
            combos = next;
        }
        for mut c in combos {
            c.sort();
            out.insert(format!(
                "{{{}}}",
                c.iter()
                    .map(|(k, v)| format!("{k}: {v}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    }
    Some(out)
}

pub(super) fn matrix_hits(b: &Read, h: &Read, pos: &YamlPos, format: Format) -> Vec<Hit> {
    let mut out = Vec::new();
    let tested: BTreeSet<&String> = b.side.runs.iter().map(|r| &r.job).collect();
    for (job, bm) in &b.matrices {
        if !tested.contains(job) {
            continue;
        }
        let Some(hm) = h.matrices.get(job) else {
            continue;
        };
        let label = h
            .side
            .jobs
            .get(job)
            .map_or_else(|| format!("job `{job}`"), |(l, _)| l.clone());
        match format {
            Format::GitHub => {
                for (k, what) in github_matrix(bm, hm) {
                    out.push(Hit {
                        line: pos.line(&[
                            key("jobs"),
                            key(job),
                            key("strategy"),
                            key("matrix"),
                            key(&k),
                        ]),
                        detail: format!("the matrix of {label} shrank: {what}"),
                    });
                }
            }
            _ => {
                let (Some(bc), Some(hc)) = (gitlab_combos(bm), gitlab_combos(hm)) else {
                    continue;
                };
                let lost: Vec<&String> = bc.difference(&hc).collect();
                if !lost.is_empty() {
                    out.push(Hit {
                        line: pos.line(&[key(job), key("parallel"), key("matrix")]),
                        detail: format!(
                            "the matrix of {label} shrank: it no longer runs {}",
                            lost.iter()
                                .map(|x| format!("`{x}`"))
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    });
                }
            }
        }
    }
    out
}
