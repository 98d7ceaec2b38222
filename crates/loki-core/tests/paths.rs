//! Path confinement on a real directory: symlinks in and out, `.git`, non-UTF-8 names.

#![expect(
    clippy::unwrap_used,
    clippy::disallowed_methods,
    reason = "the fixture helper unwraps (a broken fixture stops the test where it broke) and writes its files directly"
)]

use std::os::unix::ffi::OsStrExt;

use proptest::prelude::*;

use std::ffi::OsStr;
use std::path::Path;

use loki_core::paths::*;

/// A root with `src/a.rs`, symlinks in and out of it, and a directory outside.
struct Fixture {
    _dir: tempfile::TempDir,
    outside: tempfile::TempDir,
    root: Root,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::create_dir_all(p.join("src")).unwrap();
    std::fs::create_dir_all(p.join(".git/hooks")).unwrap();
    std::fs::create_dir_all(p.join("node_modules/x")).unwrap();
    std::fs::write(p.join("src/a.rs"), "x").unwrap();
    std::fs::write(outside.path().join("secret"), "s").unwrap();
    let link =
        |target: &Path, name: &str| std::os::unix::fs::symlink(target, p.join(name)).unwrap();
    link(outside.path(), "out_dir");
    link(&outside.path().join("secret"), "out_file");
    link(Path::new("src/a.rs"), "inner");
    link(Path::new("src"), "src_alias");
    link(Path::new(".git"), "git_alias");
    // Dangling, to a path outside that the fixture owns.
    link(&outside.path().join("gone/x"), "dangling");
    link(Path::new("self_loop"), "self_loop");
    link(Path::new("."), "here");
    let root = Root::new(p).unwrap();
    Fixture {
        _dir: dir,
        outside,
        root,
    }
}

fn problem(f: &Fixture, input: &str, rules: Rules) -> Problem {
    f.root.confine(input, rules).unwrap_err().problem
}

#[test]
fn relative_paths_inside_are_normalised_and_resolved() {
    let f = fixture();
    let r = f.root.path();
    let c = f
        .root
        .confine("./src/../src/a.rs", Rules::default())
        .unwrap();
    assert_eq!(c.rel, "src/a.rs");
    assert_eq!(c.abs, r.join("src/a.rs"));
    let c = f.root.confine("src/new/b.rs", Rules::default()).unwrap();
    assert_eq!(
        (c.rel.as_str(), c.abs.clone()),
        ("src/new/b.rs", r.join("src/new/b.rs"))
    );
    // A symlink inside is followed: named one way, resolved to the other.
    let c = f.root.confine("inner", Rules::default()).unwrap();
    assert_eq!((c.rel.as_str(), c.real_rel.as_str()), ("inner", "src/a.rs"));
    assert_eq!(c.abs, r.join("src/a.rs"));
    let c = f
        .root
        .confine("src_alias/new.rs", Rules::default())
        .unwrap();
    assert_eq!(c.abs, r.join("src/new.rs"));
    assert_eq!(c.real_rel, "src/new.rs");
}

#[test]
fn every_escape_is_refused_with_its_problem() {
    let f = fixture();
    let d = Rules::default();
    for (input, want) in [
        ("/etc/passwd", Problem::Absolute),
        ("../x", Problem::ParentEscape),
        ("src/../../x", Problem::ParentEscape),
        ("out_dir/secret", Problem::SymlinkEscape),
        ("out_dir/new/file", Problem::SymlinkEscape),
        ("out_file", Problem::SymlinkEscape),
        ("dangling", Problem::DanglingSymlink),
        ("dangling/x", Problem::DanglingSymlink),
        ("self_loop", Problem::DanglingSymlink),
        (".git/hooks/x", Problem::GitDir),
        (".git", Problem::GitDir),
        ("sub/.git/config", Problem::GitDir),
        (".GIT/hooks/pre-commit", Problem::GitDir),
        ("git_alias/hooks/pre-commit", Problem::GitDir),
        (".loki/runs/r/events.jsonl", Problem::LokiDir),
        (".loki", Problem::LokiDir),
        ("", Problem::Empty),
        ("  ", Problem::Empty),
        (".", Problem::Root),
        ("./", Problem::Root),
        ("src/..", Problem::Root),
        ("here", Problem::Root),
        ("a\0b", Problem::ControlChar),
        ("a.rs\r", Problem::ControlChar),
        ("a\nb.rs", Problem::ControlChar),
    ] {
        assert_eq!(problem(&f, input, d), want, "{input:?}");
    }
    let e = f.root.confine("../x", d).unwrap_err();
    assert_eq!(
        e.to_string(),
        "refusing path \"../x\": `..` is not allowed to leave the worktree; every path must stay inside it"
    );
}

#[test]
fn non_utf8_is_refused() {
    let f = fixture();
    let name = OsStr::from_bytes(b"src/\xff.rs");
    let e = f.root.confine(name, Rules::default()).unwrap_err();
    assert_eq!(e.problem, Problem::NotUtf8);
    assert_eq!(e.path, "src/\u{fffd}.rs");
}

#[test]
fn the_options_are_explicit() {
    let f = fixture();
    let r = f.root.path();
    let list = Rules {
        allow_root: true,
        ..Rules::default()
    };
    assert_eq!(f.root.confine(".", list).unwrap().abs, r);
    let trace = Rules {
        absolute_inside: true,
        refuse_dependencies: true,
        ..Rules::default()
    };
    let inside = r.join("src/../src/a.rs");
    let c = f.root.confine(&inside, trace).unwrap();
    assert_eq!(
        (c.rel.as_str(), c.abs.clone()),
        ("src/a.rs", r.join("src/a.rs"))
    );
    assert_eq!(
        problem(&f, "/usr/lib/python3/json.py", trace),
        Problem::Outside
    );
    let through = r.join("out_dir/secret");
    assert_eq!(
        f.root.confine(&through, trace).unwrap_err().problem,
        Problem::SymlinkEscape
    );
    assert_eq!(
        problem(&f, "node_modules/x/i.js", trace),
        Problem::Dependency("node_modules".into())
    );
    // A file named like a dependency directory is the project's own.
    assert!(f.root.confine("build", trace).is_ok());
    assert!(
        f.root
            .confine("node_modules/x/i.js", Rules::default())
            .is_ok()
    );
    let outside = f.outside.path().join("secret");
    assert_eq!(
        f.root
            .confine(&outside, Rules::default())
            .unwrap_err()
            .problem,
        Problem::Absolute
    );
}

fn part() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "a",
        "b",
        "src",
        "..",
        ".",
        "inner",
        "src_alias",
        "out_dir",
        "here",
        "new",
    ])
}

proptest! {
    /// The normaliser never yields `..` or `.`, so its output joined to a root stays below it.
    #[test]
    fn normalised_parts_never_leave_the_root(parts in prop::collection::vec(part(), 0..8)) {
        let input = parts.join("/");
        if let Ok(norm) = normalize(Path::new(&input)) {
            prop_assert!(norm.iter().all(|p| *p != ".." && *p != "."));
            let root = Path::new("/r");
            let joined = norm.iter().fold(root.to_path_buf(), |p, s| p.join(s));
            prop_assert!(joined.starts_with(root));
        }
    }

    /// Whatever the path, through symlinks in and out: an accepted one leads inside the root.
    #[test]
    fn confined_paths_never_leave_the_root(parts in prop::collection::vec(part(), 1..6)) {
        let f = fixture();
        let input = parts.join("/");
        if let Ok(c) = f.root.confine(&input, Rules { allow_root: true, ..Rules::default() }) {
            prop_assert!(c.abs.starts_with(f.root.path()), "{input} -> {}", c.abs.display());
            prop_assert!(!c.abs.starts_with(f.outside.path()));
            let real = c.abs.strip_prefix(f.root.path()).unwrap();
            prop_assert_eq!(real.to_str().unwrap(), c.real_rel.as_str());
        }
    }
}
