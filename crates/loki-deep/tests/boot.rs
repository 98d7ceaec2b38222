//! The app boot check per ecosystem, with real programs: a project whose app boots (listens on
//! `PORT` and answers `GET /`) and one that crashes on boot (the exit code and the output tail
//! are reported).

#![expect(
    clippy::unwrap_used,
    clippy::panic,
    clippy::disallowed_methods,
    reason = "tests fail loudly on broken fixtures and write fixture files directly (not loki state)"
)]

use std::path::Path;
use std::time::Duration;

use loki_deep::boot::{BootStatus, boot, find_start_commands};
use loki_test_support::require_tool;

const WINDOW: Duration = Duration::from_secs(20);

fn write(root: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let p = root.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
}

/// Boots the only start command of a project made of `files`.
fn boot_project(ecosystem: &str, files: &[(&str, &str)]) -> BootStatus {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("p");
    write(&root, files);
    let cmds = find_start_commands(&root);
    assert_eq!(cmds.len(), 1, "{cmds:?}");
    assert_eq!(cmds[0].ecosystem, ecosystem);
    let scratch = dir.path().join("scratch");
    std::fs::create_dir_all(&scratch).unwrap();
    boot(&cmds[0], &root, &scratch, WINDOW, &[], &[]).status
}

fn assert_booted(status: &BootStatus) {
    match status {
        BootStatus::Booted { how } => {
            assert!(how.contains("GET / answered 200"), "{how}");
        }
        other => panic!("expected a boot, got {other:?}"),
    }
}

fn assert_crashed(status: &BootStatus, code: i32, says: &str) {
    match status {
        BootStatus::Crashed {
            exit_code,
            tail,
            reason,
        } => {
            assert_eq!(*exit_code, Some(code), "{reason}");
            assert!(tail.contains(says), "{tail}");
        }
        other => panic!("expected a crash on boot, got {other:?}"),
    }
}

const NODE_SERVER: &str = "require('http').createServer((q, s) => s.end('ok')).listen(Number(process.env.PORT), '127.0.0.1');\n";

#[test]
fn node_start_script_boots_and_a_throwing_one_crashes() {
    if !require_tool("npm", &["--version"]) {
        return;
    }
    assert_booted(&boot_project(
        "npm",
        &[
            (
                "package.json",
                r#"{"name":"a","scripts":{"start":"node server.js"}}"#,
            ),
            ("server.js", NODE_SERVER),
        ],
    ));
    assert_crashed(
        &boot_project(
            "npm",
            &[
                (
                    "package.json",
                    r#"{"name":"a","scripts":{"dev":"node server.js"}}"#,
                ),
                ("server.js", "throw new Error('database url missing');\n"),
            ],
        ),
        1,
        "database url missing",
    );
}

const PY_SERVER: &str = "import http.server, os\n\nclass H(http.server.BaseHTTPRequestHandler):\n    def do_GET(self):\n        self.send_response(200)\n        self.end_headers()\n        self.wfile.write(b'ok')\n\nhttp.server.HTTPServer(('127.0.0.1', int(os.environ['PORT'])), H).serve_forever()\n";

#[test]
fn python_main_package_boots_and_a_failing_one_crashes() {
    if !require_tool("python3", &["--version"]) {
        return;
    }
    assert_booted(&boot_project(
        "python",
        &[("app/__init__.py", ""), ("app/__main__.py", PY_SERVER)],
    ));
    assert_crashed(
        &boot_project(
            "python",
            &[
                ("src/svc/__init__.py", ""),
                (
                    "src/svc/__main__.py",
                    "import sys\nprint('bad config')\nsys.exit(3)\n",
                ),
            ],
        ),
        3,
        "bad config",
    );
}

const GO_SERVER: &str = "package main\n\nimport (\n\t\"net/http\"\n\t\"os\"\n)\n\nfunc main() {\n\thttp.HandleFunc(\"/\", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(\"ok\")) })\n\thttp.ListenAndServe(\"127.0.0.1:\"+os.Getenv(\"PORT\"), nil)\n}\n";

#[test]
fn go_main_package_boots_and_a_panicking_one_crashes() {
    if !require_tool("go", &["version"]) {
        return;
    }
    let gomod = "module example.com/app\n\ngo 1.20\n";
    assert_booted(&boot_project(
        "go",
        &[("go.mod", gomod), ("main.go", GO_SERVER)],
    ));
    assert_crashed(
        &boot_project(
            "go",
            &[
                ("go.mod", gomod),
                (
                    "main.go",
                    "package main\n\nfunc main() {\n\tpanic(\"no listener configured\")\n}\n",
                ),
            ],
        ),
        2,
        "no listener configured",
    );
}

const RUST_SERVER: &str = "use std::io::{Read, Write};\nfn main() {\n    let port = std::env::var(\"PORT\").unwrap();\n    let l = std::net::TcpListener::bind(format!(\"127.0.0.1:{port}\")).unwrap();\n    for s in l.incoming() {\n        let mut s = s.unwrap();\n        let mut b = [0u8; 1024];\n        let _ = s.read(&mut b);\n        let _ = s.write_all(b\"HTTP/1.0 200 OK\\r\\n\\r\\nok\");\n    }\n}\n";

#[test]
fn cargo_binary_boots_and_an_exiting_one_crashes() {
    if !require_tool("cargo", &["--version"]) {
        return;
    }
    let manifest =
        "[package]\nname = \"bootapp\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n";
    assert_booted(&boot_project(
        "cargo",
        &[("Cargo.toml", manifest), ("src/main.rs", RUST_SERVER)],
    ));
    assert_crashed(
        &boot_project(
            "cargo",
            &[
                ("Cargo.toml", manifest),
                (
                    "src/main.rs",
                    "fn main() {\n    eprintln!(\"missing PORT config\");\n    std::process::exit(4);\n}\n",
                ),
            ],
        ),
        4,
        "missing PORT config",
    );
}

#[test]
fn a_program_that_exits_zero_boots_and_a_project_without_start_has_none() {
    if !require_tool("python3", &["--version"]) {
        return;
    }
    match boot_project("python", &[("tool/__main__.py", "print('hello')\n")]) {
        BootStatus::Booted { how } => assert!(how.contains("exited 0"), "{how}"),
        other => panic!("{other:?}"),
    }
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[
            ("lib.py", "x = 1\n"),
            ("package.json", r#"{"scripts":{"test":"node --test"}}"#),
        ],
    );
    assert!(find_start_commands(dir.path()).is_empty());
}
