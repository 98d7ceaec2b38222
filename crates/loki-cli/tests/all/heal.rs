//! `loki run`, `loki fix`, `loki replay` end to end: a real Python program, the scripted
//! provider, an isolated home, and the exit-code contracts.

use std::path::Path;

use loki_test_support::{GitRepo, Sandbox};
use predicates::prelude::*;
use serde_json::json;

use crate::cli::sandboxed;

const APP: &str = "def average(values):\n    return sum(values) / len(values)\n\n\ndef main():\n    print(\"average:\", average([]))\n\n\nmain()\n";
const LINE: &str = "    return sum(values) / len(values)\n";
const FIXED: &str = "    return sum(values) / len(values) if values else 0.0\n";

fn repo_with_app() -> GitRepo {
    let r = GitRepo::new();
    r.write("app.py", APP);
    r.commit("app");
    r
}

/// A script file whose one session answers with `answer`.
fn script(dir: &Path, answer: &str) -> std::path::PathBuf {
    let p = dir.join("heal-script.json");
    let s = json!({"sessions": [{"name": "heal", "turns": [{"text": answer}]}]});
    std::fs::write(&p, s.to_string()).unwrap();
    p
}

fn patch(original: &str, replacement: &str) -> String {
    json!({"file": "app.py", "root_cause": "empty list", "explanation": "return 0.0 for no values",
           "original_snippet": original, "replacement_snippet": replacement})
    .to_string()
}

fn record_crash(sb: &Sandbox, repo: &GitRepo) -> String {
    let out = sandboxed(sb, repo.path())
        .args(["run", "--seed", "3", "--", "python3", "app.py"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "ZeroDivisionError: division by zero",
        ))
        .stderr(predicate::str::contains("crash recorded as run_"))
        .get_output()
        .stderr
        .clone();
    let text = String::from_utf8(out).unwrap();
    let at = text.find("crash recorded as ").unwrap() + "crash recorded as ".len();
    text[at..at + "run_YYYYMMDD_HHMMSS_xxxx".len()].to_string()
}

#[test]
fn run_records_a_crash_fix_diagnoses_and_replay_reproduces() {
    let sb = Sandbox::new();
    let repo = repo_with_app();
    let run = record_crash(&sb, &repo);
    let dir = repo.path().join(".loki/runs").join(&run);
    let inc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("incident.json")).unwrap()).unwrap();
    assert_eq!(inc["seed"], 3);
    assert_eq!(inc["crash"]["kind"], "ZeroDivisionError");
    assert_eq!(inc["exit"]["code"], 1);
    sandboxed(&sb, repo.path())
        .arg("fix")
        .assert()
        .success()
        .stdout(predicate::str::contains("Source:     app.py:2 in average"))
        .stdout(predicate::str::contains("return sum(values) / len(values)"))
        .stdout(predicate::str::contains(
            "Signature:  ZeroDivisionError at average (app.py)",
        ));
    sandboxed(&sb, repo.path())
        .args(["replay", &run])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "REPRODUCED: ZeroDivisionError at average",
        ));
}

#[test]
fn a_clean_run_exits_0_and_records_no_incident() {
    let sb = Sandbox::new();
    let repo = GitRepo::new();
    repo.write("ok.py", "print('all good')\n");
    sandboxed(&sb, repo.path())
        .args(["run", "--", "python3", "ok.py"])
        .assert()
        .success()
        .stdout("all good\n");
    sandboxed(&sb, repo.path())
        .arg("fix")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no incident recorded"));
}

#[test]
fn fix_apply_yes_with_the_scripted_provider_verifies_and_signs() {
    let sb = Sandbox::new();
    let repo = repo_with_app();
    let run = record_crash(&sb, &repo);
    let script = script(sb.home(), &patch(LINE, FIXED));
    let out = sandboxed(&sb, repo.path())
        .env("LOKI_PROVIDER", "scripted")
        .env("LOKI_PROVIDER_SCRIPT", &script)
        .args(["fix", "--apply", "--yes"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "+    return sum(values) / len(values) if values else 0.0",
        ))
        .stdout(predicate::str::contains("Outcome:    VERIFIED"))
        .stdout(predicate::str::contains("app.py.loki.bak removed"))
        .get_output()
        .stdout
        .clone();
    assert!(!repo.path().join("app.py.loki.bak").exists());
    let text = String::from_utf8(out).unwrap();
    // The summary's last line names it (`heal run run_… · incident …`); NOT PROVEN above may
    // say "heal run" in prose.
    let at = text.find("heal run run_").unwrap() + "heal run ".len();
    let heal_run = text[at..at + 24].to_string();
    sandboxed(&sb, repo.path())
        .args(["verify", &heal_run])
        .assert()
        .success();
    sandboxed(&sb, repo.path())
        .args(["replay", &run])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("NOT REPRODUCED"));
}

/// A patch that turns the crash into another crash is no fix: `loki fix` rolls it back (the file
/// byte for byte, the backup removed) and says what the new crash was, in its text, its `--json`
/// and the heal run's `patch.rolled_back` event.
#[test]
fn a_patch_that_changes_the_crash_is_rolled_back_and_the_new_crash_named() {
    let sb = Sandbox::new();
    let repo = repo_with_app();
    let original = std::fs::read(repo.path().join("app.py")).unwrap();
    let script = script(sb.home(), &patch(LINE, "    return {}['missing']\n"));
    let new_crash = "KeyError: 'missing' at app.py:2 in average (exit 1)";
    for json in [false, true] {
        let run = record_crash(&sb, &repo);
        let mut cmd = sandboxed(&sb, repo.path());
        cmd.env("LOKI_PROVIDER", "scripted")
            .env("LOKI_PROVIDER_SCRIPT", &script);
        if json {
            cmd.arg("--json");
        }
        let out = cmd
            .args(["fix", &run, "--apply", "--yes"])
            .assert()
            .code(1)
            .get_output()
            .stdout
            .clone();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            std::fs::read(repo.path().join("app.py")).unwrap(),
            original,
            "restored byte for byte"
        );
        assert!(!repo.path().join("app.py.loki.bak").exists(), "{text}");
        let heal_run = if json {
            // The summary object is the last line: with --json the patch preview is still printed
            // above it (issue 32, item 8).
            let v: serde_json::Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
            assert_eq!(v["status"], "rolled_back", "{v}");
            assert_eq!(v["outcome"], "FAILED", "{v}");
            assert_eq!(v["new_crash"]["kind"], "KeyError", "{v}");
            assert_eq!(v["new_crash"]["message"], "'missing'", "{v}");
            assert_eq!(v["new_crash"]["location"], "app.py:2 in average", "{v}");
            assert!(v["detail"].as_str().unwrap().contains(new_crash), "{v}");
            v.get("run_id")
                .or_else(|| v.get("run"))
                .and_then(serde_json::Value::as_str)
                .unwrap()
                .to_string()
        } else {
            assert!(text.contains("Outcome:    FAILED"), "{text}");
            assert!(
                text.contains(&format!("the patched program still crashed, with {new_crash}: app.py restored from its backup byte for byte and the backup removed")),
                "{text}"
            );
            assert!(!text.contains("both kept"), "{text}");
            let at = text.find("heal run run_").unwrap() + "heal run ".len();
            text[at..at + 24].to_string()
        };
        let events = std::fs::read_to_string(
            repo.path()
                .join(".loki/runs")
                .join(&heal_run)
                .join("events.jsonl"),
        )
        .unwrap();
        let rolled: serde_json::Value = events
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .find(|e| e["type"] == "patch.rolled_back")
            .unwrap_or_else(|| panic!("no patch.rolled_back in {events}"));
        assert_eq!(rolled["data"]["new_crash"]["kind"], "KeyError", "{rolled}");
        assert_eq!(
            rolled["data"]["new_crash"]["location"], "app.py:2 in average",
            "{rolled}"
        );
        assert_eq!(rolled["data"]["byte_identical"], true, "{rolled}");
        sandboxed(&sb, repo.path())
            .args(["verify", &heal_run])
            .assert()
            .code(4);
    }
}

/// The verifying replay runs the model's patched code: a patch that also tries to read loki's
/// signing key, plant a program in a `PATH` directory and write a git hook of the checkout gets
/// "permission denied" for each inside the box, while the fix itself still verifies.
#[test]
fn a_patch_that_reads_the_signing_key_during_the_replay_is_boxed() {
    if !loki_test_support::require_landlock() {
        return;
    }
    let sb = Sandbox::new();
    let repo = repo_with_app();
    loki_receipt::Signer::load_or_create(&sb.loki_home(), &loki_receipt::KeyEnv::default())
        .unwrap();
    let key = sb.loki_home().join("keys/receipt-ed25519.pem");
    assert!(
        std::fs::read_to_string(&key)
            .unwrap()
            .contains("PRIVATE KEY")
    );
    let bin = sb.home().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    record_crash(&sb, &repo);
    let loot = repo.path().join("stolen.txt");
    let hook = repo.path().join(".git/hooks/post-commit");
    let attack = format!(
        "r = []\nfor name, f in [('key', lambda: open({key:?}).read()), ('path', lambda: open({plant:?}, 'w').write('x')), ('hook', lambda: open({hook:?}, 'w').write('x'))]:\n try: r.append(name + ': ' + str(f()))\n except OSError as e: r.append(name + ': denied: ' + str(e))\nopen({loot:?}, 'w').write('\\n'.join(r))",
        key = key.display().to_string(),
        plant = bin.join("git").display().to_string(),
        hook = hook.display().to_string(),
        loot = loot.display().to_string(),
    );
    let hostile =
        format!("    exec({attack:?}); return sum(values) / len(values) if values else 0.0\n");
    let script = script(sb.home(), &patch(LINE, &hostile));
    sandboxed(&sb, repo.path())
        .env("PATH", &path)
        .env("LOKI_PROVIDER", "scripted")
        .env("LOKI_PROVIDER_SCRIPT", &script)
        .args(["fix", "--apply", "--yes"])
        .assert()
        .success()
        .stdout(predicate::str::contains("Outcome:    VERIFIED"));
    let stolen = std::fs::read_to_string(&loot).unwrap();
    assert!(
        !stolen.contains("PRIVATE KEY"),
        "the key left the box: {stolen}"
    );
    for route in ["key", "path", "hook"] {
        assert!(
            stolen.contains(&format!("{route}: denied: ")),
            "{route} got through: {stolen}"
        );
    }
    assert!(!bin.join("git").exists());
    assert!(!hook.exists());
}

#[test]
fn auto_heal_fixes_right_after_the_crash() {
    let sb = Sandbox::new();
    let repo = repo_with_app();
    let script = script(sb.home(), &patch(LINE, FIXED));
    sandboxed(&sb, repo.path())
        .env("LOKI_PROVIDER", "scripted")
        .env("LOKI_PROVIDER_SCRIPT", &script)
        .args(["run", "--auto-heal", "--", "python3", "app.py"])
        .assert()
        .success()
        .stdout(predicate::str::contains("Outcome:    VERIFIED"));
}

#[test]
fn apply_without_a_terminal_or_yes_is_refused_before_anything_happens() {
    let sb = Sandbox::new();
    let repo = repo_with_app();
    record_crash(&sb, &repo);
    sandboxed(&sb, repo.path())
        .env("LOKI_PROVIDER", "scripted")
        .env("LOKI_PROVIDER_SCRIPT", sb.home().join("never-read.json"))
        .args(["fix", "--apply"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "stdin is not a terminal: pass --yes",
        ));
    assert_eq!(
        std::fs::read_to_string(repo.path().join("app.py")).unwrap(),
        APP
    );
}

#[test]
fn apply_with_no_model_configured_says_how_to_get_one() {
    let sb = Sandbox::new();
    let repo = repo_with_app();
    record_crash(&sb, &repo);
    sandboxed(&sb, repo.path())
        .args(["fix", "--apply", "--yes"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no model is configured"))
        .stderr(predicate::str::contains("loki fix --demo"));
}

#[test]
fn a_hand_edited_incident_is_refused_naming_the_field() {
    let sb = Sandbox::new();
    let repo = repo_with_app();
    let run = record_crash(&sb, &repo);
    let path = repo
        .path()
        .join(".loki/runs")
        .join(&run)
        .join("incident.json");
    let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    v["exit"]["code"] = json!("one");
    std::fs::write(&path, v.to_string()).unwrap();
    for cmd in [vec!["fix"], vec!["replay"]] {
        sandboxed(&sb, repo.path())
            .args(&cmd)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(
                "field exit.code must be an integer",
            ));
    }
    std::fs::write(&path, "{\"schema\": \"loki.incident/1\"").unwrap();
    sandboxed(&sb, repo.path())
        .arg("fix")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("is not valid JSON"));
}

#[test]
fn a_stale_backup_is_reported_and_restore_puts_the_original_back() {
    let sb = Sandbox::new();
    let repo = repo_with_app();
    record_crash(&sb, &repo);
    // As left by a fix killed between the backup and the verification.
    std::fs::write(repo.path().join("app.py.loki.bak"), APP).unwrap();
    std::fs::write(repo.path().join("app.py"), APP.replace(LINE, FIXED)).unwrap();
    sandboxed(&sb, repo.path())
        .arg("fix")
        .assert()
        .success()
        .stderr(predicate::str::contains("stale backup app.py.loki.bak"))
        .stderr(predicate::str::contains("loki fix --restore"));
    let script = script(sb.home(), &patch(FIXED, LINE));
    sandboxed(&sb, repo.path())
        .env("LOKI_PROVIDER", "scripted")
        .env("LOKI_PROVIDER_SCRIPT", &script)
        .args(["fix", "--apply", "--yes"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("a backup"))
        .stderr(predicate::str::contains("loki fix --restore"));
    sandboxed(&sb, repo.path())
        .args(["fix", "--restore"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "restored app.py from app.py.loki.bak",
        ));
    assert_eq!(
        std::fs::read_to_string(repo.path().join("app.py")).unwrap(),
        APP
    );
    assert!(!repo.path().join("app.py.loki.bak").exists());
}

#[test]
fn the_demo_heals_offline_with_its_built_in_patch() {
    let sb = Sandbox::new();
    sandboxed(&sb, sb.home())
        .args(["fix", "--demo"])
        .assert()
        .success()
        .stdout(predicate::str::contains("using the demo's built-in patch"))
        .stdout(predicate::str::contains("Outcome:    VERIFIED"));
}

/// The run id in a `loki run` report on stderr.
fn run_id_in(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    let at = text.find("run_").expect("a run id in the report");
    text[at..at + "run_YYYYMMDD_HHMMSS_xxxx".len()].to_string()
}

fn incident_json(repo: &GitRepo, run: &str) -> serde_json::Value {
    let path = repo
        .path()
        .join(".loki/runs")
        .join(run)
        .join("incident.json");
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// Every file under `dir`, as bytes.
fn all_files(dir: &Path, out: &mut Vec<(std::path::PathBuf, Vec<u8>)>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            all_files(&p, out);
        } else {
            out.push((p.clone(), std::fs::read(&p).unwrap()));
        }
    }
}

#[test]
fn run_exits_with_the_commands_own_code() {
    let sb = Sandbox::new();
    let repo = GitRepo::new();
    let out = sandboxed(&sb, repo.path())
        .args(["run", "--", "sh", "-c", "echo failing >&2; exit 3"])
        .assert()
        .code(3)
        .stderr(predicate::str::contains("crash recorded as run_"))
        .stderr(predicate::str::contains("(exit 3)"))
        .get_output()
        .stderr
        .clone();
    let inc = incident_json(&repo, &run_id_in(&out));
    assert_eq!(inc["exit"]["code"], 3);
    assert!(inc["exit"].get("signal_name").is_none(), "{inc}");
    sandboxed(&sb, repo.path())
        .args(["run", "--", "sh", "-c", "exit 0"])
        .assert()
        .code(0);
}

#[test]
fn a_death_by_signal_exits_128_plus_n_and_is_recorded_with_its_name() {
    let sb = Sandbox::new();
    let repo = GitRepo::new();
    let out = sandboxed(&sb, repo.path())
        .args(["run", "--", "sh", "-c", "kill -SEGV $$"])
        .assert()
        .code(139)
        .stderr(predicate::str::contains(
            "Crash:      signal SIGSEGV (exit 139)",
        ))
        .get_output()
        .stderr
        .clone();
    let inc = incident_json(&repo, &run_id_in(&out));
    assert_eq!(inc["exit"]["code"], 139);
    assert_eq!(inc["exit"]["signal"], 11);
    assert_eq!(inc["exit"]["signal_name"], "SIGSEGV");
    assert_eq!(inc["crash"]["kind"], "signal SIGSEGV");
    let out = sandboxed(&sb, repo.path())
        .args(["--json", "run", "--", "sh", "-c", "kill -SEGV $$"])
        .assert()
        .code(139)
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["outcome"], "CRASHED");
    assert_eq!(v["exit_code"], 139);
    assert_eq!(v["signal"], "SIGSEGV");
}

const APP_KEY: &str = "sk-app-key-0123456789";
const GH_TOKEN: &str = "ghp_token_0123456789";
const AWS_SECRET: &str = "aws/secret+0123456789";
const DB_PASSWORD: &str = "hunter2-db-password";
const SIGNING_KEY: &str = "loki-signing-key-not-for-the-app";

/// A program that prints what it sees and crashes only when its key is the recorded one.
const SHOW_ENV: &str = "echo \"key=$OPENAI_API_KEY gh=$GITHUB_TOKEN aws=$AWS_SECRET_ACCESS_KEY \
db=$DATABASE_URL ci=${CI-unset} nc=${NO_COLOR-unset} sk=${LOKI_RECEIPT_SIGNING_KEY-unset} \
mine=$MY_SETTING\"; case \"$OPENAI_API_KEY\" in sk-app-*) exit 1 ;; *) exit 5 ;; esac";

fn with_secrets(cmd: &mut assert_cmd::Command) -> &mut assert_cmd::Command {
    cmd.env("OPENAI_API_KEY", APP_KEY)
        .env("GITHUB_TOKEN", GH_TOKEN)
        .env("AWS_SECRET_ACCESS_KEY", AWS_SECRET)
        .env(
            "DATABASE_URL",
            format!("postgres://app:{DB_PASSWORD}@localhost/app"),
        )
        .env("LOKI_RECEIPT_SIGNING_KEY", SIGNING_KEY)
        .env("MY_SETTING", "plain-value")
        .env_remove("NO_COLOR")
}

#[test]
fn the_command_gets_the_callers_environment_and_no_secret_reaches_the_disk() {
    let sb = Sandbox::new();
    let repo = GitRepo::new();
    let out = with_secrets(&mut sandboxed(&sb, repo.path()))
        .args(["run", "--", "sh", "-c", SHOW_ENV])
        .assert()
        .code(1)
        .get_output()
        .clone();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.contains(&format!(
            "key={APP_KEY} gh={GH_TOKEN} aws={AWS_SECRET} db=postgres://app:{DB_PASSWORD}@localhost/app \
ci=unset nc=unset sk=unset mine=plain-value"
        )),
        "{stdout}"
    );
    let run = run_id_in(&out.stderr);
    let inc = incident_json(&repo, &run);
    assert_eq!(
        inc["env_secrets"],
        json!([
            "AWS_SECRET_ACCESS_KEY",
            "DATABASE_URL",
            "GITHUB_TOKEN",
            "OPENAI_API_KEY"
        ])
    );
    assert_eq!(inc["env_vars"]["MY_SETTING"], "plain-value");
    assert!(inc["env_vars"].get("LOKI_RECEIPT_SIGNING_KEY").is_none());
    assert!(inc.get("env_clean").is_none());
    let mut files = Vec::new();
    all_files(&repo.path().join(".loki/runs").join(&run), &mut files);
    assert!(files.len() >= 3, "{files:?}");
    for (path, bytes) in &files {
        let text = String::from_utf8_lossy(bytes);
        for secret in [APP_KEY, GH_TOKEN, AWS_SECRET, DB_PASSWORD, SIGNING_KEY] {
            assert!(
                !text.contains(secret),
                "{} holds {secret}:\n{text}",
                path.display()
            );
        }
    }
    // The replay takes the secrets by name from its own environment: the crash reproduces ...
    with_secrets(&mut sandboxed(&sb, repo.path()))
        .args(["replay", &run])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("REPRODUCED"));
    // ... and without the key the program fails differently, and the script says which is missing.
    sandboxed(&sb, repo.path())
        .args(["replay", &run])
        .assert()
        .code(2)
        .stdout(predicate::str::contains(
            "[note] OPENAI_API_KEY was set when the crash was recorded and is not set now",
        ))
        .stdout(predicate::str::contains("HARNESS ERROR"));
}

#[test]
fn clean_env_removes_secret_looking_variables() {
    let sb = Sandbox::new();
    let repo = GitRepo::new();
    let out = with_secrets(&mut sandboxed(&sb, repo.path()))
        .args(["run", "--clean-env", "--", "sh", "-c", SHOW_ENV])
        .assert()
        .code(5)
        .get_output()
        .clone();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.contains("key= gh= aws= db= ci=unset nc=unset sk=unset mine=plain-value"),
        "{stdout}"
    );
    let inc = incident_json(&repo, &run_id_in(&out.stderr));
    assert_eq!(inc["env_clean"], true);
    assert!(inc.get("env_secrets").is_none(), "{inc}");
    assert_eq!(inc["env_vars"]["MY_SETTING"], "plain-value");
}
