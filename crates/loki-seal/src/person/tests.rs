use std::os::unix::net::UnixListener;

use super::*;

fn args(s: &str) -> Vec<String> {
    s.split(' ').map(str::to_string).collect()
}

#[test]
fn the_line_is_the_message_of_an_allow_or_a_release_on_one_line() {
    let allow = Decision::Allow {
        message: "loki seal: VERIFIED: 1 suite(s), 3 tests executed. Receipt sha256:ab".into(),
    };
    assert_eq!(
        line(&allow),
        "loki seal: VERIFIED: 1 suite(s), 3 tests executed. Receipt sha256:ab"
    );
    let release = Decision::Release {
        message: "loki seal: RELEASED, NOT VERIFIED: refused\n twice".into(),
    };
    assert_eq!(
        line(&release),
        "loki seal: RELEASED, NOT VERIFIED: refused twice"
    );
}

#[test]
fn the_line_of_a_block_names_its_findings_not_the_advice_or_the_output() {
    let block = Decision::Block {
        reason: "loki seal: not done. Fix the code, not the tests.\n- test_file_removed test_calc.py — restore the deleted tests\n- newly_failing t1 — fix the code\nIf the tests contradict the task …\n\nEnd of pytest's output:\n- not a finding\n".into(),
    };
    // The suites' output could hold "- " lines too; they are findings only before it.
    let l = line(&block);
    assert!(
        l.starts_with("loki seal: BLOCKED, the agent was told to go on: test_file_removed test_calc.py — restore the deleted tests; newly_failing t1 — fix the code"),
        "{l}"
    );
    let failed = Decision::Block {
        reason: "loki seal could not check this stop, so it does not accept it: no git\n".into(),
    };
    assert_eq!(
        line(&failed),
        "loki seal could not check this stop, so it does not accept it: no git"
    );
}

#[test]
fn headless_modes_relay_and_interactive_ones_do_not() {
    assert!(relays(Agent::Claude, &args("claude -p hi")));
    assert!(relays(
        Agent::Claude,
        &args("claude --model m --print hi --output-format json")
    ));
    assert!(!relays(Agent::Claude, &args("claude --model m")));
    assert!(relays(Agent::Codex, &args("codex exec --json hi")));
    assert!(relays(Agent::Codex, &args("codex e hi")));
    assert!(relays(Agent::Codex, &args("codex -c a=b exec resume x")));
    assert!(!relays(Agent::Codex, &args("codex")));
    // The TUI runs its hooks in its app-server.
    assert!(!relays(
        Agent::Codex,
        &args("codex app-server --listen unix://")
    ));
    assert!(!relays(Agent::Gemini, &args("node gemini -p hi -o json")));
    assert!(relays(Agent::Cursor, &args("cursor-agent -p hi")));
    assert!(!relays(Agent::Claude, &[]));
}

#[test]
fn json_output_is_read_from_each_clients_flags() {
    assert!(json_output(
        Agent::Claude,
        &args("claude -p hi --output-format stream-json")
    ));
    assert!(json_output(
        Agent::Claude,
        &args("claude -p hi --output-format=json")
    ));
    assert!(!json_output(
        Agent::Claude,
        &args("claude -p hi --output-format text")
    ));
    assert!(!json_output(Agent::Claude, &args("claude -p hi")));
    assert!(json_output(Agent::Codex, &args("codex exec --json hi")));
    assert!(!json_output(Agent::Codex, &args("codex exec hi")));
    assert!(json_output(Agent::Gemini, &args("gemini -p hi -o json")));
}

/// A fake `/proc`: processes with a parent, a command line and fds linked to files.
struct FakeProc {
    dir: tempfile::TempDir,
    _listener: UnixListener,
}

impl FakeProc {
    /// The hook (pid 100, stdout a socket), its `sh -c` (50) and the client (40, `argv`, stdout
    /// `out`, stderr `err`).
    fn new(argv: &str, out: &str, err: &str) -> FakeProc {
        let dir = tempfile::tempdir().unwrap();
        let listener = UnixListener::bind(dir.path().join("hook.sock")).unwrap();
        for f in ["out.txt", "err.txt"] {
            std::fs::write(dir.path().join(f), "").unwrap();
        }
        let p = FakeProc {
            dir,
            _listener: listener,
        };
        p.process(100, 50, "loki seal stop", "hook.sock", "hook.sock");
        p.process(50, 40, "sh -c loki", "hook.sock", "hook.sock");
        p.process(40, 1, argv, out, err);
        p
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }

    fn process(&self, pid: u32, ppid: u32, argv: &str, out: &str, err: &str) {
        let d = self.root().join(pid.to_string());
        std::fs::create_dir_all(d.join("fd")).unwrap();
        std::fs::write(
            d.join("stat"),
            format!("{pid} (a (b) c) S {ppid} {pid} {pid} 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 12345 0\n"),
        )
        .unwrap();
        std::fs::write(d.join("cmdline"), format!("{}\0", argv.replace(' ', "\0"))).unwrap();
        for (fd, target) in [("1", out), ("2", err)] {
            let link = d.join("fd").join(fd);
            let _ = std::fs::remove_file(&link);
            std::os::unix::fs::symlink(self.root().join(target), link).unwrap();
        }
    }
}

#[test]
fn the_client_is_the_nearest_ancestor_not_sharing_the_hooks_stdout() {
    let p = FakeProc::new("claude -p hi", "out.txt", "err.txt");
    let r = relay_target_in(p.root(), 100, Agent::Claude).unwrap();
    assert_eq!(r.pid, 40);
    assert_eq!(r.path, p.root().join("40/fd/2"));
    assert_eq!(r.argv, args("claude -p hi"));
}

#[test]
fn no_relay_where_the_client_shows_the_verdict_itself() {
    let p = FakeProc::new("claude --model m", "out.txt", "err.txt");
    assert_eq!(relay_target_in(p.root(), 100, Agent::Claude), None);
    let p = FakeProc::new("gemini -p hi", "out.txt", "err.txt");
    assert_eq!(relay_target_in(p.root(), 100, Agent::Gemini), None);
}

#[test]
fn no_relay_into_a_json_stream_merged_with_stderr() {
    let p = FakeProc::new("codex exec --json hi", "out.txt", "out.txt");
    assert_eq!(relay_target_in(p.root(), 100, Agent::Codex), None);
    // Text merged with stderr is what the person reads: relayed.
    let p = FakeProc::new("codex exec hi", "out.txt", "out.txt");
    assert_eq!(
        relay_target_in(p.root(), 100, Agent::Codex).unwrap().pid,
        40
    );
    // A socket cannot be opened through /proc.
    let p = FakeProc::new("codex exec hi", "out.txt", "hook.sock");
    assert_eq!(relay_target_in(p.root(), 100, Agent::Codex), None);
}

#[test]
fn a_hook_run_by_hand_relays_nothing() {
    let p = FakeProc::new("claude -p hi", "out.txt", "err.txt");
    // The hook's stdout is a file: no client reads it.
    p.process(100, 50, "loki seal stop", "err.txt", "err.txt");
    assert_eq!(relay_target_in(p.root(), 100, Agent::Claude), None);
    // No /proc at all.
    assert_eq!(
        relay_target_in(&p.root().join("none"), 100, Agent::Claude),
        None
    );
}
