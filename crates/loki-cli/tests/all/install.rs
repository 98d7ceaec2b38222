//! Installing loki in one line (issue 34, item 2).
//!
//! The release workflow (`.github/workflows/release.yml`) cannot run here: it is validated against
//! the GitHub workflow schema PyPI `check-jsonschema` vendors (offline) and against a schema of the
//! structure a release depends on: the tag trigger, the four targets, the checksums, the
//! attestation with `id-token`/`attestations` on its job alone, the upload to the release.
//!
//! `install.sh` runs for real under `sh` against a release served on 127.0.0.1 by a small file
//! server in this module, whose archives and SHA256SUMS are made by `scripts/release-archive`,
//! the packer the workflow runs. Every test checks what the script leaves behind: the install
//! directory holds the new binary or exactly what it held before, and `TMPDIR` is empty.

use std::io::{BufRead as _, BufReader, Write as _};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::json;

use super::ci_templates::check;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

const WORKFLOW: &str = ".github/workflows/release.yml";
const TARGETS: [&str; 4] = [
    "x86_64-unknown-linux-musl",
    "aarch64-unknown-linux-musl",
    "aarch64-apple-darwin",
    "x86_64-apple-darwin",
];

/// A step whose `run` matches `pattern`.
fn run_step(pattern: &str) -> serde_json::Value {
    json!({"contains": {"type": "object", "required": ["run"],
        "properties": {"run": {"type": "string", "pattern": pattern}}}})
}

/// A step that uses the action `name` (any version).
fn uses_step(name: &str) -> serde_json::Value {
    json!({"type": "object", "required": ["uses"],
        "properties": {"uses": {"type": "string", "pattern": format!("^{name}@")}}})
}

/// The structure a release depends on, as a JSON schema over the workflow.
fn release_schema() -> serde_json::Value {
    let no_signing = json!({"not": {"anyOf": [
        {"required": ["id-token"]}, {"required": ["attestations"]}]}});
    let no_attest_step = json!({"not": {"contains": uses_step("actions/attest-build-provenance")}});
    let build = json!({"type": "object", "required": ["permissions", "strategy", "steps"],
    "properties": {
        "permissions": {"const": {"contents": "read"}},
        "strategy": {"type": "object", "required": ["matrix"], "properties": {"matrix": {
            "type": "object", "required": ["include"], "properties": {"include": {
                "type": "array", "minItems": 4, "maxItems": 4,
                "items": {"type": "object", "required": ["target", "runner"]},
                "allOf": TARGETS.map(|t| json!({"contains": {"type": "object",
                    "required": ["target"], "properties": {"target": {"const": t}}}})),
            }}}}},
        "steps": {"allOf": [
            run_step("cargo build --release --locked --target \"\\$TARGET\" -p loki-cli"),
            // Static on Linux; it runs and names the tag's version where it was built.
            run_step(r#"readelf -d "\$bin" \| grep -q '\(NEEDED\)'"#),
            run_step(r#"release/loki" version --json"#),
            run_step("scripts/release-archive pack "),
            {"contains": uses_step("actions/upload-artifact")},
            no_attest_step,
        ]}}});
    let attest = json!({"type": "object", "required": ["needs", "permissions", "steps"],
    "properties": {
        "needs": {"const": "build"},
        "permissions": {"const": {"contents": "read", "id-token": "write",
            "attestations": "write"}},
        "steps": {"allOf": [
            run_step("scripts/release-archive sums dist"),
            {"contains": {"allOf": [uses_step("actions/attest-build-provenance"),
                {"required": ["with"], "properties": {"with": {"type": "object",
                    "required": ["subject-path"], "properties": {"subject-path":
                        {"type": "string", "pattern": "(^|\\n)dist/\\*(\\n|$)"}}}}}]}},
        ]}}});
    let publish = json!({"type": "object", "required": ["needs", "permissions", "steps"],
    "properties": {
        "needs": {"const": "attest"},
        "permissions": {"const": {"contents": "write"}},
        "steps": {"allOf": [
            run_step("sha256sum --check --strict SHA256SUMS"),
            run_step("gh release create \"\\$TAG\" dist/\\*"),
            run_step("gh release upload \"\\$TAG\" dist/\\*"),
            no_attest_step,
        ]}}});
    json!({"type": "object", "required": ["on", "permissions", "jobs"],
        "properties": {
            "on": {"type": "object", "required": ["push", "workflow_dispatch"], "properties": {
                "push": {"type": "object", "required": ["tags"], "properties": {"tags":
                    {"const": ["v*"]}}}}},
            "permissions": {"const": {}},
            "jobs": {"type": "object", "required": ["build", "attest", "publish"],
                "properties": {"build": build, "attest": attest, "publish": publish},
                "additionalProperties": {"type": "object", "properties": {
                    "permissions": no_signing, "steps": no_attest_step}}}}})
}

/// The release workflow is a valid workflow with the structure above, and both checks can fail:
/// a misspelt key is refused by the workflow schema, a dropped target or a build job that can
/// sign by the structure's.
#[test]
fn the_release_workflow_builds_four_targets_signs_and_publishes() {
    let Some(tools) = loki_test_support::require_check_jsonschema() else {
        return;
    };
    let file = repo_root().join(WORKFLOW);
    let github = ["--builtin-schema", "vendor.github-workflows"];
    let (ok, said) = check(&tools, &github, std::slice::from_ref(&file));
    assert!(ok, "{said}");
    let dir = tempfile::tempdir().unwrap();
    let schema_file = dir.path().join("release.json");
    std::fs::write(&schema_file, release_schema().to_string()).unwrap();
    let structure = ["--schemafile", schema_file.to_str().unwrap()];
    let (ok, said) = check(&tools, &structure, std::slice::from_ref(&file));
    assert!(ok, "{said}");

    let text = std::fs::read_to_string(&file).unwrap();
    let broken = |name: &str, from: &str, to: &str| {
        assert!(text.contains(from), "{WORKFLOW} no longer holds {from:?}");
        let path = dir.path().join(name);
        std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
        vec![path]
    };
    let (ok, said) = check(
        &tools,
        &github,
        &broken(
            "misspelt.yml",
            "    runs-on: ubuntu-24.04\n",
            "    run-on: ubuntu-24.04\n",
        ),
    );
    assert!(
        !ok,
        "a job with no runs-on passed the workflow schema: {said}"
    );
    let three = broken(
        "three-targets.yml",
        "          - target: aarch64-unknown-linux-musl\n",
        "          - target: aarch64-unknown-linux-gnu\n",
    );
    let (ok, said) = check(&tools, &structure, &three);
    assert!(!ok, "a release without aarch64 musl passed: {said}");
    let signing_build = broken(
        "signing-build.yml",
        "    permissions:\n      contents: read\n    strategy:",
        "    permissions:\n      contents: read\n      id-token: write\n    strategy:",
    );
    let (ok, said) = check(&tools, &structure, &signing_build);
    assert!(
        !ok,
        "a build job that can mint an OIDC token passed: {said}"
    );
}

/// A static file server on 127.0.0.1 for a fake release: `GET /<path>` answers the file at
/// `<root>/<path>` or 404. It records each path asked for and stops when dropped.
struct Releases {
    addr: SocketAddr,
    asked: Arc<Mutex<Vec<String>>>,
    stop: Arc<AtomicBool>,
}

impl Releases {
    fn serve(root: &Path) -> Releases {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let asked = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (root, log, done) = (root.to_path_buf(), asked.clone(), stop.clone());
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                if done.load(Ordering::SeqCst) {
                    break;
                }
                if let Ok(conn) = conn {
                    answer(&root, &log, conn);
                }
            }
        });
        Releases { addr, asked, stop }
    }

    fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    fn asked(&self) -> Vec<String> {
        self.asked.lock().unwrap().clone()
    }
}

impl Drop for Releases {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(self.addr);
    }
}

fn answer(root: &Path, log: &Mutex<Vec<String>>, mut conn: TcpStream) {
    let mut reader = BufReader::new(conn.try_clone().unwrap());
    let mut line = String::new();
    if reader.read_line(&mut line).is_err() {
        return;
    }
    // The headers: read to the blank line, ignored.
    let mut header = String::new();
    while reader.read_line(&mut header).is_ok_and(|n| n > 2) {
        header.clear();
    }
    let path = line.split(' ').nth(1).unwrap_or("/").to_string();
    log.lock().unwrap().push(path.clone());
    let file = root.join(path.trim_start_matches('/'));
    let (status, body) = match std::fs::read(&file) {
        Ok(body) if !path.contains("..") => ("200 OK", body),
        _ => ("404 Not Found", b"not found\n".to_vec()),
    };
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = conn.write_all(head.as_bytes());
    let _ = conn.write_all(&body);
}

/// This machine's build target, as `install.sh` names it.
fn host_target() -> String {
    let os = if cfg!(target_os = "macos") {
        "apple-darwin"
    } else {
        "unknown-linux-musl"
    };
    format!("{}-{os}", std::env::consts::ARCH)
}

const VERSION: &str = "9.9.9";
const SAYS: &str = "loki 9.9.9 (fake release)";

fn executable(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// `scripts/release-archive` with `args`; it must succeed.
fn release_archive(args: &[&Path]) {
    let out = Command::new(repo_root().join("scripts/release-archive"))
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "release-archive {args:?}: {out:?}");
}

/// A fake release v9.9.9 in `<dir>/site`: `download/v9.9.9/` holds the archive for this machine
/// (a `loki` that prints [`SAYS`]), install.sh and SHA256SUMS, and `latest/download` is the same
/// directory.
struct Fixture {
    dir: tempfile::TempDir,
    release: PathBuf,
    archive: String,
}

impl Fixture {
    fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let release = dir.path().join("site/download/v9.9.9");
        let binary = dir.path().join("loki");
        executable(&binary, &format!("#!/bin/sh\necho \"{SAYS}\"\n"));
        let version = Path::new(VERSION);
        let target = host_target();
        release_archive(&[
            Path::new("pack"),
            version,
            Path::new(&target),
            &binary,
            &release,
        ]);
        std::fs::copy(repo_root().join("install.sh"), release.join("install.sh")).unwrap();
        release_archive(&[Path::new("sums"), &release]);
        std::fs::create_dir_all(dir.path().join("site/latest")).unwrap();
        std::os::unix::fs::symlink(&release, dir.path().join("site/latest/download")).unwrap();
        for sub in ["tmp", "home", "bin"] {
            std::fs::create_dir(dir.path().join(sub)).unwrap();
        }
        let archive = format!("loki-{VERSION}-{target}.tar.gz");
        Fixture {
            dir,
            release,
            archive,
        }
    }

    fn path(&self, sub: &str) -> PathBuf {
        self.dir.path().join(sub)
    }

    /// `sh -c <script>` with the install environment and `extra` on top.
    fn sh(&self, script: &str, server: &Releases, extra: &[(&str, &str)]) -> Output {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", script])
            .current_dir(self.dir.path())
            .env_remove("LOKI_VERSION")
            .env("HOME", self.path("home"))
            .env("TMPDIR", self.path("tmp"))
            .env("LOKI_INSTALL_DIR", self.path("bin"))
            .env("LOKI_RELEASES_URL", server.url())
            .env("INSTALL_SH", repo_root().join("install.sh"));
        for (k, v) in extra {
            cmd.env(k, v);
        }
        cmd.output().unwrap()
    }

    /// What the install directory holds: (name, bytes), sorted.
    fn installed(&self) -> Vec<(String, Vec<u8>)> {
        let mut all: Vec<_> = std::fs::read_dir(self.path("bin"))
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                let name = e.file_name().to_string_lossy().into_owned();
                (name, std::fs::read(e.path()).unwrap())
            })
            .collect();
        all.sort();
        all
    }

    /// `TMPDIR` is as the test made it: empty.
    fn assert_no_temp_left(&self) {
        let left: Vec<_> = std::fs::read_dir(self.path("tmp")).unwrap().collect();
        assert!(left.is_empty(), "install.sh left {left:?} in TMPDIR");
    }
}

fn text(out: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `curl -fsSL <releases>/latest/download/install.sh | sh` installs the latest release's binary,
/// which runs, and says how to verify its provenance; `LOKI_VERSION` installs that release.
#[test]
fn install_sh_installs_the_latest_release_and_the_binary_runs() {
    let fx = Fixture::new();
    let server = Releases::serve(&fx.path("site"));
    let one_line = "curl -fsSL \"$LOKI_RELEASES_URL/latest/download/install.sh\" | sh";
    let out = fx.sh(one_line, &server, &[]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}{stderr}");
    let bin = fx.path("bin/loki");
    assert_eq!(
        stdout.lines().next(),
        Some(format!("installed {SAYS} to {}", bin.display()).as_str()),
        "{stdout}"
    );
    let verify = format!(
        "gh attestation verify {} --repo loki-dev/loki",
        bin.display()
    );
    assert!(stdout.contains(&verify), "{stdout}");
    let ran = Command::new(&bin).output().unwrap();
    assert!(ran.status.success(), "{ran:?}");
    assert_eq!(String::from_utf8_lossy(&ran.stdout).trim(), SAYS);
    assert_eq!(fx.installed().len(), 1, "only loki is installed");
    let latest = format!("/latest/download/{}", fx.archive);
    assert_eq!(
        server.asked(),
        [
            "/latest/download/install.sh",
            "/latest/download/SHA256SUMS",
            latest.as_str()
        ]
    );
    fx.assert_no_temp_left();

    // A pinned version (with or without its v) replaces the binary from that release's URLs.
    std::fs::write(&bin, "an older loki").unwrap();
    let out = fx.sh("sh \"$INSTALL_SH\"", &server, &[("LOKI_VERSION", "v9.9.9")]);
    assert!(out.status.success(), "{out:?}");
    let ran = Command::new(&bin).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&ran.stdout).trim(), SAYS);
    let pinned = format!("/download/v9.9.9/{}", fx.archive);
    assert!(
        server
            .asked()
            .ends_with(&["/download/v9.9.9/SHA256SUMS".to_string(), pinned])
    );
    fx.assert_no_temp_left();
}

/// An archive whose SHA-256 is not the one SHA256SUMS lists is refused: exit 1, the message names
/// the archive and both digests, and the loki already installed is untouched.
#[test]
fn install_sh_refuses_a_checksum_mismatch_and_installs_nothing() {
    let fx = Fixture::new();
    // Another build under the same name: SHA256SUMS still lists the first.
    let other = fx.path("other");
    executable(&other, "#!/bin/sh\necho tampered\n");
    let elsewhere = fx.path("elsewhere");
    let target = host_target();
    release_archive(&[
        Path::new("pack"),
        Path::new(VERSION),
        Path::new(&target),
        &other,
        &elsewhere,
    ]);
    std::fs::copy(elsewhere.join(&fx.archive), fx.release.join(&fx.archive)).unwrap();
    std::fs::write(fx.path("bin/loki"), "the loki installed before").unwrap();
    let before = fx.installed();
    let server = Releases::serve(&fx.path("site"));
    for version in [None, Some("9.9.9")] {
        let extra: Vec<_> = version.map(|v| ("LOKI_VERSION", v)).into_iter().collect();
        let out = fx.sh("sh \"$INSTALL_SH\"", &server, &extra);
        let (stdout, stderr) = text(&out);
        assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
        let sums = std::fs::read_to_string(fx.release.join("SHA256SUMS")).unwrap();
        let listed = sums
            .lines()
            .find(|l| l.ends_with(&fx.archive))
            .and_then(|l| l.split(' ').next())
            .unwrap();
        assert!(
            stderr.contains(&format!("checksum mismatch for {}", fx.archive))
                && stderr.contains(listed)
                && stderr.contains("nothing installed"),
            "{stderr}"
        );
        assert!(!stdout.contains("installed"), "{stdout}");
        assert_eq!(fx.installed(), before);
        fx.assert_no_temp_left();
    }
}

/// SHA256SUMS without an entry for this machine's archive: the install is refused before the
/// archive is downloaded, for the latest release and for a pinned one.
#[test]
fn install_sh_refuses_an_archive_sha256sums_does_not_list() {
    let fx = Fixture::new();
    let sums_file = fx.release.join("SHA256SUMS");
    let sums = std::fs::read_to_string(&sums_file).unwrap();
    let kept: String = sums
        .lines()
        .filter(|l| !l.ends_with(&fx.archive))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_ne!(kept, sums);
    std::fs::write(&sums_file, kept).unwrap();
    let server = Releases::serve(&fx.path("site"));
    let target = host_target();
    let cases = [
        (None, format!("lists no archive for {target}")),
        (
            Some("9.9.9"),
            format!(
                "has no entry for {}: refusing to install an unverified download",
                fx.archive
            ),
        ),
    ];
    for (version, says) in cases {
        let extra: Vec<_> = version.map(|v| ("LOKI_VERSION", v)).into_iter().collect();
        let out = fx.sh("sh \"$INSTALL_SH\"", &server, &extra);
        let (stdout, stderr) = text(&out);
        assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
        assert!(stderr.contains(&says), "{stderr}");
        assert!(fx.installed().is_empty());
        fx.assert_no_temp_left();
    }
    assert!(
        server.asked().iter().all(|p| p.ends_with("/SHA256SUMS")),
        "{:?}",
        server.asked()
    );
}

/// A machine with no build (an architecture or an operating system loki is not built for) is
/// refused with exit 2 before anything is downloaded, naming what it found and what exists.
#[test]
fn install_sh_refuses_an_unknown_architecture_or_system() {
    let fx = Fixture::new();
    let server = Releases::serve(&fx.path("site"));
    let shims = fx.path("shims");
    std::fs::create_dir(&shims).unwrap();
    let path = format!(
        "{}:{}",
        shims.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let cases = [
        (
            "Linux",
            "sparc64",
            "no loki build for the architecture 'sparc64' (builds exist for x86_64 and aarch64)",
        ),
        (
            "FreeBSD",
            "x86_64",
            "no loki build for the operating system 'FreeBSD' (builds exist for Linux and macOS)",
        ),
    ];
    for (os, arch, says) in cases {
        executable(
            &shims.join("uname"),
            &format!(
                "#!/bin/sh\ncase \"$1\" in -s) echo {os} ;; -m) echo {arch} ;; *) exit 9 ;; esac\n"
            ),
        );
        let out = fx.sh("sh \"$INSTALL_SH\"", &server, &[("PATH", &path)]);
        let (stdout, stderr) = text(&out);
        assert_eq!(out.status.code(), Some(2), "{stdout}{stderr}");
        assert!(stderr.contains(says), "{stderr}");
        assert!(stderr.contains("cargo install --locked --git"), "{stderr}");
        assert!(fx.installed().is_empty());
        fx.assert_no_temp_left();
    }
    assert!(server.asked().is_empty(), "{:?}", server.asked());
}

/// `cargo install --locked --git <repository> loki-cli` and `cargo install --locked --path
/// crates/loki-cli` work from this workspace: Cargo.lock is current (`--locked` refuses a stale
/// one), loki-cli installs one binary, `loki`, and says what it is, its license and where it comes
/// from; the README, `install.sh` and the manifest name the same repository.
#[test]
fn cargo_install_finds_one_loki_binary_and_its_metadata() {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let cargo = |args: &[&str]| {
        let out = Command::new(&cargo)
            .args(args)
            .current_dir(repo_root())
            .output()
            .unwrap();
        assert!(out.status.success(), "cargo {args:?}: {out:?}");
        out.stdout
    };
    // What `--locked` checks: updating the workspace's own entries would change nothing.
    cargo(&["update", "--workspace", "--locked", "--offline", "--quiet"]);
    let out = cargo(&[
        "metadata",
        "--format-version",
        "1",
        "--no-deps",
        "--offline",
    ]);
    let meta: serde_json::Value = serde_json::from_slice(&out).unwrap();
    // `--no-deps`: the workspace's own packages.
    let packages: Vec<&serde_json::Value> = meta["packages"].as_array().unwrap().iter().collect();
    let bins = |p: &serde_json::Value| -> Vec<String> {
        p["targets"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t["kind"] == json!(["bin"]))
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect()
    };
    let cli = packages.iter().find(|p| p["name"] == "loki-cli").unwrap();
    assert_eq!(bins(cli), ["loki"]);
    assert_eq!(cli["license"], "Apache-2.0");
    assert!(
        cli["description"].as_str().is_some_and(|d| d.len() > 10),
        "{}",
        cli["description"]
    );
    let repository = cli["repository"].as_str().unwrap();
    assert_eq!(repository, "https://github.com/loki-dev/loki");
    let readme = Path::new(cli["manifest_path"].as_str().unwrap())
        .parent()
        .unwrap()
        .join(cli["readme"].as_str().unwrap());
    assert!(readme.is_file(), "readme {}", readme.display());
    let toolchain = std::fs::read_to_string(repo_root().join("rust-toolchain.toml")).unwrap();
    let rust = cli["rust_version"].as_str().unwrap();
    assert!(
        toolchain.contains(&format!("channel = \"{rust}")),
        "rust-version {rust}: {toolchain}"
    );
    assert!(
        std::fs::read_to_string(repo_root().join("LICENSE"))
            .unwrap()
            .trim_start()
            .starts_with("Apache License"),
        "the archives ship LICENSE"
    );
    // Another workspace package has a binary too (xtask), so `--git` must name loki-cli.
    let with_bins: Vec<&str> = packages
        .iter()
        .filter(|p| !bins(p).is_empty())
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert!(
        with_bins.len() > 1 && with_bins.contains(&"loki-cli"),
        "{with_bins:?}"
    );
    let readme_text = std::fs::read_to_string(repo_root().join("README.md")).unwrap();
    for line in [
        format!("cargo install --locked --git {repository} loki-cli"),
        "cargo install --locked --path crates/loki-cli".to_string(),
        format!("curl -fsSL {repository}/releases/latest/download/install.sh | sh"),
    ] {
        assert!(
            readme_text.contains(&line),
            "the README does not say {line:?}"
        );
    }
    let script = std::fs::read_to_string(repo_root().join("install.sh")).unwrap();
    let repo = repository.trim_start_matches("https://github.com/");
    assert!(
        script.contains(&format!("REPO=\"{repo}\"\n")),
        "install.sh installs from another repository"
    );
}

/// `curl … | sh` runs what arrived: a download cut short anywhere runs nothing (the script only
/// defines functions until its last line calls `main`), so no request is made and nothing is
/// installed.
#[test]
fn a_truncated_install_sh_downloads_and_installs_nothing() {
    let fx = Fixture::new();
    let server = Releases::serve(&fx.path("site"));
    let script = std::fs::read(repo_root().join("install.sh")).unwrap();
    let last = String::from_utf8_lossy(&script)
        .trim_end()
        .rfind('\n')
        .unwrap();
    let cuts: Vec<usize> = (1..script.len()).step_by(397).chain([last]).collect();
    for cut in cuts {
        let part = fx.path("part.sh");
        std::fs::write(&part, &script[..cut]).unwrap();
        let out = fx.sh("sh < part.sh", &server, &[]);
        assert!(
            out.stdout.is_empty() && fx.installed().is_empty(),
            "cut at byte {cut}: {out:?}"
        );
        fx.assert_no_temp_left();
    }
    assert!(server.asked().is_empty(), "{:?}", server.asked());
}
