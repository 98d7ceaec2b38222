//! Help, version, completions, unknown input, refusals at start, and repo detection.

use assert_cmd::Command;
use loki_test_support::{GitRepo, Sandbox};
use predicates::prelude::*;

pub fn sandboxed(sb: &Sandbox, dir: &std::path::Path) -> Command {
    let mut std_cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("loki"));
    sb.apply(&mut std_cmd).current_dir(dir);
    Command::from_std(std_cmd)
}

#[test]
fn help_lists_every_command_with_one_line() {
    let sb = Sandbox::new();
    let out = sandboxed(&sb, sb.home())
        .arg("--help")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    insta::assert_snapshot!(text);
}

/// The help of `loki <path>` (`--help`, long form).
fn help_of(sb: &Sandbox, path: &[String]) -> String {
    let out = sandboxed(sb, sb.home())
        .args(path)
        .arg("--help")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    String::from_utf8(out).unwrap()
}

/// Every option of every command shows its default once: a `[default: …]` written in its doc
/// and one clap adds from `default_value` would both be printed (`seal install --help` said
/// `[default: loki] [default: loki]`).
#[test]
fn no_option_shows_its_default_twice() {
    let sb = Sandbox::new();
    let mut paths: Vec<Vec<String>> = vec![Vec::new()];
    let mut seen = 0;
    while let Some(path) = paths.pop() {
        let text = help_of(&sb, &path);
        // An option's help runs from its flag to the next flag, blank line or heading
        // (continuation lines included); other sections (Environment:) are not options.
        let mut option = String::new();
        for line in text.lines().chain(std::iter::once("")) {
            let t = line.trim_start();
            if t.starts_with('-') || t.is_empty() || t.len() == line.len() {
                assert!(
                    option.matches("[default:").count() <= 1,
                    "loki {} --help shows a default twice:\n{option}",
                    path.join(" ")
                );
                option.clear();
            }
            if t.starts_with('-') || !option.is_empty() {
                option.push_str(t);
                option.push(' ');
            }
        }
        let commands = text
            .split("\nCommands:\n")
            .nth(1)
            .map(|rest| rest.split("\n\n").next().unwrap_or_default())
            .unwrap_or_default();
        for line in commands.lines() {
            let name = line.split_whitespace().next().unwrap_or_default();
            if line.starts_with("  ") && !line.starts_with("   ") && name != "help" {
                let mut sub = path.clone();
                sub.push(name.to_string());
                paths.push(sub);
            }
        }
        seen += 1;
    }
    assert!(seen > 40, "walked only {seen} commands");
    insta::assert_snapshot!(help_of(&sb, &["seal".into(), "install".into()]));
}

/// `-h` stays one screen: the environment variables (from `loki_core::env`) are in `--help` only.
#[test]
fn short_help_leaves_the_environment_to_long_help() {
    let sb = Sandbox::new();
    sandboxed(&sb, sb.home())
        .arg("-h")
        .assert()
        .success()
        .stdout(predicate::str::contains("Try it offline: loki demo"))
        .stdout(predicate::str::contains("Environment:").not());
    sandboxed(&sb, sb.home())
        .arg("--help")
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "Environment:\n  LOKI_HOME\n          user state",
        ));
}

#[test]
fn version_text_and_json() {
    let sb = Sandbox::new();
    sandboxed(&sb, sb.home())
        .arg("version")
        .assert()
        .success()
        .stdout(predicate::str::starts_with(format!(
            "loki {}",
            env!("CARGO_PKG_VERSION")
        )));
    let out = sandboxed(&sb, sb.home())
        .args(["version", "--json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["name"], "loki");
    assert_eq!(v["receipt_schema"], "loki.receipt/1");
    assert_eq!(v["event_log_version"], 1);
}

#[test]
fn unknown_flags_and_commands_exit_2_with_clap_errors() {
    let sb = Sandbox::new();
    sandboxed(&sb, sb.home())
        .arg("--frobnicate")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "unexpected argument '--frobnicate'",
        ));
    // A command's name mistyped is a usage error naming the command meant ...
    sandboxed(&sb, sb.home())
        .arg("verfy")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unrecognized subcommand 'verfy'"))
        .stderr(predicate::str::contains("did you mean `loki verify`?"));
    // ... while any other one-word task is a task (here refused: the home is no repository).
    sandboxed(&sb, sb.home())
        .arg("refactor")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unrecognized subcommand").not())
        .stderr(predicate::str::contains("git"));
    sandboxed(&sb, sb.home())
        .args(["runs", "delete"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unrecognized subcommand"));
}

#[test]
fn serve_beyond_loopback_without_a_token_refuses_to_start_with_exit_2() {
    let sb = Sandbox::new();
    sandboxed(&sb, sb.home())
        .args(["serve", "--bind", "0.0.0.0", "--port", "0"])
        .env_remove("LOKI_CONTROL_TOKEN")
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains("without LOKI_CONTROL_TOKEN"));
}

#[test]
fn completions_for_bash_mention_commands() {
    let sb = Sandbox::new();
    sandboxed(&sb, sb.home())
        .args(["completions", "bash"])
        .assert()
        .success()
        .stdout(predicate::str::contains("doctor").and(predicate::str::contains("events")));
}

#[test]
fn outside_a_git_repository_is_a_clear_error() {
    let sb = Sandbox::new();
    let dir = tempfile::tempdir().unwrap();
    sandboxed(&sb, dir.path())
        .args(["runs", "list"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("not inside a git repository"));
}

#[test]
fn a_loki_file_or_outside_symlink_is_refused() {
    let sb = Sandbox::new();
    let repo = GitRepo::new();
    repo.write(".loki", "not a dir");
    sandboxed(&sb, repo.path())
        .args(["runs", "list"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("a file, not a directory"));

    let repo = GitRepo::new();
    let outside = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path(), repo.path().join(".loki")).unwrap();
    sandboxed(&sb, repo.path())
        .args(["runs", "list"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("outside the repository"));
}

#[test]
fn no_color_and_color_flags() {
    let sb = Sandbox::new();
    let repo = GitRepo::new();
    // NO_COLOR is set by the sandbox: no escapes.
    let plain = sandboxed(&sb, repo.path()).arg("doctor").output().unwrap();
    assert!(!String::from_utf8_lossy(&plain.stdout).contains('\u{1b}'));
    // --color always wins over NO_COLOR.
    let colored = sandboxed(&sb, repo.path())
        .args(["--color", "always", "doctor"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&colored.stdout).contains('\u{1b}'));
}

#[test]
fn a_closed_pipe_ends_quietly() {
    use std::io::Read as _;
    let sb = Sandbox::new();
    let repo = GitRepo::new();
    // A log far larger than a pipe's buffer, so the writer really meets the closed pipe.
    let store =
        loki_core::run::RunStore::new(loki_core::layout::Repo::discover(repo.path()).unwrap());
    let rec = store
        .start(loki_core::run::RunKind::Build, None, vec![])
        .unwrap();
    let mut w = loki_events::EventWriter::open(&store.dir(&rec.id), rec.id.as_str()).unwrap();
    for i in 0..3000 {
        w.append(
            loki_events::EventType::ToolCalled,
            None,
            serde_json::json!({"tool": "read_file", "i": i}),
        )
        .unwrap();
    }
    drop(w);
    let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("loki"));
    sb.apply(&mut c)
        .current_dir(repo.path())
        .args(["events", rec.id.as_str(), "--json"]);
    c.stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = c.spawn().unwrap();
    let mut out = child.stdout.take().unwrap();
    let mut one = [0u8; 1];
    out.read_exact(&mut one).unwrap();
    drop(out);
    let status = child.wait().unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert!(!err.contains("panicked"), "{err}");
    // 141 when the write met the closed pipe; 0 when the output layer dropped the error itself.
    assert!(matches!(status.code(), Some(0 | 141)), "{status:?} {err}");
}

#[test]
fn the_confinement_wrapper_refuses_what_it_must_and_fails_closed() {
    let sb = Sandbox::new();
    let secret = sb.home().join("secret");
    std::fs::create_dir_all(&secret).unwrap();
    std::fs::write(secret.join("key"), "KEY").unwrap();
    let writable = tempfile::tempdir().unwrap();
    let out = sandboxed(&sb, sb.home())
        .arg("__confine")
        .arg("--deny")
        .arg(&secret)
        .arg("--write")
        .arg(writable.path())
        .args(["--", "sh", "-c"])
        .arg(format!(
            "cat '{}/key'; echo ok > '{}/w' && echo wrote; echo no > '{}/x'",
            secret.display(),
            writable.path().display(),
            sb.home().display()
        ))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stdout.contains("KEY"), "{stdout}");
    assert!(stderr.contains("key: Permission denied"), "{stderr}");
    assert!(stdout.contains("wrote"), "{stdout}{stderr}");
    assert!(stderr.contains("x: Permission denied"), "{stderr}");
    assert!(!sb.home().join("x").exists());
    // Bad usage and a missing program: the command never runs unconfined.
    sandboxed(&sb, sb.home())
        .args(["__confine", "--deny"])
        .assert()
        .code(126)
        .stderr(predicates::str::contains("--deny needs a path"));
    sandboxed(&sb, sb.home())
        .args(["__confine", "--", "no-such-program-xyz"])
        .assert()
        .code(127)
        .stderr(predicates::str::contains("cannot run no-such-program-xyz"));
}

#[test]
fn json_errors_are_one_json_object_on_stdout() {
    let sb = Sandbox::new();
    let repo = loki_test_support::GitRepo::new();
    repo.write("a.txt", "a\n");
    repo.commit("init");
    let out = sandboxed(&sb, repo.path())
        .args(["status", "--json", "run_not_an_id"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
    assert!(
        v["error"].as_str().unwrap().contains("run_not_an_id"),
        "{v}"
    );
    assert_eq!(v["exit_code"], 2);
    assert!(String::from_utf8_lossy(&out.stderr).contains("error:"));
}

/// `loki checks run` into a pipe: no colour codes unless asked for (`--color always`), whatever
/// it prints (its result lines, the dim run line).
#[test]
fn checks_run_prints_no_colour_into_a_pipe() {
    if !loki_test_support::require_tool("node", &["--version"]) {
        return;
    }
    let sb = Sandbox::new();
    let repo = loki_test_support::GitRepo::new();
    repo.write(
        "test/a.test.js",
        "const t = require('node:test');\nconst assert = require('node:assert');\nt.test('a', () => assert.strictEqual(1, 2));\n",
    );
    repo.write(
        "package.json",
        "{\"name\": \"a\", \"scripts\": {\"test\": \"node --test\"}}\n",
    );
    repo.commit("a failing test");
    let run = |args: &[&str]| {
        let out = sandboxed(&sb, repo.path())
            .args(["checks", "run"])
            .args(args)
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(1),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        [out.stdout, out.stderr].concat()
    };
    for args in [&[][..], &["--color", "never"][..], &["--color", "auto"][..]] {
        let out = run(args);
        assert!(
            !out.contains(&0x1b),
            "{args:?}: {}",
            String::from_utf8_lossy(&out)
        );
    }
    assert!(run(&["--color", "always"]).contains(&0x1b));
}
