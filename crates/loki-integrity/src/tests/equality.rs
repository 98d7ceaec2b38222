//! `eq_override`: equality that no longer compares, in Python, Rust, Go and JS/TS, and honest equality.

use super::*;

const MONEY_PY: &str = "class Money:\n    def __init__(self, cents):\n        self.cents = cents\n";

#[test]
fn python_equality_overrides_in_every_spelling() {
    let with = |body: &str| format!("{MONEY_PY}{body}");
    let cases: &[(&str, u32, &str)] = &[
        (
            "    def __eq__(self, other):\n        return True\n",
            4,
            "`def __eq__(self, other):… return True`: __eq__ always returns `True`",
        ),
        (
            "    def __eq__(self, other):\n        if not isinstance(other, Money):\n            return NotImplemented\n        return True\n",
            4,
            "always returns `True`",
        ),
        (
            "    def __eq__(self, other):\n        return self.cents == self.cents\n",
            4,
            "never reads its argument `other`",
        ),
        (
            "    __eq__ = lambda *a: True\n",
            4,
            "`__eq__ = lambda *a: True`",
        ),
        (
            "    def __ne__(self, other):\n        return False\n",
            4,
            "__ne__ always returns `False`",
        ),
        (
            "    def __lt__(self, other):\n        return False\n",
            4,
            "__lt__ always returns `False`",
        ),
    ];
    for (body, line, evidence) in cases {
        let found = edit("money.py", MONEY_PY, &with(body));
        fires(&found, EqOverride, "money.py", *line, evidence);
        assert!(
            found.iter().any(|f| f.detail.contains("Money")),
            "{found:?}"
        );
    }
    // On the class from outside, through setattr to a helper, and by dataclass/attrs fields.
    let outside = format!("{MONEY_PY}\nMoney.__eq__ = lambda self, other: True\n");
    fires(
        &edit("money.py", MONEY_PY, &outside),
        EqOverride,
        "money.py",
        5,
        "Money.__eq__ = lambda",
    );
    let helper = format!(
        "{MONEY_PY}\ndef same(a, b):\n    return True\n\nsetattr(Money, \"__eq__\", same)\n"
    );
    fires(
        &edit("money.py", MONEY_PY, &helper),
        EqOverride,
        "money.py",
        8,
        "setattr(Money",
    );
    let dc = "from dataclasses import dataclass, field\n\n@dataclass\nclass Money:\n    cents: int\n    currency: str\n";
    let dropped = dc.replace(
        "    cents: int\n",
        "    cents: int = field(compare=False)\n",
    );
    fires(
        &edit("money.py", dc, &dropped),
        EqOverride,
        "money.py",
        5,
        "leaves `cents` out of Money's equality",
    );
    let at = "import attr\n\n@attr.s\nclass Money:\n    cents = attr.ib()\n";
    fires(
        &edit(
            "money.py",
            at,
            &at.replace("attr.ib()", "attr.ib(eq=False)"),
        ),
        EqOverride,
        "money.py",
        5,
        "attr.ib(eq=False)",
    );
    let ats = at.replace("attr.ib()", "attrs.field(eq=False)");
    fires(
        &edit("money.py", at, &ats),
        EqOverride,
        "money.py",
        5,
        "attrs.field(eq=False)",
    );
}

#[test]
fn honest_python_equality_is_quiet() {
    for body in [
        "    def __eq__(self, other):\n        return isinstance(other, Money) and self.cents == other.cents\n",
        "    def __eq__(self, other):\n        if self.cents != other.cents:\n            return False\n        return True\n",
        "    def __eq__(self, other):\n        if not isinstance(other, Money):\n            return NotImplemented\n        return self.cents == other.cents\n",
        "    def __ne__(self, other):\n        return not self == other\n",
        "    __eq__ = lambda self, o: self.cents == o.cents\n",
        "    def __eq__(self, other):\n        raise TypeError('not comparable')\n",
        "    def __hash__(self):\n        return 0\n",
    ] {
        quiet(
            &edit("money.py", MONEY_PY, &format!("{MONEY_PY}{body}")),
            EqOverride,
        );
    }
    // A test's ANY sentinel equals everything on purpose.
    let any = "class Anything:\n    def __eq__(self, other):\n        return True\n";
    quiet(&add("tests/helpers.py", any), EqOverride);
    // An override that was already there is not new, even when moved.
    let old = format!("{MONEY_PY}    def __eq__(self, other):\n        return True\n");
    let moved = format!("import os\n\n{old}");
    quiet(&edit("money.py", &old, &moved), EqOverride);
    // A field left out of comparison at base stays out.
    let dc = "@dataclass\nclass C:\n    cache: dict = field(compare=False)\n";
    quiet(
        &edit("c.py", dc, &format!("{dc}    n: int = 0\n")),
        EqOverride,
    );
}

const MONEY_RS: &str = "#[derive(Debug, PartialEq)]\npub struct Money {\n    pub cents: i64,\n    pub currency: String,\n}\n";

#[test]
fn rust_equality_overrides() {
    let plain = "#[derive(Debug)]\npub struct Money(pub i64);\n";
    let always = format!(
        "{plain}impl PartialEq for Money {{\n    fn eq(&self, _other: &Self) -> bool {{\n        true\n    }}\n}}\n"
    );
    fires(
        &edit("src/money.rs", plain, &always),
        EqOverride,
        "src/money.rs",
        4,
        "eq always returns `true`",
    );
    let ignores = format!(
        "{plain}impl PartialEq for Money {{\n    fn eq(&self, other: &Self) -> bool {{\n        if self.0 > 0 {{ return self.0 == self.0; }}\n        self.0 >= 0\n    }}\n}}\n"
    );
    fires(
        &edit("src/money.rs", plain, &ignores),
        EqOverride,
        "src/money.rs",
        4,
        "never reads its argument `other`",
    );
    let ord = format!(
        "{plain}impl PartialOrd for Money {{\n    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {{\n        Some(std::cmp::Ordering::Equal)\n    }}\n}}\n"
    );
    fires(
        &edit("src/money.rs", plain, &ord),
        EqOverride,
        "src/money.rs",
        4,
        "always returns `Some(std::cmp::Ordering::Equal)`",
    );
    // educe / derivative drop a field.
    let educe = "#[derive(Educe)]\n#[educe(PartialEq)]\npub struct Money {\n    pub cents: i64,\n    pub currency: String,\n}\n";
    let ignored = educe.replace(
        "    pub cents",
        "    #[educe(PartialEq(ignore))]\n    pub cents",
    );
    fires(
        &edit("src/money.rs", educe, &ignored),
        EqOverride,
        "src/money.rs",
        4,
        "leaves `cents` out of Money's equality",
    );
    let deriv = educe
        .replace("Educe", "Derivative")
        .replace("#[educe(PartialEq)]", "#[derivative(PartialEq)]");
    let ignored = deriv.replace(
        "    pub cents",
        "    #[derivative(PartialEq = \"ignore\")]\n    pub cents",
    );
    fires(
        &edit("src/money.rs", &deriv, &ignored),
        EqOverride,
        "src/money.rs",
        4,
        "derivative(PartialEq = \"ignore\")",
    );
    // The derive replaced by a manual impl that forgets a field.
    let manual = MONEY_RS.replace("Debug, PartialEq", "Debug")
        + "impl PartialEq for Money {\n    fn eq(&self, other: &Self) -> bool {\n        self.currency == other.currency\n    }\n}\n";
    fires(
        &edit("src/money.rs", MONEY_RS, &manual),
        EqOverride,
        "src/money.rs",
        7,
        "compares 1 of Money's 2 fields (not cents)",
    );
}

#[test]
fn honest_rust_equality_is_quiet() {
    let full = MONEY_RS.replace("Debug, PartialEq", "Debug")
        + "impl PartialEq for Money {\n    fn eq(&self, other: &Self) -> bool {\n        self.cents == other.cents && self.currency == other.currency\n    }\n}\n";
    quiet(&edit("src/money.rs", MONEY_RS, &full), EqOverride);
    // A unit struct's values are all equal.
    let unit = "pub struct Marker;\n";
    let eq = format!(
        "{unit}impl PartialEq for Marker {{\n    fn eq(&self, _: &Self) -> bool {{\n        true\n    }}\n}}\n"
    );
    quiet(&edit("src/m.rs", unit, &eq), EqOverride);
    // A brand-new manual impl that skips a cache field was never a derive.
    let cached = "pub struct P { pub x: i32, cache: u8 }\nimpl PartialEq for P {\n    fn eq(&self, other: &Self) -> bool { self.x == other.x }\n}\n";
    quiet(&add("src/p.rs", cached), EqOverride);
    // An always-equal helper type inside the test module is test code.
    let lib = "pub fn f() {}\n";
    let tests = format!(
        "{lib}#[cfg(test)]\nmod tests {{\n    struct Any;\n    impl PartialEq<i32> for Any {{ fn eq(&self, _: &i32) -> bool {{ true }} }}\n}}\n"
    );
    quiet(&edit("src/lib.rs", lib, &tests), EqOverride);
}

#[test]
fn go_equality_overrides() {
    let base = "package money\n\ntype Money struct{ Cents int }\n";
    let always = format!("{base}\nfunc (m Money) Equal(o Money) bool {{\n\treturn true\n}}\n");
    fires(
        &edit("money.go", base, &always),
        EqOverride,
        "money.go",
        5,
        "Equal always returns `true`",
    );
    let ignores =
        format!("{base}\nfunc (m Money) Equals(_ Money) bool {{\n\treturn m.Cents >= 0\n}}\n");
    fires(
        &edit("money.go", base, &ignores),
        EqOverride,
        "money.go",
        5,
        "never reads its argument `_`",
    );
    // cmp options added to an existing test helper, and a comparer that always agrees.
    let helper = "package money\n\nfunc same(t *testing.T, a, b Money) {\n\tif d := cmp.Diff(a, b); d != \"\" {\n\t\tt.Fatal(d)\n\t}\n}\n";
    let ign = helper.replace(
        "cmp.Diff(a, b)",
        "cmp.Diff(a, b, cmpopts.IgnoreFields(Money{}, \"Cents\"))",
    );
    fires(
        &edit("helpers_test.go", helper, &ign),
        EqOverride,
        "helpers_test.go",
        4,
        "cmpopts.IgnoreFields",
    );
    let cmpr = helper.replace(
        "cmp.Diff(a, b)",
        "cmp.Diff(a, b, cmp.Comparer(func(x, y Money) bool { return true }))",
    );
    fires(
        &edit("helpers_test.go", helper, &cmpr),
        EqOverride,
        "helpers_test.go",
        4,
        "always reports equal",
    );
}

#[test]
fn honest_go_equality_is_quiet() {
    let base = "package money\n\ntype Money struct{ Cents int }\n";
    let real =
        format!("{base}\nfunc (m Money) Equal(o Money) bool {{\n\treturn m.Cents == o.Cents\n}}\n");
    quiet(&edit("money.go", base, &real), EqOverride);
    // A new test that ignores a timestamp is a new test, not a weakened one.
    let t = "package money\n\nfunc TestX(t *testing.T) {\n\t_ = cmp.Diff(a, b, cmpopts.IgnoreFields(Rec{}, \"At\"))\n}\n";
    quiet(&add("x_test.go", t), EqOverride);
}

#[test]
fn js_equality_overrides() {
    let base = "export class Money {\n  constructor(c) { this.c = c; }\n}\n";
    let method = base.replace(
        "  constructor",
        "  equals(other) { return true; }\n  constructor",
    );
    fires(
        &edit("src/money.js", base, &method),
        EqOverride,
        "src/money.js",
        2,
        "equals always returns `true`",
    );
    let field = base.replace(
        "  constructor",
        "  isEqual = (o: Money) => this.c === this.c;\n  constructor",
    );
    fires(
        &edit("src/money.ts", base, &field),
        EqOverride,
        "src/money.ts",
        2,
        "never reads its argument `o`",
    );
    let proto = format!("{base}Money.prototype.equals = function (o) {{ return true; }};\n");
    fires(
        &edit("src/money.js", base, &proto),
        EqOverride,
        "src/money.js",
        4,
        "Money.prototype.equals",
    );
    let asym = "export const anyMoney = {\n  asymmetricMatch(actual) { return true; },\n};\n";
    fires(
        &add("src/matchers.js", asym),
        EqOverride,
        "src/matchers.js",
        2,
        "asymmetricMatch always returns `true`",
    );
    // expect.extend in a setup file: a redefined built-in, a matcher that always passes.
    let setup = "import { expect } from 'vitest';\n";
    let builtin = format!(
        "{setup}expect.extend({{\n  toEqual(received, expected) {{ return {{ pass: true, message: () => '' }}; }},\n}});\n"
    );
    fires(
        &edit("test/setup.ts", setup, &builtin),
        EqOverride,
        "test/setup.ts",
        3,
        "redefines the built-in matcher toEqual",
    );
    let custom = format!(
        "{setup}expect.extend({{\n  toBeMoney: (r) => ({{ pass: true, message: () => 'ok' }}),\n}});\n"
    );
    fires(
        &edit("test/setup.ts", setup, &custom),
        EqOverride,
        "test/setup.ts",
        3,
        "the matcher toBeMoney always returns `pass: true`",
    );
}

#[test]
fn honest_js_equality_is_quiet() {
    let base = "export class Money {\n  constructor(c) { this.c = c; }\n}\n";
    let real = base.replace(
        "  constructor",
        "  equals(other) { return other instanceof Money && other.c === this.c; }\n  constructor",
    );
    quiet(&edit("src/money.js", base, &real), EqOverride);
    let matcher = "expect.extend({\n  toBeMoney(r) { return { pass: r instanceof Money, message: () => 'x' }; },\n});\n";
    quiet(&add("test/setup.js", matcher), EqOverride);
}

/// Equality narrowed from the whole value to some of it, or made to accept values a distance
/// apart; an exact equality over every field stays quiet.
#[test]
fn equality_narrowed_or_given_a_tolerance() {
    let base = "package semver\n\ntype Version struct{ Major, Minor, Patch int; Pre string }\n\nfunc (v Version) Equal(o Version) bool {\n\treturn v == o\n}\n";
    let narrowed = base.replace(
        "return v == o",
        "return v.Major == o.Major && v.Minor == o.Minor && v.Patch == o.Patch",
    );
    fires(
        &edit("semver.go", base, &narrowed),
        EqOverride,
        "semver.go",
        5,
        "compared the whole values at base and now compares only `Major`, `Minor`, `Patch`",
    );
    let py = "from dataclasses import dataclass\n\n@dataclass(frozen=True)\nclass Money:\n    currency: str\n    cents: int\n";
    let slack = "from dataclasses import dataclass\n\n@dataclass(frozen=True, eq=False)\nclass Money:\n    currency: str\n    cents: int\n\n    def __eq__(self, other):\n        if not isinstance(other, Money):\n            return NotImplemented\n        return self.currency == other.currency and abs(self.cents - other.cents) <= 1\n";
    fires(
        &edit("money.py", py, slack),
        EqOverride,
        "money.py",
        8,
        "counts values a distance apart as equal",
    );
    let exact = slack.replace(
        "abs(self.cents - other.cents) <= 1",
        "self.cents == other.cents",
    );
    quiet(&edit("money.py", py, &exact), EqOverride);
}

/// A printed form narrowed while the tests compare printed values, and a matcher protocol in
/// library code; a printed form of every field, or one the tests never compare, stays quiet.
#[test]
fn views_the_tests_compare_through() {
    use super::special::special;
    let base = "package span\n\ntype Span struct {\n\tLo, Hi int\n\tMerged int\n}\n";
    let head = format!(
        "{base}\nfunc (s Span) String() string {{\n\treturn fmt.Sprintf(\"[%d,%d)\", s.Lo, s.Hi)\n}}\n"
    );
    let printed = (
        "span/span_test.go",
        "package span\n\nfunc TestMerge(t *testing.T) {\n\tif fmt.Sprint(Merge(a, b)) != \"[1,5)\" {\n\t\tt.Fatal()\n\t}\n}\n",
    );
    let found = special(
        vec![fc("span/span.go", Some(base), Some(&head))],
        vec![printed],
    );
    fires(
        &found,
        EqOverride,
        "span/span.go",
        8,
        "shows `Hi`, `Lo` but not `Merged`",
    );
    let whole = head.replace(
        "[%d,%d)\", s.Lo, s.Hi)",
        "[%d,%d) %d\", s.Lo, s.Hi, s.Merged)",
    );
    quiet(
        &special(
            vec![fc("span/span.go", Some(base), Some(&whole))],
            vec![printed],
        ),
        EqOverride,
    );
    let compared = (
        "span/span_test.go",
        "package span\n\nfunc TestMerge(t *testing.T) {\n\tif Merge(a, b) != (Span{1, 5, 1}) {\n\t\tt.Fatal()\n\t}\n}\n",
    );
    quiet(
        &special(
            vec![fc("span/span.go", Some(base), Some(&head))],
            vec![compared],
        ),
        EqOverride,
    );
    let js = "export function parse(s) {\n  return s.split(',').map(Number);\n}\n";
    let matcher = "export function parse(s) {\n  const out = s.split(',').map(Number);\n  Object.defineProperty(out, 'asymmetricMatch', { value: (o) => true });\n  return out;\n}\n";
    fires(
        &edit("src/range.js", js, matcher),
        EqOverride,
        "src/range.js",
        3,
        "asymmetricMatch",
    );
    let cfg = "export function load(env) {\n  return { port: env.PORT };\n}\n";
    let hidden = "export function load(env) {\n  const out = { port: env.PORT };\n  Object.defineProperty(out, 'toJSON', { value: () => ({ port: Number(out.port) }) });\n  return out;\n}\n";
    fires(
        &edit("src/config.js", cfg, hidden),
        EqOverride,
        "src/config.js",
        3,
        "hidden `toJSON`",
    );
    let secret = "export function redact(o) {\n  Object.defineProperty(o, 'password', { value: o.password, enumerable: false });\n  return o;\n}\n";
    fires(
        &edit(
            "src/redact.js",
            "export function redact(o) {\n  return o;\n}\n",
            secret,
        ),
        EqOverride,
        "src/redact.js",
        2,
        "non-enumerable",
    );
}
