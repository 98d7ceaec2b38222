use super::*;

fn parse(path: &str, src: &str) -> Ast {
    loki_syntax::ast::parse(path, src).unwrap()
}

fn first_value(path: &str, src: &str, kind: &str) -> Val {
    let ast = parse(path, src);
    let n = ast
        .all(ast.root())
        .into_iter()
        .find(|n| n.kind() == kind)
        .unwrap();
    value(&ast, n).unwrap()
}

#[test]
fn one_value_in_every_spelling() {
    let py = first_value("a.py", "x = (19, 50, 2)\n", "tuple");
    let js = first_value("a.js", "const x = [19, 50, 2];\n", "array");
    let go = first_value(
        "a.go",
        "package a\nvar x = []int{19, 50, 2}\n",
        "composite_literal",
    );
    let rs = first_value(
        "a.rs",
        "fn f() { let x = (19, 50, 2); }\n",
        "tuple_expression",
    );
    let vec = first_value(
        "a.rs",
        "fn f() { let x = vec![19, 50, 2]; }\n",
        "macro_invocation",
    );
    assert_eq!(py, js);
    assert_eq!(py, go);
    assert_eq!(py, rs);
    assert_eq!(py, vec);
    let d = first_value("a.py", "x = {'a': 1, 'b': [2, 3]}\n", "dictionary");
    let o = first_value("a.js", "x = {b: [2, 3], a: 1};\n", "object");
    assert_eq!(d.canonical(), o.canonical());
}

#[test]
fn groups_are_statements_and_table_rows() {
    let ast = parse(
        "tests/test_a.py",
        "import pytest\n\n@pytest.mark.parametrize('a,b,want', [(19, 50, 7), (3, 4, 12)])\ndef test_p(a, b, want):\n    assert solve(a, b) == want\n\ndef test_x():\n    assert solve(19, 50, 2) == 6\n",
    );
    let mut gs = Vec::new();
    groups(&ast, "tests/test_a.py", None, &mut gs);
    let call = gs
        .iter()
        .find(|g| g.line == 8)
        .expect("the assert is a group");
    assert!(call.composites.contains(&Val::Seq(vec![
        Val::Leaf(Lit::Num("19".into())),
        Val::Leaf(Lit::Num("50".into())),
        Val::Leaf(Lit::Num("2".into())),
    ])));
    assert!(call.leaves.contains(&Lit::Num("6".into())));
    // Each row of the table is its own group: 19 and 12 are never in one.
    assert!(
        gs.iter()
            .all(|g| !(g.leaves.contains(&Lit::Num("19".into()))
                && g.leaves.contains(&Lit::Num("12".into()))))
    );
    assert!(
        gs.iter().any(|g| g.leaves.contains(&Lit::Num("7".into()))
            && g.leaves.contains(&Lit::Num("50".into())))
    );
}

#[test]
fn rust_macros_and_doctests_are_groups() {
    let ast = parse(
        "tests/t.rs",
        "#[test]\nfn t() {\n    assert_eq!(solve(19, 50), 7);\n}\n",
    );
    let mut gs = Vec::new();
    groups(&ast, "tests/t.rs", None, &mut gs);
    assert!(
        gs.iter().any(|g| g.leaves.contains(&Lit::Num("19".into()))
            && g.leaves.contains(&Lit::Num("7".into())))
    );
    let ast = parse(
        "m.py",
        "def f(a, b):\n    \"\"\"\n    >>> f(19, 50)\n    7\n    \"\"\"\n",
    );
    let mut gs = Vec::new();
    doctests(&ast, "m.py", &mut gs);
    assert_eq!(gs.len(), 1);
    assert!(gs[0].leaves.contains(&Lit::Num("7".into())));
}
