use proptest::prelude::*;

use super::*;

fn syms(grammar: Grammar, text: &str) -> Vec<String> {
    Scanner::new().symbols(grammar, text)
}

#[test]
fn rust_items_impls_and_traits() {
    let src = r##"//! Crate docs: fn not_from_doc() {}
use std::fmt;

/// Parses a thing.
#[must_use]
#[allow(clippy::too_many_arguments)]
pub(crate) async unsafe fn parse_config(
    path: &std::path::Path,
    strict: bool,
) -> Result<Config, Error>
where
    Error: Send,
{
    fn nested_helper() {}
    let _raw = r#"
fn in_raw_string() {}
struct InRawString;
"#;
    todo()
}

/*
fn in_block_comment() {}
*/
// fn in_line_comment() {}
#[derive(Debug)]
pub struct Config<'a, T: Clone> {
    name: &'a str,
    value: T,
}

pub enum Mode { Fast, Slow }
union Bits { i: u32, f: f32 }
pub trait Render: fmt::Debug {
    const WIDTH: usize;
    fn render(&self) -> String;
    fn width(&self) -> usize { 80 }
}
pub type Res<T> = Result<T, Error>;
pub mod io;
mod inline { pub fn inside_module() {} }
pub const MAX: usize = 3;
static mut COUNTER: u64 = 0;
macro_rules! square { ($x:expr) => { $x * $x }; }
extern "C" { fn c_abs(x: i32) -> i32; }

impl<'a, T: Clone> Config<'a, T> {
    pub fn new(name: &'a str, value: T) -> Self { Self { name, value } }
    const ZERO: u8 = 0;
}
impl<T: Clone> Render for Config<'_, T> {
    fn render(&self) -> String { String::new() }
}
impl fmt::Display for crate::model::Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result { Ok(()) }
}
impl<T> Render for &T {}
impl Render for (u8, u8) { fn render(&self) -> String { String::new() } }
"##;
    assert_eq!(
        syms(Grammar::Rust, src),
        [
            "parse_config",
            "Config",
            "Mode",
            "Bits",
            "Render",
            "Render::render",
            "Render::width",
            "Res",
            "io",
            "inline",
            "MAX",
            "COUNTER",
            "square",
            "c_abs",
            "Config::new",
            "Config::render",
            "Mode::fmt",
        ]
    );
}

#[test]
fn python_decorators_methods_and_no_nested_defs() {
    let src = r#""""Module docs.
def not_a_def_in_docstring():
"""
import functools

@functools.lru_cache(maxsize=None)
def cached(
    key: str,
    default=None,
):
    def inner_helper():
        pass
    class InnerClass:
        pass
    return key

# def in_comment():
text = """
class InString:
"""

@dataclass(frozen=True)
class Point(Base, metaclass=Meta):
    x: int

    def __init__(self, x):
        self.x = x

    @property
    def norm(self):
        def nested_in_method():
            pass
        return abs(self.x)

    async def fetch(self):
        pass

    class Nested:
        def deep(self):
            pass

async def main():
    pass

if __name__ == "__main__":
    def under_if():
        pass
"#;
    assert_eq!(
        syms(Grammar::Python, src),
        ["cached", "Point", "Point.norm", "Point.fetch", "main"]
    );
}

#[test]
fn javascript_exports_arrows_and_class_methods() {
    let src = r#"'use strict';
import { x } from './x.js';
// function inComment() {}
const template = `
function inTemplate() {}
`;
export default function main(argv) {
  function nestedFn() {}
  const nestedArrow = () => 1;
  return argv;
}
export function* ids() { yield 1; }
export const VERSION = '1.0', BUILD = 3;
export let counter = 0;
const handler = async (event) => { return event; };
const legacy = function () {};
let notExported = 5;
var old = function named() {};
class Parser extends Base {
  #cursor = 0;
  constructor(src) { super(); this.src = src; }
  parse() { return this.#advance(); }
  #advance() { return 1; }
  static of(src) { return new Parser(src); }
  get length() { return 0; }
  ['computed']() {}
}
export { Parser as P };
export default Parser;
module.exports = { handler };
"#;
    assert_eq!(
        syms(Grammar::JavaScript, src),
        [
            "main",
            "ids",
            "VERSION",
            "BUILD",
            "counter",
            "handler",
            "legacy",
            "old",
            "Parser",
            "Parser.parse",
            "Parser.#advance",
            "Parser.of",
            "Parser.length",
        ]
    );
    assert_eq!(
        syms(
            Grammar::JavaScript,
            "export default class Widget { render() {} }\n"
        ),
        ["Widget", "Widget.render"]
    );
    assert_eq!(
        syms(Grammar::JavaScript, "export default Widget;\n"),
        ["Widget"]
    );
    assert!(syms(Grammar::JavaScript, "export default () => 1;\n").is_empty());
}

#[test]
fn typescript_interfaces_types_enums_and_declarations() {
    let src = r#"import type { Foo } from './foo';

export interface Options {
  verbose: boolean;
  run(): void;
}
type Id = string | number;
export enum Color { Red, Green }
const enum Flag { A = 1 }
export abstract class Shape<T> implements Drawable {
  abstract area(): number;
  private cache = new Map<string, T>();
  constructor(private readonly name: string) { super(); }
  public describe(): string { return `${this.name}`; }
}
export function overload(x: string): string;
export function overload(x: number): number;
export function overload(x: any): any { return x; }
namespace Geometry { export const PI = 3.14; }
declare module 'untyped-lib';
declare function globalFn(x: number): void;
declare const CONFIG: Options;
export const cast = <T,>(x: unknown): T => x as T;
const typed: Id = 3;
"#;
    assert_eq!(
        syms(Grammar::TypeScript, src),
        [
            "Options",
            "Id",
            "Color",
            "Flag",
            "Shape",
            "Shape.area",
            "Shape.describe",
            "overload",
            "Geometry",
            "globalFn",
            "CONFIG",
            "cast",
        ]
    );
}

#[test]
fn tsx_components() {
    let src = r#"import React from 'react';

interface Props { title: string; items: string[] }

export const List = ({ items }: Props) => (
  <ul>
    {items.map((item) => <li key={item}>{item}</li>)}
  </ul>
);

export default function Page({ title, items }: Props) {
  const Inner = () => <span>{title}</span>;
  return (
    <main>
      <h1>{title}</h1>
      <List items={items} title={title} />
    </main>
  );
}

class Counter extends React.Component<Props> {
  render() { return <div>{this.props.title}</div>; }
}
"#;
    assert_eq!(
        syms(Grammar::Tsx, src),
        ["Props", "List", "Page", "Counter", "Counter.render"]
    );
}

#[test]
fn go_grouped_types_methods_consts_and_vars() {
    let src = r#"// Package srv serves.
package srv

import (
	"fmt"
	"net/http"
)

// func inComment() {}
const banner = `
func inRawString() {}
`

type (
	Server struct {
		addr string
	}
	Port int
	Handler = http.Handler
)

type Cache[K comparable, V any] struct{ m map[K]V }

const (
	DefaultPort Port = 8080
	minPort, maxPort = 1, 65535
	_ = iota
)

var (
	ErrClosed = fmt.Errorf("closed")
	hits      int
)
var _ http.Handler = (*Server)(nil)

func New(addr string) *Server {
	helper := func() {}
	helper()
	return &Server{addr: addr}
}

func (s *Server) ListenAndServe() error { return nil }
func (p Port) String() string { return fmt.Sprint(int(p)) }
func (c *Cache[K, V]) Get(k K) (V, bool) { v, ok := c.m[k]; return v, ok }
"#;
    assert_eq!(
        syms(Grammar::Go, src),
        [
            "banner",
            "Server",
            "Port",
            "Handler",
            "Cache",
            "DefaultPort",
            "minPort",
            "maxPort",
            "ErrClosed",
            "hits",
            "New",
            "Server.ListenAndServe",
            "Port.String",
            "Cache.Get",
        ]
    );
}

#[test]
fn broken_files_keep_the_symbols_tree_sitter_recovers() {
    let cases: [(Grammar, &str, &[&str]); 10] = [
        // A break at the end: everything before it survives.
        (
            Grammar::Rust,
            "pub fn good_one() {}\npub struct Good;\nfn broken(x: i32 {\n    let y = ;\n",
            &["good_one", "Good"],
        ),
        (
            Grammar::Python,
            "def good():\n    return 1\n\nclass Fine:\n    def ok(self):\n        pass\n\ndef broken(:\n    return (\n",
            &["good", "Fine", "Fine.ok"],
        ),
        (
            Grammar::JavaScript,
            "export function good() {}\nclass Fine {}\nfunction broken( {\n  return [;\n",
            &["good", "Fine"],
        ),
        (
            Grammar::TypeScript,
            "export interface Good { a: number }\nexport type T = Good;\nfunction broken(: {\n",
            &["Good", "T"],
        ),
        (
            Grammar::Go,
            "package p\n\nfunc Good() {}\n\ntype Fine struct{}\n\nfunc broken( {\n",
            &["Good", "Fine"],
        ),
        // A break in the middle: items after it survive where the grammar recovers, and nested
        // items of a body after the break stay unlisted.
        (
            Grammar::Rust,
            "fn a() {}\nfn broken(x: {\n    let y = ;\n}\nstruct After;\nfn after() { fn nested() {} }\n",
            &["a", "After", "after"],
        ),
        (
            // Python's recovery swallows the rest of the module into one ERROR node.
            Grammar::Python,
            "def a():\n    pass\n\ndef broken(:\n    x = (\n\ndef after():\n    def nested():\n        pass\n",
            &["a"],
        ),
        (
            // `K` is recovered from inside the ERROR node; `after` and `nested` are not.
            Grammar::JavaScript,
            "function a() {}\nfunction broken( {\n  let = ;\n}\nfunction after() { function nested() {} }\nclass K {}\n",
            &["a", "K"],
        ),
        (
            Grammar::TypeScript,
            "interface A {}\nfunction broken(: {\n}\ntype After = number;\nexport const f = () => 1;\n",
            &["A", "f"],
        ),
        (
            Grammar::Go,
            "package p\nfunc a() {}\nfunc broken( {\n}\ntype After struct{}\nfunc after() { x := func() {}; _ = x }\n",
            &["a", "broken", "After", "after"],
        ),
    ];
    for (grammar, src, want) in cases {
        assert_eq!(syms(grammar, src), want, "{grammar:?}: {src}");
    }
}

#[test]
fn crlf_line_endings_parse_like_lf() {
    let cases = [
        (
            Grammar::Rust,
            "pub fn a() {}\n\nimpl S {\n    fn m(&self) {}\n}\n",
        ),
        (
            Grammar::Python,
            "def a():\n    pass\n\nclass S:\n    def m(self):\n        pass\n",
        ),
        (
            Grammar::JavaScript,
            "export function a() {}\nclass S {\n  m() {}\n}\n",
        ),
        (
            Grammar::Go,
            "package p\n\ntype S struct{}\n\nfunc a() {}\n\nfunc (s S) m() {}\n",
        ),
    ];
    for (grammar, lf) in cases {
        let crlf = lf.replace('\n', "\r\n");
        let want = syms(grammar, lf);
        assert_eq!(want.len(), 3, "{grammar:?}: {want:?}");
        assert_eq!(syms(grammar, &crlf), want, "{grammar:?}");
    }
}

#[test]
fn non_utf8_bytes_decoded_lossily_do_not_lose_names() {
    let bytes = b"// caf\xe9 \xff\xfe\npub fn before() {}\nconst S: &str = \"\xc3\x28\";\npub fn after() {}\n";
    let text = String::from_utf8_lossy(bytes);
    assert_eq!(syms(Grammar::Rust, &text), ["before", "S", "after"]);
    let py = String::from_utf8_lossy(b"x = '\xff'\ndef f\xe9():\n    pass\ndef g():\n    pass\n");
    let got = syms(Grammar::Python, &py);
    assert!(got.contains(&"g".to_string()), "{got:?}");
}

#[test]
fn caps_dedup_and_timeout() {
    let many: String = (0..MAX_SYMBOLS + 20)
        .map(|i| format!("fn f{i}() {{}}\nfn f{i}() {{}}\n"))
        .collect();
    let got = syms(Grammar::Rust, &many);
    let want: Vec<String> = (0..MAX_SYMBOLS).map(|i| format!("f{i}")).collect();
    assert_eq!(got, want);

    let over = "fn f() {}\n".repeat(usize::try_from(MAX_SCAN_BYTES).unwrap() / 10 + 1);
    assert!(syms(Grammar::Rust, &over).is_empty());

    // A parse abandoned at its deadline yields nothing, and the parser is reset for the next file.
    let big = "fn f() { let x = [1, 2, 3]; }\n".repeat(4_000);
    let mut scanner = Scanner::with_timeout(Duration::ZERO);
    assert!(scanner.symbols(Grammar::Rust, &big).is_empty());
    scanner.timeout = PARSE_TIMEOUT;
    assert_eq!(scanner.symbols(Grammar::Rust, "fn fresh() {}\n"), ["fresh"]);
}

#[test]
fn deeply_nested_input_neither_overflows_nor_loses_the_items_before_it() {
    let depth = 20_000;
    for (grammar, head, open, close) in [
        (Grammar::Rust, "fn first() {}\nconst X: u8 = ", "[", "]"),
        (Grammar::Python, "def first():\n    pass\nx = ", "[", "]"),
        (
            Grammar::JavaScript,
            "function first() {}\nconst x = ",
            "[",
            "]",
        ),
        (
            Grammar::TypeScript,
            "function first() {}\nconst x = ",
            "(",
            ")",
        ),
        (
            Grammar::Go,
            "package p\nfunc first() {}\nvar x = ",
            "(",
            ")",
        ),
    ] {
        // Unclosed, then closed: both shapes must come back without a crash.
        let unclosed = format!("{head}{}", open.repeat(depth));
        let closed = format!("{unclosed}1{}\n", close.repeat(depth));
        for text in [unclosed, closed] {
            let got = syms(grammar, &text);
            assert_eq!(
                got.first().map(String::as_str),
                Some("first"),
                "{grammar:?}"
            );
        }
    }
}

#[test]
fn one_scanner_serves_every_grammar_in_turn() {
    let mut scanner = Scanner::new();
    for _ in 0..2 {
        for (grammar, src, want) in [
            (Grammar::Rust, "fn r() {}", "r"),
            (Grammar::Python, "def p(): pass", "p"),
            (Grammar::JavaScript, "function j() {}", "j"),
            (Grammar::TypeScript, "type T = number;", "T"),
            (Grammar::Tsx, "const C = () => <a/>;", "C"),
            (Grammar::Go, "package g\nfunc G() {}", "G"),
        ] {
            assert_eq!(scanner.symbols(grammar, src), [want], "{grammar:?}");
        }
    }
}

fn arbitrary_source() -> impl Strategy<Value = String> {
    // Code-shaped fragments mixed with any text, so the parsers see both plausible and hostile
    // input (unbalanced brackets, stray quotes, control characters).
    let fragment = prop_oneof![
        Just("fn a() {}\n".to_string()),
        Just("def b():\n  pass\n".to_string()),
        Just("class C { m() {} }\n".to_string()),
        Just("func (s *S) M() {}\n".to_string()),
        Just("type (\n A int\n)\n".to_string()),
        Just("impl<T> X for Y<T> {".to_string()),
        Just("export default function".to_string()),
        Just("\"'`/*#\r\n{}()[]<>".to_string()),
        any::<String>(),
    ];
    prop::collection::vec(fragment, 0..24).prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn never_panics_and_stays_capped_and_unique(text in arbitrary_source()) {
        let mut scanner = Scanner::new();
        for grammar in Grammar::ALL {
            let got = scanner.symbols(grammar, &text);
            prop_assert!(got.len() <= MAX_SYMBOLS);
            let mut unique = got.clone();
            unique.sort();
            unique.dedup();
            prop_assert_eq!(unique.len(), got.len(), "{:?}: {:?}", grammar, got);
            prop_assert!(got.iter().all(|n| !n.is_empty() && !n.contains(char::is_whitespace)));
        }
    }
}
