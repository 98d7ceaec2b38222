//! `shadow_module`: a newly added module that the tests would import instead of the real one.
//! Judged from the change list and [`loki_syntax::ScanInput::tree_paths`] (every head path):
//! - Python: an added `D/x.py` or `D/x/__init__.py` where `D` is not itself a package (no
//!   `D/__init__.py`) and is on the tests' `sys.path` (a project root, its `src/` or `lib/`, or a
//!   directory holding test files, which pytest inserts), and `x` is a top-level module of the
//!   same project elsewhere
//!   (`x.py`, `x/__init__.py` or `src/x/` under the project root: the nearest directory with a
//!   `pyproject.toml`, `setup.py` or `setup.cfg`, else the repository root), or `x` is a module
//!   of the standard library ([`PY_STDLIB`]).
//! - JS/TS: an added `.js`/`.jsx`/`.ts`/`.tsx` file that resolves from the same specifier as an
//!   existing one (`src/calc.js` next to `src/calc.ts`, `x.js` next to `x/index.ts` and back;
//!   declaration files `.d.ts` are types, not modules); an added `__mocks__/m.*` next to a source
//!   module `m` that the change edits (jest and vitest then serve the mock).
//! - Go: an added `vendor/<module path>/...` copy of the module's own packages (the module path
//!   read from `go.mod` in the change or in the context), and added files under a directory that
//!   `go.mod` points a `replace` at.
//! - Java: an added test-source copy of a main class, or a class added in a test framework's own
//!   packages (module `java`).
//!
//! Python's rule is in module `python`, Java's in `java`; JS/TS and Go are here.

use std::collections::{BTreeMap, BTreeSet};

mod java;
mod python;

use crate::rules::{Context, Out, Prepared};
use loki_protocol::{Finding, FindingKind};

/// Module names of the Python standard library, 3.8 to 3.13: `sys.stdlib_module_names` of
/// CPython 3.11.7 (generated with `python3 -c 'import sys; print(sys.stdlib_module_names)'`),
/// plus the modules 3.8/3.9 had and 3.10+ removed (`binhex`, `formatter`, `parser`, `symbol`,
/// `dummy_threading`, `_bootlocale`, `_dummy_thread`) and those 3.12/3.13 added (`_pylong`,
/// `_wmi`, `_colorize`, `_pyrepl`, `_interpchannels`, `_interpqueues`, `_interpreters`,
/// `_ios_support`, `_android_support`, `_opcode_metadata`, `_sysconfig`). Sorted.
pub const PY_STDLIB: &[&str] = &[
    "__future__",
    "_abc",
    "_aix_support",
    "_android_support",
    "_ast",
    "_asyncio",
    "_bisect",
    "_blake2",
    "_bootlocale",
    "_bootsubprocess",
    "_bz2",
    "_codecs",
    "_codecs_cn",
    "_codecs_hk",
    "_codecs_iso2022",
    "_codecs_jp",
    "_codecs_kr",
    "_codecs_tw",
    "_collections",
    "_collections_abc",
    "_colorize",
    "_compat_pickle",
    "_compression",
    "_contextvars",
    "_crypt",
    "_csv",
    "_ctypes",
    "_curses",
    "_curses_panel",
    "_datetime",
    "_dbm",
    "_decimal",
    "_dummy_thread",
    "_elementtree",
    "_frozen_importlib",
    "_frozen_importlib_external",
    "_functools",
    "_gdbm",
    "_hashlib",
    "_heapq",
    "_imp",
    "_interpchannels",
    "_interpqueues",
    "_interpreters",
    "_io",
    "_ios_support",
    "_json",
    "_locale",
    "_lsprof",
    "_lzma",
    "_markupbase",
    "_md5",
    "_msi",
    "_multibytecodec",
    "_multiprocessing",
    "_opcode",
    "_opcode_metadata",
    "_operator",
    "_osx_support",
    "_overlapped",
    "_pickle",
    "_posixshmem",
    "_posixsubprocess",
    "_py_abc",
    "_pydecimal",
    "_pyio",
    "_pylong",
    "_pyrepl",
    "_queue",
    "_random",
    "_scproxy",
    "_sha1",
    "_sha256",
    "_sha3",
    "_sha512",
    "_signal",
    "_sitebuiltins",
    "_socket",
    "_sqlite3",
    "_sre",
    "_ssl",
    "_stat",
    "_statistics",
    "_string",
    "_strptime",
    "_struct",
    "_symtable",
    "_sysconfig",
    "_thread",
    "_threading_local",
    "_tkinter",
    "_tokenize",
    "_tracemalloc",
    "_typing",
    "_uuid",
    "_warnings",
    "_weakref",
    "_weakrefset",
    "_winapi",
    "_wmi",
    "_zoneinfo",
    "abc",
    "aifc",
    "antigravity",
    "argparse",
    "array",
    "ast",
    "asynchat",
    "asyncio",
    "asyncore",
    "atexit",
    "audioop",
    "base64",
    "bdb",
    "binascii",
    "binhex",
    "bisect",
    "builtins",
    "bz2",
    "cProfile",
    "calendar",
    "cgi",
    "cgitb",
    "chunk",
    "cmath",
    "cmd",
    "code",
    "codecs",
    "codeop",
    "collections",
    "colorsys",
    "compileall",
    "concurrent",
    "configparser",
    "contextlib",
    "contextvars",
    "copy",
    "copyreg",
    "crypt",
    "csv",
    "ctypes",
    "curses",
    "dataclasses",
    "datetime",
    "dbm",
    "decimal",
    "difflib",
    "dis",
    "distutils",
    "doctest",
    "dummy_threading",
    "email",
    "encodings",
    "ensurepip",
    "enum",
    "errno",
    "faulthandler",
    "fcntl",
    "filecmp",
    "fileinput",
    "fnmatch",
    "formatter",
    "fractions",
    "ftplib",
    "functools",
    "gc",
    "genericpath",
    "getopt",
    "getpass",
    "gettext",
    "glob",
    "graphlib",
    "grp",
    "gzip",
    "hashlib",
    "heapq",
    "hmac",
    "html",
    "http",
    "idlelib",
    "imaplib",
    "imghdr",
    "imp",
    "importlib",
    "inspect",
    "io",
    "ipaddress",
    "itertools",
    "json",
    "keyword",
    "lib2to3",
    "linecache",
    "locale",
    "logging",
    "lzma",
    "mailbox",
    "mailcap",
    "marshal",
    "math",
    "mimetypes",
    "mmap",
    "modulefinder",
    "msilib",
    "msvcrt",
    "multiprocessing",
    "netrc",
    "nis",
    "nntplib",
    "nt",
    "ntpath",
    "nturl2path",
    "numbers",
    "opcode",
    "operator",
    "optparse",
    "os",
    "ossaudiodev",
    "parser",
    "pathlib",
    "pdb",
    "pickle",
    "pickletools",
    "pipes",
    "pkgutil",
    "platform",
    "plistlib",
    "poplib",
    "posix",
    "posixpath",
    "pprint",
    "profile",
    "pstats",
    "pty",
    "pwd",
    "py_compile",
    "pyclbr",
    "pydoc",
    "pydoc_data",
    "pyexpat",
    "queue",
    "quopri",
    "random",
    "re",
    "readline",
    "reprlib",
    "resource",
    "rlcompleter",
    "runpy",
    "sched",
    "secrets",
    "select",
    "selectors",
    "shelve",
    "shlex",
    "shutil",
    "signal",
    "site",
    "smtpd",
    "smtplib",
    "sndhdr",
    "socket",
    "socketserver",
    "spwd",
    "sqlite3",
    "sre_compile",
    "sre_constants",
    "sre_parse",
    "ssl",
    "stat",
    "statistics",
    "string",
    "stringprep",
    "struct",
    "subprocess",
    "sunau",
    "symbol",
    "symtable",
    "sys",
    "sysconfig",
    "syslog",
    "tabnanny",
    "tarfile",
    "telnetlib",
    "tempfile",
    "termios",
    "textwrap",
    "this",
    "threading",
    "time",
    "timeit",
    "tkinter",
    "token",
    "tokenize",
    "tomllib",
    "trace",
    "traceback",
    "tracemalloc",
    "tty",
    "turtle",
    "turtledemo",
    "types",
    "typing",
    "unicodedata",
    "unittest",
    "urllib",
    "uu",
    "uuid",
    "venv",
    "warnings",
    "wave",
    "weakref",
    "webbrowser",
    "winreg",
    "winsound",
    "wsgiref",
    "xdrlib",
    "xml",
    "xmlrpc",
    "zipapp",
    "zipfile",
    "zipimport",
    "zlib",
    "zoneinfo",
];

/// Directories whose contents are installed or generated, never the project's modules.
const IGNORED_DIRS: &[&str] = &[
    "node_modules",
    ".venv",
    "venv",
    "site-packages",
    ".tox",
    ".git",
    "__pycache__",
    "target",
    "dist",
    "build",
];

fn ignored(path: &str) -> bool {
    path.split('/').any(|d| IGNORED_DIRS.contains(&d))
}

fn parent(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_owned()
    } else {
        format!("{dir}/{name}")
    }
}

pub fn rules(prepared: &[Prepared], ctx: &Context, out: &mut Out) {
    let tree: BTreeSet<&str> = ctx
        .input
        .tree_paths
        .iter()
        .map(String::as_str)
        .chain(
            prepared
                .iter()
                .filter(|p| p.change.head.is_some())
                .map(|p| p.path),
        )
        .filter(|p| !ignored(p))
        .collect();
    let added: BTreeSet<&str> = prepared
        .iter()
        .filter(|p| p.change.base.is_none() && p.change.head.is_some())
        .map(|p| p.path)
        .collect();
    python::python(&tree, &added, out);
    js(&tree, &added, &ctx.edited_sources, out);
    go(prepared, ctx, &added, out);
    java::java(&tree, &added, out);
}

// ---------------------------------------------------------------------------------------- JS/TS

const JS_EXTS: &[&str] = &["js", "jsx", "ts", "tsx"];

/// A resolvable JS/TS module path without its extension (`None` for declaration files and other
/// extensions).
fn js_stem(path: &str) -> Option<&str> {
    if path.ends_with(".d.ts") {
        return None;
    }
    let (stem, ext) = path.rsplit_once('.')?;
    (JS_EXTS.contains(&ext) && !stem.ends_with('/')).then_some(stem)
}

fn js(tree: &BTreeSet<&str>, added: &BTreeSet<&str>, edited: &BTreeSet<&str>, out: &mut Out) {
    // Existing modules by the specifier that reaches them: `a/b` for `a/b.ts` and `a/b/index.ts`.
    let mut by_spec: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    for p in tree.iter().filter(|p| !added.contains(*p)) {
        let Some(stem) = js_stem(p) else { continue };
        by_spec.entry(stem.to_owned()).or_default().push(p);
        if let Some(dir) = stem.strip_suffix("/index") {
            by_spec.entry(dir.to_owned()).or_default().push(p);
        }
    }
    for path in added.iter().filter(|p| !ignored(p)) {
        let Some(stem) = js_stem(path) else { continue };
        let mut specs = vec![stem.to_owned()];
        if let Some(dir) = stem.strip_suffix("/index") {
            specs.push(dir.to_owned());
        }
        if let Some(real) = specs
            .iter()
            .find_map(|s| by_spec.get(s).and_then(|v| v.first()))
        {
            out.push(
                Finding::new(
                    FindingKind::ShadowModule,
                    path,
                    format!(
                        "adds `{path}`, which an import of `{}` can resolve to instead of the existing `{real}`",
                        specs[0]
                    ),
                )
                .at_line(1),
            );
            continue;
        }
        // `src/__mocks__/calc.js` next to an edited `src/calc.ts`.
        let dir = parent(stem);
        if dir.rsplit('/').next() == Some("__mocks__") {
            let name = stem.rsplit('/').next().unwrap_or(stem);
            let module = join(parent(dir), name);
            if let Some(src) = edited.iter().find(|e| js_stem(e) == Some(module.as_str())) {
                out.push(
                    Finding::new(
                        FindingKind::ShadowModule,
                        path,
                        format!(
                            "adds a manual mock of `{src}`, which this change edits: tests that mock the module get this file, not the code"
                        ),
                    )
                    .at_line(1),
                );
            }
        }
    }
}

// -------------------------------------------------------------------------------------------- Go

/// `(module path, local replace targets)` of a go.mod text.
fn go_mod(text: &str) -> (Option<String>, Vec<String>) {
    let (module, pairs) = go_mod_replaces(text);
    (module, pairs.into_iter().map(|(_, t)| t).collect())
}

/// `(module path, [(replaced module, local target)])` of a go.mod text.
fn go_mod_replaces(text: &str) -> (Option<String>, Vec<(String, String)>) {
    let mut module = None;
    let mut replaces = Vec::new();
    let mut in_replace_block = false;
    for raw in text.lines() {
        let l = raw.split("//").next().unwrap_or("").trim();
        if let Some(m) = l.strip_prefix("module ") {
            module = Some(m.trim().trim_matches('"').to_owned());
        }
        let directive = if in_replace_block {
            if l == ")" {
                in_replace_block = false;
                continue;
            }
            Some(l)
        } else if l == "replace (" {
            in_replace_block = true;
            None
        } else {
            l.strip_prefix("replace ")
        };
        if let Some(d) = directive
            && let Some((from, target)) = d.split_once("=>")
        {
            let from = from.split_whitespace().next().unwrap_or("").to_owned();
            let target = target.split_whitespace().next().unwrap_or("");
            if target.starts_with("./") || target.starts_with("../") {
                replaces.push((from, target.trim_end_matches('/').to_owned()));
            }
        }
    }
    (module, replaces)
}

/// Normalises `a/./b/../c` to `a/c` (no `..` above the root).
fn clean(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for seg in path.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            s => parts.push(s),
        }
    }
    parts.join("/")
}

fn go(prepared: &[Prepared], ctx: &Context, added: &BTreeSet<&str>, out: &mut Out) {
    let mods: Vec<(String, String)> = prepared
        .iter()
        .filter_map(|p| Some((p.path.to_owned(), p.head_text.clone()?)))
        .chain(
            ctx.input
                .context
                .iter()
                .map(|(p, b)| (p.clone(), loki_syntax::lex::normalize(b))),
        )
        .filter(|(p, _)| p == "go.mod" || p.ends_with("/go.mod"))
        .collect();
    for (mod_path, text) in &mods {
        let dir = parent(mod_path);
        let (module, replaces) = go_mod(text);
        let (_, replaced) = go_mod_replaces(text);
        for path in added.iter().filter(|p| p.ends_with(".go")) {
            let rel = if dir.is_empty() {
                Some(*path)
            } else {
                path.strip_prefix(&format!("{dir}/"))
            };
            let Some(rel) = rel else { continue };
            if let (Some(m), Some(vendored)) = (&module, rel.strip_prefix("vendor/"))
                && (vendored.starts_with(&format!("{m}/")) || parent(vendored) == m.as_str())
            {
                out.push(
                    Finding::new(
                        FindingKind::ShadowModule,
                        path,
                        format!("vendors a copy of the module's own package ({m}): the build uses the copy, not the code"),
                    )
                    .at_line(1),
                );
                continue;
            }
            // A vendored copy of a module go.mod replaces with local code: the build takes the
            // copy, so an edit to it stands in for the real code.
            if let Some(vendored) = rel.strip_prefix("vendor/")
                && let Some((from, target)) = replaced
                    .iter()
                    .find(|(from, _)| vendored.starts_with(&format!("{from}/")))
            {
                out.push(
                    Finding::new(
                        FindingKind::ShadowModule,
                        path,
                        format!("vendors a copy of {from}, which {mod_path} replaces with `{target}`: the build uses the copy, not that code"),
                    )
                    .at_line(1),
                );
                continue;
            }
            for target in &replaces {
                let target_dir = clean(&join(dir, target));
                if !target_dir.is_empty() && path.starts_with(&format!("{target_dir}/")) {
                    out.push(
                        Finding::new(
                            FindingKind::ShadowModule,
                            path,
                            format!("adds code under `{target}`, where {mod_path} replaces a dependency: the build uses this instead of the real module"),
                        )
                        .at_line(1),
                    );
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stdlib_table_is_sorted_and_has_the_usual_names() {
        let mut sorted = PY_STDLIB.to_vec();
        sorted.sort_unstable();
        assert_eq!(sorted, PY_STDLIB);
        for m in ["json", "random", "typing", "asyncore", "parser", "tomllib"] {
            assert!(PY_STDLIB.contains(&m), "{m}");
        }
        assert!(!PY_STDLIB.contains(&"test") && !PY_STDLIB.contains(&"requests"));
    }

    #[test]
    fn go_mod_directives() {
        let (m, r) = go_mod(
            "module example.com/calc // main\n\ngo 1.22\n\nreplace a.b/c => ./fake\nreplace (\n\tx/y v1 => ../y\n\tz => z2 v1.0.0\n)\n",
        );
        assert_eq!(m.as_deref(), Some("example.com/calc"));
        assert_eq!(r, ["./fake", "../y"]);
        assert_eq!(clean("a/./b/../c"), "a/c");
    }
}
