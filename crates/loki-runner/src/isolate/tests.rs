use super::cargo::manifest_paths;
use super::go::{go_paths, replace_path_prefix};
use super::*;
use loki_protocol::CheckKind;

#[test]
fn replaces_whole_path_prefixes_only() {
    let t = "use (\n\t.\n\t/work/repo/lib\n\t/work/repo2/x\n\t\"/work/repo\"\n)\nreplace a => /work/repo/b v1\n";
    let got = replace_path_prefix(t, "/work/repo", "/tmp/tree");
    assert_eq!(
        got,
        "use (\n\t.\n\t/tmp/tree/lib\n\t/work/repo2/x\n\t\"/tmp/tree\"\n)\nreplace a => /tmp/tree/b v1\n"
    );
}

#[test]
fn go_paths_reads_use_and_replace() {
    let work = "go 1.19\n\nuse (\n\t. // root\n\t/abs/lib\n)\nuse ./other\nreplace example.com/x v1.0.0 => ../x\nreplace example.com/y => example.com/z v1\n";
    assert_eq!(
        go_paths(work, true),
        vec![".", "/abs/lib", "./other", "../x"]
    );
    assert_eq!(go_paths(work, false), vec!["../x"]);
}

#[test]
fn manifest_paths_finds_every_dependency_table() {
    let doc: toml::Table = r#"
[package]
name = "a"
[dependencies]
x = { path = "../x" }
y = "1"
[dev-dependencies.z]
path = "/abs/z"
[target.'cfg(unix)'.dependencies]
u = { path = "u" }
[workspace.dependencies]
w = { path = "crates/w" }
[patch.crates-io]
p = { path = "../../p" }
"#
    .parse()
    .unwrap();
    let mut got = Vec::new();
    manifest_paths(&toml::Value::Table(doc), &mut got);
    got.sort();
    assert_eq!(got, vec!["../../p", "../x", "/abs/z", "crates/w", "u"]);
}

#[test]
fn gowork_into_the_checkout_is_copied_to_the_tree_and_goflags_noted() {
    let t = tempfile::tempdir().unwrap();
    let ck = t.path().join("ck");
    let tree = t.path().join("tree");
    std::fs::create_dir_all(ck.join("app")).unwrap();
    std::fs::create_dir_all(tree.join("app")).unwrap();
    let work = format!(
        "go 1.18\n\nuse (\n\t./app\n\t{}\n)\n",
        ck.join("lib").display()
    );
    loki_core::fs::write_atomic(&ck.join("go.work"), work.as_bytes()).unwrap();
    let check = Check {
        name: "go:app".into(),
        kind: CheckKind::Go,
        dir: "app".into(),
        cwd: tree.join("app"),
        command: vec!["go".into(), "test".into()],
        script: None,
        why: String::new(),
    };
    let env: Vec<(OsString, OsString)> = vec![
        ("GOWORK".into(), ck.join("go.work").into()),
        (
            "GOFLAGS".into(),
            format!("-overlay={}/overlay.json", ck.display()).into(),
        ),
    ];
    let p = prepare(&ck, &tree, &[check], "base", &env, &t.path().join("cache")).unwrap();
    assert_eq!(p.env(), [("GOWORK".into(), tree.join("go.work").into())]);
    assert_eq!(p.created(), [tree.join("go.work")]);
    let copied = std::fs::read_to_string(tree.join("go.work")).unwrap();
    assert!(
        copied.contains(&*tree.join("lib").to_string_lossy()),
        "{copied}"
    );
    assert!(!copied.contains(&*ck.to_string_lossy()), "{copied}");
    assert_eq!(p.notes().len(), 1, "{:?}", p.notes());
    assert!(p.notes()[0].starts_with("GOFLAGS"), "{:?}", p.notes());
}

#[test]
fn roles_are_one_path_component() {
    assert_eq!(role_dir("base"), "base");
    assert_eq!(role_dir("../x y"), "___x_y");
    assert_eq!(role_dir(""), "_");
}

#[test]
fn same_tree_is_a_no_op() {
    let t = tempfile::tempdir().unwrap();
    let check = Check {
        name: "pytest".into(),
        kind: CheckKind::Pytest,
        dir: ".".into(),
        cwd: t.path().to_path_buf(),
        command: vec!["python3".into()],
        script: None,
        why: String::new(),
    };
    let p = prepare(t.path(), t.path(), &[check], "base", &[], t.path()).unwrap();
    assert!(p.env().is_empty() && p.notes().is_empty() && p.created().is_empty());
    assert!(p.evidence_dir().is_none() && p.leaks().is_empty());
}

#[test]
fn moved_maps_checkout_paths_and_leaves_the_tree() {
    let t = tempfile::tempdir().unwrap();
    let ck = t.path().join("ck");
    let tr = t.path().join("ck-tree");
    std::fs::create_dir_all(&ck).unwrap();
    std::fs::create_dir_all(&tr).unwrap();
    let roots = Roots::new(&ck, &tr).unwrap();
    assert_eq!(
        roots.moved(&ck.join("src/a.py")),
        Some(roots.pairs[0].1.join("src/a.py"))
    );
    assert_eq!(roots.moved(&ck), Some(roots.pairs[0].1.clone()));
    assert_eq!(roots.moved(&tr.join("x")), None);
    assert_eq!(roots.moved(&ck.join("../ck-tree/x")), None);
    assert_eq!(roots.moved(Path::new("/elsewhere")), None);
}
