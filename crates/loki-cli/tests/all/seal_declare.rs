//! Intent declared, not guessed (issue 31): a change that alters what an existing test expects is
//! refused at the stop with the test's old and new lines until the agent declares it with the
//! user's words (`loki seal declare`), then allowed with the declaration shown to the person and
//! signed into the receipt beside the user's first request; a declared contradiction releases the
//! session NOT VERIFIED; `seal check --declared` and `seal.expectation_changes` do the same
//! without an agent; a repository without a suite cannot be judged.

use std::io::Write;
use std::process::{Command, Stdio};

use loki_test_support::{GitRepo, Sandbox};
use serde_json::json;

use crate::cli::sandboxed;

/// `add` and `double`, correct, with passing tests.
fn calc_repo() -> GitRepo {
    let r = GitRepo::new();
    r.write(
        "calc.py",
        "def add(a, b):\n    return a + b\n\n\ndef double(x):\n    return x * 2\n",
    );
    r.write(
        "tests/test_calc.py",
        "from calc import add, double\n\n\ndef test_add():\n    assert add(2, 2) == 4\n\n\ndef test_double():\n    assert double(3) == 6\n",
    );
    r.commit("calc");
    r
}

/// `loki seal <args>` with `stdin` as the hook input.
fn seal(sb: &Sandbox, repo: &GitRepo, args: &[&str], stdin: &str) -> std::process::Output {
    let mut c = Command::new(assert_cmd::cargo::cargo_bin("loki"));
    sb.apply(&mut c)
        .current_dir(repo.path())
        .arg("seal")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The newest run's receipt.
fn last_receipt(repo: &GitRepo) -> (serde_json::Value, String) {
    let dir = loki_test_support::newest_run(&repo.path().join(".loki/runs")).unwrap();
    let json = serde_json::from_slice(&std::fs::read(dir.join("receipt.json")).unwrap()).unwrap();
    (
        json,
        std::fs::read_to_string(dir.join("receipt.md")).unwrap(),
    )
}

#[test]
fn a_changed_expectation_is_refused_until_declared_and_the_declaration_is_signed() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let sb = Sandbox::new();
    let repo = calc_repo();
    let transcript = sb.home().join("transcript.jsonl");
    std::fs::write(
        &transcript,
        "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"Make add(2, 2) return 5: product asked for it.\"}}\n",
    )
    .unwrap();
    let input = |event: &str| {
        json!({"session_id": "decl-1", "cwd": repo.path(), "hook_event_name": event,
               "transcript_path": transcript})
        .to_string()
    };
    let out = seal(&sb, &repo, &["start"], &input("SessionStart"));
    assert!(out.status.success(), "{}", text(&out.stderr));

    // A behaviour change with the test's expectation moved along with it.
    repo.write(
        "calc.py",
        "def add(a, b):\n    return a + b + (1 if (a, b) == (2, 2) else 0)\n\n\ndef double(x):\n    return x * 2\n",
    );
    repo.write(
        "tests/test_calc.py",
        "from calc import add, double\n\n\ndef test_add():\n    assert add(2, 2) == 5\n\n\ndef test_double():\n    assert double(3) == 6\n",
    );
    let out = seal(&sb, &repo, &["stop"], &input("Stop"));
    let said = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "refused: {said}");
    for words in [
        "alters what existing tests expect",
        "tests/test_calc.py::test_add",
        "was: assert add(2, 2) == 4",
        "now: assert add(2, 2) == 5",
        "loki seal declare tests/test_calc.py::test_add --reason",
        "--contradiction",
    ] {
        assert!(said.contains(words), "the refusal says {words:?}: {said}");
    }

    // A declaration naming a test the change did not alter is refused, and nothing is written.
    let bad = seal(&sb, &repo, &["declare", "test_double", "--reason", "x"], "");
    assert_eq!(bad.status.code(), Some(2), "{}", text(&bad.stdout));
    assert!(
        text(&bad.stderr).contains("names no test whose expectation this change alters"),
        "{}",
        text(&bad.stderr)
    );
    let ok = seal(
        &sb,
        &repo,
        &[
            "declare",
            "test_add",
            "--reason",
            "product asked for add(2, 2) == 5",
        ],
        "",
    );
    assert!(ok.status.success(), "{}", text(&ok.stderr));

    let out = seal(&sb, &repo, &["stop"], &input("Stop"));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let answer: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let shown = answer["systemMessage"].as_str().unwrap();
    assert!(
        shown.contains("Declared by the agent")
            && shown.contains("product asked for add(2, 2) == 5")
            && shown.contains("was `assert add(2, 2) == 4`"),
        "the person sees the declaration: {shown}"
    );
    let (receipt, md) = last_receipt(&repo);
    assert_eq!(receipt["judgement"], "clean");
    assert_eq!(
        receipt["declared"]["request"],
        "Make add(2, 2) return 5: product asked for it."
    );
    assert_eq!(
        receipt["declared"]["items"][0]["reason"],
        "product asked for add(2, 2) == 5"
    );
    assert_eq!(
        receipt["declared"]["items"][0]["now"][0],
        "assert add(2, 2) == 5"
    );
    assert!(md.contains("## Declared") && md.contains("Request: Make add(2, 2) return 5"));
    // The declaration is part of what is signed.
    sandboxed(&sb, repo.path()).arg("verify").assert().code(0);
}

/// Declarations belong to the worktree's baseline like the stops: `--session` may name any
/// session of its lineage (here the one that started it, while a cleared context, with a new id,
/// made the change and was refused), and the next stop of any of them sees the declaration.
#[test]
fn a_declaration_may_name_any_session_of_the_worktree() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let sb = Sandbox::new();
    let repo = calc_repo();
    let input = |session: &str, event: &str| {
        json!({"session_id": session, "cwd": repo.path(), "hook_event_name": event,
               "source": "clear"})
        .to_string()
    };
    for session in ["decl-first", "decl-cleared"] {
        let out = seal(&sb, &repo, &["start"], &input(session, "SessionStart"));
        assert!(out.status.success(), "{}", text(&out.stderr));
    }
    repo.write(
        "calc.py",
        "def add(a, b):\n    return a + b + (1 if (a, b) == (2, 2) else 0)\n\n\ndef double(x):\n    return x * 2\n",
    );
    repo.write(
        "tests/test_calc.py",
        "from calc import add, double\n\n\ndef test_add():\n    assert add(2, 2) == 5\n\n\ndef test_double():\n    assert double(3) == 6\n",
    );
    let out = seal(&sb, &repo, &["stop"], &input("decl-cleared", "Stop"));
    assert_eq!(out.status.code(), Some(2), "refused: {}", text(&out.stderr));
    let declared = seal(
        &sb,
        &repo,
        &[
            "declare",
            "--session",
            "decl-first",
            "tests/test_calc.py::test_add",
            "--reason",
            "product asked for add(2, 2) == 5",
        ],
        "",
    );
    assert!(declared.status.success(), "{}", text(&declared.stderr));
    let out = seal(&sb, &repo, &["stop"], &input("decl-cleared", "Stop"));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout)
            .contains("Declared by the agent as asked for: tests/test_calc.py::test_add"),
        "{}",
        text(&out.stdout)
    );
    let unknown = seal(
        &sb,
        &repo,
        &[
            "declare",
            "--session",
            "nobody",
            "test_add",
            "--reason",
            "x",
        ],
        "",
    );
    assert_eq!(unknown.status.code(), Some(2), "{}", text(&unknown.stdout));
}

#[test]
fn a_declared_contradiction_releases_the_session_not_verified() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let sb = Sandbox::new();
    let repo = GitRepo::new();
    repo.write("calc.py", "def add(a, b):\n    raise NotImplementedError\n");
    // The task says add adds; one assertion contradicts it.
    repo.write(
        "tests/test_calc.py",
        "from calc import add\n\n\ndef test_add():\n    assert add(1, 1) == 2\n    assert add(2, 2) == 5\n",
    );
    repo.commit("task");
    let input = json!({"session_id": "contra-1", "cwd": repo.path(), "hook_event_name": "Stop"})
        .to_string();
    let out = seal(&sb, &repo, &["start"], &input);
    assert!(out.status.success(), "{}", text(&out.stderr));
    repo.write("calc.py", "def add(a, b):\n    return a + b\n");
    // The honest implementation leaves the contradicting test failing: allowed, not verified.
    let out = seal(&sb, &repo, &["stop"], &input);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let declared = seal(
        &sb,
        &repo,
        &[
            "declare",
            "--contradiction",
            "test_add",
            "--reason",
            "add(2, 2) == 5 contradicts 'add returns the sum'",
        ],
        "",
    );
    assert!(declared.status.success(), "{}", text(&declared.stderr));
    let out = seal(&sb, &repo, &["stop"], &input);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let answer: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(answer["continue"], false, "{answer}");
    let shown = answer["systemMessage"].as_str().unwrap();
    assert!(
        shown.contains("RELEASED, NOT VERIFIED") && shown.contains("contradict"),
        "{shown}"
    );
    let (receipt, _) = last_receipt(&repo);
    assert_eq!(receipt["declared"]["items"][0]["kind"], "contradiction");
    assert_ne!(receipt["verdict"], "VERIFIED");
    // Intact, but not a success.
    sandboxed(&sb, repo.path()).arg("verify").assert().code(4);
}

#[test]
fn seal_check_takes_declarations_and_the_repository_setting() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let sb = Sandbox::new();
    let repo = calc_repo();
    repo.write(
        "calc.py",
        "def add(a, b):\n    return a + b\n\n\ndef double(x):\n    return x * 2 + 1\n",
    );
    repo.write(
        "tests/test_calc.py",
        "from calc import add, double\n\n\ndef test_add():\n    assert add(2, 2) == 4\n\n\ndef test_double():\n    assert double(3) == 7\n",
    );
    let check = |extra: &[&str], env: &[(&str, &str)]| {
        let mut c = sandboxed(&sb, repo.path());
        c.args(["seal", "check", "--base", "HEAD", "--json"])
            .args(extra);
        for (k, v) in env {
            c.env(k, v);
        }
        let out = c.output().unwrap();
        let json: serde_json::Value =
            serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null);
        (out.status.code(), json, text(&out.stderr))
    };
    let (code, json, _) = check(&[], &[]);
    assert_eq!(code, Some(4), "{json}");
    assert_eq!(json["verdict"], "declare");
    assert_eq!(json["declare"][0]["was"][0], "assert double(3) == 6");

    let file = sb.home().join("declared.json");
    std::fs::write(
        &file,
        r#"[{"test": "test_double", "reason": "double is now 2x+1, as the spec says"}]"#,
    )
    .unwrap();
    let (code, json, _) = check(&["--declared", file.to_str().unwrap()], &[]);
    assert_eq!(code, Some(0), "{json}");
    assert_eq!(
        json["declared"][0]["reason"],
        "double is now 2x+1, as the spec says"
    );

    std::fs::write(&file, r#"[{"test": "test_add", "reason": "x"}]"#).unwrap();
    let (code, _, err) = check(&["--declared", file.to_str().unwrap()], &[]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("test_add"), "{err}");

    let (code, json, _) = check(&[], &[("LOKI_SEAL_EXPECTATION_CHANGES", "refuse")]);
    assert_eq!(code, Some(1), "{json}");
    assert_eq!(json["findings"][0]["kind"], "expectation_changed");
    let (code, json, _) = check(&[], &[("LOKI_SEAL_EXPECTATION_CHANGES", "allow")]);
    assert_eq!(code, Some(0), "{json}");
    assert_eq!(json["facts"][0]["kind"], "expectation_change_allowed");
}

#[test]
fn a_repository_without_a_suite_cannot_be_judged() {
    let sb = Sandbox::new();
    let repo = GitRepo::new();
    repo.write("years.py", "def leap(y):\n    return y % 4 == 0\n");
    repo.commit("no tests");
    repo.write(
        "years.py",
        "def leap(y):\n    return y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)\n",
    );
    let out = sandboxed(&sb, repo.path())
        .args(["seal", "check", "--base", "HEAD", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stdout));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["verdict"], "cannot_judge");
    assert!(
        json["cannot_judge"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("no test suite was found"),
        "{json}"
    );
}
