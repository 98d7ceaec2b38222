//! Rules for code that rewrites test outcomes instead of earning them: pytest hooks that edit
//! reports or deselect tests, patches of pytest internals, and mocks of the very module the change
//! edits (the test then checks the mock, not the code).

use std::collections::{BTreeMap, BTreeSet};

use crate::rules::{Out, Prepared};
use crate::shell::join;
use loki_protocol::FindingKind;
use loki_syntax::ast::line;
use loki_syntax::diff::Hit;
use loki_syntax::lex::{Lang, Lexed, count_token, is_ident};

/// pytest hooks through which a plugin or conftest.py can change what a test run reports or
/// collects: any new or edited definition is a finding.
pub const PYTEST_OUTCOME_HOOKS: &[&str] = &[
    "pytest_runtest_makereport",
    "pytest_report_teststatus",
    "pytest_runtest_logreport",
    "pytest_runtest_protocol",
    "pytest_runtest_call",
    "pytest_ignore_collect",
    "pytest_pycollect_makeitem",
    "pytest_deselected",
    "pytest_collection",
    "pytest_make_collect_report",
];
/// Hooks with honest uses (reordering or tagging items, collecting extra file types): a finding
/// only when the body does what [`rewrites_in_conditional_hook`] looks for.
const PYTEST_CONDITIONAL_HOOKS: &[&str] = &["pytest_collection_modifyitems", "pytest_collect_file"];
/// Names whose use means pytest's own machinery is being patched.
const PYTEST_INTERNALS: &[&str] = &["_pytest", "TestReport"];

/// Whether a conditional hook's body (lexed, strings blanked) drops or neutralises tests:
/// `pytest_collection_modifyitems` that removes, deselects, or marks items skip/xfail;
/// `pytest_collect_file` that builds no collector (it only exists to return `None`).
fn rewrites_in_conditional_hook(hook: &str, body: &str) -> bool {
    match hook {
        "pytest_collection_modifyitems" => [
            ".remove(", "del ", ".clear(", ".pop(", "[:]", "deselect", "skip", "xfail", "filter(",
        ]
        .iter()
        .any(|p| body.contains(p)),
        "pytest_collect_file" => !body.contains("from_parent"),
        _ => false,
    }
}

/// Each outcome hook defined in `code`, with its full text (definition line and indented body).
fn hook_bodies(code: &str) -> BTreeMap<&'static str, String> {
    let lines: Vec<&str> = code.lines().collect();
    let indent = |l: &str| l.len() - l.trim_start().len();
    let mut out = BTreeMap::new();
    for (i, line) in lines.iter().enumerate() {
        let t = line.trim_start();
        let def = t.strip_prefix("async ").unwrap_or(t);
        let Some(name) = def.strip_prefix("def ") else {
            continue;
        };
        let Some(hook) = PYTEST_OUTCOME_HOOKS
            .iter()
            .chain(PYTEST_CONDITIONAL_HOOKS)
            .find(|h| {
                name.strip_prefix(**h)
                    .is_some_and(|r| r.trim_start().starts_with('('))
            })
        else {
            continue;
        };
        let own = indent(line);
        let body: Vec<&str> = lines[i + 1..]
            .iter()
            .take_while(|l| l.trim().is_empty() || indent(l) > own)
            .copied()
            .collect();
        let text = std::iter::once(t)
            .chain(body.iter().map(|l| l.trim()))
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join("\n");
        out.insert(*hook, text);
    }
    out
}

/// One way a Python file's edit changes pytest's reporting: `needle` is text to find the line by
/// (`def <hook>` or the internal name), `detail` the finding's words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rewrite {
    pub needle: String,
    pub detail: String,
}

/// What a Python file's edit does to pytest's reporting (one entry per problem).
pub fn pytest_outcome_rewrites(base: Option<&str>, head: &str) -> Vec<Rewrite> {
    let before = base.map(hook_bodies).unwrap_or_default();
    let mut out: Vec<Rewrite> = hook_bodies(head)
        .into_iter()
        .filter(|(hook, body)| before.get(hook) != Some(body))
        .filter(|(hook, body)| {
            !PYTEST_CONDITIONAL_HOOKS.contains(hook) || rewrites_in_conditional_hook(hook, body)
        })
        .map(|(hook, _)| {
            let what = if PYTEST_CONDITIONAL_HOOKS.contains(&hook) {
                match hook {
                    "pytest_collect_file" => "which can stop test files from being collected",
                    _ => "which here removes, deselects or skips collected tests",
                }
            } else {
                "which can rewrite test outcomes"
            };
            let verb = if before.contains_key(hook) {
                "edits"
            } else {
                "defines"
            };
            Rewrite {
                needle: format!("def {hook}"),
                detail: format!("{verb} the pytest hook {hook}, {what}"),
            }
        })
        .collect();
    let internals = |code: &str| {
        PYTEST_INTERNALS
            .iter()
            .map(|n| count_token(code, n))
            .sum::<usize>()
    };
    if internals(head) > base.map_or(0, internals) {
        out.push(Rewrite {
            needle: "_pytest".into(),
            detail: "uses pytest internals (_pytest / TestReport), which can rewrite test outcomes"
                .into(),
        });
    }
    out
}

/// conftest.py's `collect_ignore` / `collect_ignore_glob`: each module-level statement that sets
/// or extends them, new since base, is an `outcome_rewrite` (the files it names are never
/// collected, so their tests silently stop running).
pub fn rules(p: &Prepared, out: &mut Out) {
    if p.path.rsplit('/').next() != Some("conftest.py") {
        return;
    }
    p.diff(
        FindingKind::OutcomeRewrite,
        |side, _| {
            let ast = &side.ast;
            loki_syntax::ast::named_children(ast.root())
                .into_iter()
                .filter(|n| n.kind() == "expression_statement")
                .filter(|n| {
                    let t = ast.text_of(*n);
                    t.contains("collect_ignore")
                })
                .map(|n| {
                    Hit::new(
                        line(n),
                        ast.squashed(n),
                        format!(
                            "`{}` stops pytest from collecting the files it names",
                            ast.quote(n)
                        ),
                    )
                })
                .collect()
        },
        out,
    );
}

/// JS calls that replace a module with a mock; the first argument names the module.
const JS_MOCK_CALLS: &[&str] = &[
    "jest.mock(",
    "vi.mock(",
    "jest.doMock(",
    "vi.doMock(",
    "jest.unstable_mockModule(",
];
/// Python calls whose first string argument is a dotted path to the thing replaced.
const PY_MOCK_CALLS: &[&str] = &["patch(", "patch.object(", "monkeypatch.setattr("];

/// The module specifiers `lexed` mocks (first string argument of a mock call).
pub fn mocked_modules(lang: Lang, lexed: &Lexed) -> BTreeSet<String> {
    let calls = match lang {
        Lang::Js => JS_MOCK_CALLS,
        Lang::Python => PY_MOCK_CALLS,
        Lang::Rust | Lang::Go | Lang::Java | Lang::Hash => return BTreeSet::new(),
    };
    let code = &lexed.code;
    calls
        .iter()
        .flat_map(|c| {
            code.match_indices(c)
                // `mock.patch(` and `@patch(` count, `unpatch(` does not.
                .filter(|(i, _)| !code[..*i].chars().next_back().is_some_and(is_ident))
                .map(move |(i, _)| i + c.len())
        })
        .filter_map(|after| {
            let ws = code[after..].len() - code[after..].trim_start().len();
            lexed.string_at(after + ws).map(str::to_owned)
        })
        .collect()
}

/// Whether mock specifier `spec` in file `path` names the changed source file `source`.
pub fn mock_targets(lang: Lang, path: &str, spec: &str, source: &str) -> bool {
    let no_ext = |p: &str| -> String {
        let name_at = p.rfind('/').map_or(0, |i| i + 1);
        match p[name_at..].rfind('.') {
            Some(dot) if dot > 0 => p[..name_at + dot].to_owned(),
            _ => p.to_owned(),
        }
    };
    let src = no_ext(source);
    match lang {
        Lang::Js => {
            if !spec.starts_with('.') {
                return false;
            }
            let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
            let target = no_ext(&join(dir, spec));
            src == target || src == format!("{target}/index")
        }
        Lang::Python => {
            // `pkg.mod.func`: any dotted prefix may be the module (`pkg/mod.py`, `pkg/mod/__init__.py`),
            // under any source root (`src/pkg/mod.py`).
            let parts: Vec<&str> = spec.split('.').collect();
            (1..=parts.len()).any(|k| {
                let m = parts[..k].join("/");
                [m.clone(), format!("{m}/__init__")]
                    .iter()
                    .any(|cand| src == *cand || src.ends_with(&format!("/{cand}")))
            })
        }
        Lang::Rust | Lang::Go | Lang::Java | Lang::Hash => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use loki_syntax::lex::lex;

    #[test]
    fn hooks_added_or_edited_are_named() {
        let hook = "import pytest\n@pytest.hookimpl(hookwrapper=True)\ndef pytest_runtest_makereport(item, call):\n    out = yield\n    out.get_result().outcome = 'passed'\n";
        let code = lex(hook, Lang::Python).code;
        assert_eq!(
            pytest_outcome_rewrites(None, &code),
            [Rewrite {
                needle: "def pytest_runtest_makereport".into(),
                detail: "defines the pytest hook pytest_runtest_makereport, which can rewrite test outcomes".into()
            }]
        );
        assert!(pytest_outcome_rewrites(Some(&code), &code).is_empty());
        let edited = code.replace("yield", "yield 1");
        assert_eq!(
            pytest_outcome_rewrites(Some(&code), &format!("{edited}\nX = 1\n")).len(),
            1
        );
        let internals = lex("from _pytest.reports import TestReport\n", Lang::Python).code;
        assert_eq!(pytest_outcome_rewrites(None, &internals).len(), 1);
    }

    #[test]
    fn mocks_resolve_to_changed_sources() {
        let l = lex(
            "jest.mock('../src/math', () => ({ add: () => 4 }));\nvi.mock(\"lodash\")",
            Lang::Js,
        );
        let m = mocked_modules(Lang::Js, &l);
        assert_eq!(m.iter().collect::<Vec<_>>(), ["../src/math", "lodash"]);
        assert!(mock_targets(
            Lang::Js,
            "test/setup.js",
            "../src/math",
            "src/math.ts"
        ));
        assert!(!mock_targets(
            Lang::Js,
            "test/setup.js",
            "lodash",
            "src/lodash.js"
        ));
        let l = lex(
            "@mock.patch('calc.core.add', return_value=4)\ndef test_a(m): pass\n",
            Lang::Python,
        );
        let m = mocked_modules(Lang::Python, &l);
        assert!(m.contains("calc.core.add"));
        assert!(mock_targets(
            Lang::Python,
            "tests/test_a.py",
            "calc.core.add",
            "src/calc/core.py"
        ));
        assert!(!mock_targets(
            Lang::Python,
            "tests/test_a.py",
            "calc.core.add",
            "src/other.py"
        ));
    }
}
