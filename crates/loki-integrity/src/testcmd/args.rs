//! Arguments: parsed by a tool's [`Spec`] into flags and positionals, and two versions compared
//! by what each flag means.

use std::collections::{BTreeMap, BTreeSet};

use super::Rule::*;
use super::identify::is_flag;
use super::{Cat, Change, Mode, Pos, Rule, Spec};

#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Parsed {
    /// Canonical flag → its values (`""` for none).
    flags: BTreeMap<String, Vec<String>>,
    pos: Vec<String>,
    sub: Option<Box<Parsed>>,
}

pub(super) fn dynamic(w: &str) -> bool {
    w.contains("${{") || w.contains('$') || w.contains("{posargs")
}

fn canon<'a>(spec: &Spec, name: &'a str) -> &'a str {
    spec.aliases
        .iter()
        .find(|(a, _)| *a == name)
        .map_or(name, |(_, c)| c)
}

fn parse_args(spec: &'static Spec, args: &[String]) -> Parsed {
    let mut p = Parsed::default();
    let mut k = 0;
    let mut seen_positional = false;
    while let Some(a) = args.get(k) {
        k += 1;
        if a == "--" {
            match spec.sub {
                Some(sub) => p.sub = Some(Box::new(parse_args(sub, &args[k..]))),
                None => p
                    .pos
                    .extend(args[k..].iter().filter(|w| !dynamic(w)).cloned()),
            }
            break;
        }
        if dynamic(a) {
            continue;
        }
        if !is_flag(a) || a.parse::<f64>().is_ok() {
            if !seen_positional && spec.subcommands.contains(&a.as_str()) {
                seen_positional = true;
                continue;
            }
            seen_positional = true;
            p.pos.push(a.clone());
            continue;
        }
        let mut push = |name: &str, value: &str| {
            p.flags
                .entry(canon(spec, name).to_owned())
                .or_default()
                .push(value.to_owned());
        };
        if let Some((n, v)) = a
            .split_once('=')
            .filter(|_| a.starts_with("--") || spec.single_dash_long)
        {
            push(n, v);
            continue;
        }
        if spec.values.contains(&a.as_str()) {
            let v = args
                .get(k)
                .filter(|v| !(is_flag(v) && spec.name == "js" && a == "--bail"));
            push(a, v.map_or("", |v| v.as_str()));
            if v.is_some() {
                k += 1;
            }
            continue;
        }
        if !a.starts_with("--") && !spec.single_dash_long && a.chars().count() > 2 {
            let short: String = a.chars().take(2).collect();
            if spec.values.contains(&short.as_str()) {
                push(&short, &a[short.len()..]);
                continue;
            }
            // `-vx`: bundled boolean short flags.
            if a[1..].chars().all(|c| c.is_ascii_alphabetic()) {
                for c in a[1..].chars() {
                    push(&format!("-{c}"), "");
                }
                continue;
            }
        }
        push(a, "");
    }
    p
}

fn show_flag(name: &str, value: &str) -> String {
    if value.is_empty() {
        format!("`{name}`")
    } else if value.contains(' ') {
        format!("`{name} '{value}'`")
    } else {
        format!("`{name} {value}`")
    }
}

/// Splits Select/Required values: `--features a,b`, `-e py39,py310`.
pub(super) fn items(values: &[String]) -> BTreeSet<String> {
    values
        .iter()
        .flat_map(|v| v.split([',', ' ']))
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

/// pytest plugins whose removal stops tests being collected, run or reported.
#[rustfmt::skip]
const PYTEST_CORE_PLUGINS: &[&str] = &[
    "python", "unittest", "doctest", "nose", "skipping", "runner", "main", "terminal", "junitxml",
    "assertion", "fixtures", "warnings", "capture", "pytester", "logging", "faulthandler",
];
/// ini keys an `-o` override may set without changing which tests run or how they pass.
#[rustfmt::skip]
const HARMLESS_INI: &[&str] = &[
    "markers", "filterwarnings", "minversion", "console_output_style", "cache_dir", "log_cli",
    "log_level", "log_cli_level", "log_format", "log_date_format", "log_file", "log_file_level",
    "asyncio_mode", "asyncio_default_fixture_loop_scope", "timeout", "junit_family",
    "junit_suite_name", "junit_logging", "junit_duration_report", "required_plugins",
    "doctest_optionflags", "faulthandler_timeout", "tmp_path_retention_count",
    "tmp_path_retention_policy", "verbosity_assertions", "verbosity_test_cases",
];

fn rule_of(spec: &Spec, name: &str) -> Option<Rule> {
    spec.rules.iter().find(|(n, _)| *n == name).map(|(_, r)| *r)
}

/// What changed between two argument lists of the same tool, as weakenings.
pub fn compare_args(
    spec: &'static Spec,
    base: &[String],
    head: &[String],
    mode: Mode,
) -> Vec<Change> {
    let (b, h) = (parse_args(spec, base), parse_args(spec, head));
    let mut out = Vec::new();
    compare_parsed(spec, &b, &h, mode, &mut out);
    out
}

fn compare_parsed(spec: &'static Spec, b: &Parsed, h: &Parsed, mode: Mode, out: &mut Vec<Change>) {
    let none: Vec<String> = Vec::new();
    let mut groups: BTreeMap<&str, Selected> = BTreeMap::new();
    let names: BTreeSet<&String> = b.flags.keys().chain(h.flags.keys()).collect();
    for name in names {
        let bv = b.flags.get(name).unwrap_or(&none);
        let hv = h.flags.get(name).unwrap_or(&none);
        let Some(rule) = rule_of(spec, name) else {
            continue;
        };
        match rule {
            Select(group) => select(spec, name, bv, hv, groups.entry(group).or_default()),
            NoRun | Retries | Required => out.extend(counted(rule, name, bv, hv)),
            _ => out.extend(
                hv.iter()
                    .filter(|v| !bv.contains(v))
                    .filter_map(|v| added(rule, name, v, mode)),
            ),
        }
    }
    for (group, (bs, hs)) in groups {
        out.extend(selection(group, &bs, &hs));
    }
    positionals(spec.pos, &b.pos, &h.pos, out);
    match (&b.sub, &h.sub, spec.sub) {
        (None, None, _) | (_, _, None) => {}
        (bs, hs, Some(sub)) => {
            let empty = Parsed::default();
            compare_parsed(
                sub,
                bs.as_deref().unwrap_or(&empty),
                hs.as_deref().unwrap_or(&empty),
                mode,
                out,
            );
        }
    }
}

/// What one selection group selected at base and at head (`--features`, `-k`, `-m`, ...).
type Selected = (BTreeSet<String>, BTreeSet<String>);

/// The weakening of flag `name` (of `rule`) that gained the value `v` at head, if it is one.
fn added(rule: Rule, name: &str, v: &str, mode: Mode) -> Option<Change> {
    let narrowed = |text: String| Some(Change::new(Cat::Narrowed, text));
    match rule {
        FilterIf(vals) if !vals.contains(&v) => None,
        Filter | FilterIf(_) => narrowed(format!("adds {}", show_flag(name, v))),
        UnfailingIf(vals) if !vals.contains(&v) => None,
        Unfailing | UnfailingIf(_) => Some(Change::new(
            Cat::CannotFail,
            format!("adds {}", show_flag(name, v)),
        )),
        StopsEarly if mode == Mode::Config => narrowed(format!(
            "adds {}: the run stops at the first failures and the rest never report",
            show_flag(name, v)
        )),
        Preload => narrowed(format!(
            "adds {}, which loads code into the test run",
            show_flag(name, v)
        )),
        PytestPlugin => match v.strip_prefix("no:") {
            Some(p) if PYTEST_CORE_PLUGINS.contains(&p) => narrowed(format!(
                "adds `-p {v}`, which disables pytest's `{p}` plugin"
            )),
            Some(_) => None,
            None => narrowed(format!(
                "adds `-p {v}`, which loads a plugin that can change collection and outcomes"
            )),
        },
        IniOverride => {
            let key = v.split_once('=').map_or(v, |(k, _)| k).trim();
            (!HARMLESS_INI.contains(&key)).then(|| {
                Change::new(
                    Cat::Narrowed,
                    format!(
                        "adds {}, which overrides the `{key}` setting",
                        show_flag(name, v)
                    ),
                )
            })
        }
        StopsEarly | NoRun | Retries | Required | Select(_) => None,
    }
}

/// The weakenings of a flag whose presence, count or list matters rather than each value:
/// `--no-run`-like flags added, more retries, required items dropped.
fn counted(rule: Rule, name: &str, bv: &[String], hv: &[String]) -> Vec<Change> {
    let narrowed = |text: String| Change::new(Cat::Narrowed, text);
    match rule {
        NoRun if !hv.is_empty() && bv.is_empty() => vec![Change::new(
            Cat::NeverRuns,
            format!("adds {}, so no test runs", show_flag(name, "")),
        )],
        Retries => {
            let n = |v: &[String]| {
                v.iter()
                    .filter_map(|x| x.parse::<u64>().ok())
                    .max()
                    .unwrap_or(if v.is_empty() { 0 } else { 1 })
            };
            if n(hv) > n(bv) {
                vec![narrowed(format!(
                    "adds {}: a failure that goes away on a rerun now passes",
                    show_flag(name, hv.last().map_or("", |s| s.as_str()))
                ))]
            } else {
                Vec::new()
            }
        }
        Required if !bv.is_empty() && hv.is_empty() => {
            vec![narrowed(format!(
                "drops {}",
                show_flag(name, &bv.join(","))
            ))]
        }
        Required => items(bv)
            .difference(&items(hv))
            .map(|lost| narrowed(format!("drops {}", show_flag(name, lost))))
            .collect(),
        _ => Vec::new(),
    }
}

/// Adds what flag `name` of a selection group selects at base and at head to `group`.
fn select(spec: &Spec, name: &str, bv: &[String], hv: &[String], group: &mut Selected) {
    let show = |v: &String| {
        if v.is_empty() {
            name.to_owned()
        } else {
            format!("{name} {v}")
        }
    };
    if matches!(name, "--features" | "-e" | "-m" | "-f" | "-s" | "-t" | "-p" if spec.name != "cargo test")
    {
        group
            .0
            .extend(items(bv).iter().map(|v| format!("{name} {v}")));
        group
            .1
            .extend(items(hv).iter().map(|v| format!("{name} {v}")));
    } else {
        group.0.extend(bv.iter().map(show));
        group.1.extend(hv.iter().map(show));
    }
}

/// A selection group that selects less at head: only some where it ran all, or fewer items.
fn selection(group: &str, bs: &BTreeSet<String>, hs: &BTreeSet<String>) -> Option<Change> {
    if hs.is_empty() || (!bs.is_empty() && bs.is_subset(hs)) {
        return None;
    }
    let list = |s: &BTreeSet<String>| {
        s.iter()
            .map(|x| format!("`{x}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let text = if bs.is_empty() {
        format!("now selects only {} (it ran all {group})", list(hs))
    } else {
        let lost: BTreeSet<String> = bs.difference(hs).cloned().collect();
        format!("no longer selects {}", list(&lost))
    };
    Some(Change::new(Cat::Narrowed, text))
}

fn norm_path(p: &str) -> String {
    let p = p.strip_prefix("./").unwrap_or(p);
    let p = p.trim_end_matches('/');
    if p.is_empty() { ".".into() } else { p.into() }
}

/// Whether head path or pattern `h` covers base `b` (`tests` covers `tests/a.py`; `./...` covers
/// every package).
fn covers(h: &str, b: &str) -> bool {
    let (h, b) = (norm_path(h), norm_path(b));
    if h == b || h == "." && b != ".." {
        return true;
    }
    if h == "..." {
        return true;
    }
    if let Some(dir) = h.strip_suffix("/...") {
        let b = b.strip_suffix("/...").unwrap_or(&b);
        return b == dir || b.starts_with(&format!("{dir}/"));
    }
    // A pytest node id: `tests/a.py::test_x` is covered by `tests/a.py`.
    let b_file = b.split("::").next().unwrap_or(&b);
    b_file == h || b_file.starts_with(&format!("{h}/"))
}

fn positionals(pos: Pos, b: &[String], h: &[String], out: &mut Vec<Change>) {
    let show = |v: &[&String]| {
        v.iter()
            .map(|x| format!("`{x}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match pos {
        Pos::Ignore => {}
        Pos::Paths => {
            if b.is_empty() && !h.is_empty() {
                let hs: Vec<&String> = h.iter().collect();
                out.push(Change::new(
                    Cat::Narrowed,
                    format!("now runs only {}", show(&hs)),
                ));
            } else {
                let lost: Vec<&String> = b
                    .iter()
                    .filter(|x| !h.iter().any(|y| covers(y, x)))
                    .collect();
                if !lost.is_empty() && !h.is_empty() {
                    out.push(Change::new(
                        Cat::Narrowed,
                        format!("no longer runs {}", show(&lost)),
                    ));
                }
            }
        }
        Pos::GoPkgs => {
            let dot = vec![".".to_owned()];
            let b = if b.is_empty() {
                dot.clone()
            } else {
                b.to_vec()
            };
            let h = if h.is_empty() { dot } else { h.to_vec() };
            let lost: Vec<&String> = b
                .iter()
                .filter(|x| !h.iter().any(|y| covers(y, x)))
                .collect();
            if !lost.is_empty() {
                out.push(Change::new(
                    Cat::Narrowed,
                    format!("no longer tests the packages {}", show(&lost)),
                ));
            }
        }
    }
}
