//! Each guard of the cycle seen to block: the kill switch at every check point, a switch to manual
//! mid-cycle, the lock (a second cycle, a stale lock), the cooldown, every budget, Ctrl-C, and
//! the admission of protected cases.

use std::sync::atomic::Ordering;

use loki_improve::{CycleOptions, Mode, Outcome, Point};

use super::fixture::{FAST, Fx, GOOD, INSTRUCTIONS, SESSION_TOKENS, opts, propose};

/// Flips the kill switch (the stop file) when the cycle reaches `at`.
struct StopAt<'a>(&'a Fx, Point);

impl loki_improve::Hooks for StopAt<'_> {
    fn at(&self, point: Point) {
        if point == self.1 {
            std::fs::write(self.0.paths.stop_file(), "").unwrap();
        }
    }
}

#[test]
fn the_kill_switch_stops_the_cycle_at_every_check_point_and_nothing_is_applied() {
    let Some(fx) = Fx::new() else { return };
    fx.config(FAST);
    // Before anything: no lock, no work.
    std::fs::write(fx.paths.stop_file(), "").unwrap();
    let r = fx.cycle(Some(propose(GOOD)), &opts(Mode::Auto));
    assert_eq!(r.outcome, Outcome::Paused, "{}", r.reason);
    assert!(r.reason.contains("improve.stop"), "{}", r.reason);
    std::fs::remove_file(fx.paths.stop_file()).unwrap();
    // Flipped mid-cycle, it is seen at the next check point.
    for (at, before) in [
        (Point::Captured, "the editor"),
        (Point::Proposed, "the canary"),
        (Point::CanaryDone, "the write"),
    ] {
        let r = fx.cycle_with(
            Some(propose(GOOD)),
            &opts(Mode::Auto),
            &StopAt(&fx, at),
            loki_process::Cancel::new(),
        );
        assert_eq!(r.outcome, Outcome::Paused, "{at:?}: {}", r.reason);
        assert!(
            r.reason.contains(&format!("paused before {before}")),
            "{}",
            r.reason
        );
        assert_eq!(fx.instructions(), INSTRUCTIONS, "{at:?}");
        std::fs::remove_file(fx.paths.stop_file()).unwrap();
    }
    // `enabled = false` pauses too.
    fx.config(&format!("enabled = false\n{FAST}"));
    let r = fx.cycle(Some(propose(GOOD)), &opts(Mode::Auto));
    assert_eq!(r.outcome, Outcome::Paused, "{}", r.reason);
    assert!(r.reason.contains("enabled = false"), "{}", r.reason);
    assert!(!fx.audit_actions().contains(&"apply".to_string()));
}

#[test]
fn a_switch_to_manual_mid_cycle_queues_instead_of_applying() {
    struct ToManual<'a>(&'a Fx);
    impl loki_improve::Hooks for ToManual<'_> {
        fn at(&self, point: Point) {
            if point == Point::CanaryDone {
                self.0.config(&format!("mode = \"manual\"\n{FAST}"));
            }
        }
    }
    let Some(fx) = Fx::new() else { return };
    fx.config(&format!("mode = \"auto\"\n{FAST}"));
    let auto_from_config = CycleOptions {
        mode: None,
        ..opts(Mode::Auto)
    };
    let r = fx.cycle_with(
        Some(propose(GOOD)),
        &auto_from_config,
        &ToManual(&fx),
        loki_process::Cancel::new(),
    );
    assert_eq!(r.outcome, Outcome::Pending, "{}", r.reason);
    assert_eq!(fx.instructions(), INSTRUCTIONS);
}

#[test]
fn a_second_cycle_is_busy_while_one_holds_the_lock() {
    struct Wait(std::sync::Mutex<std::sync::mpsc::Receiver<()>>);
    impl loki_improve::Hooks for Wait {
        fn at(&self, point: Point) {
            if point == Point::Locked {
                self.0.lock().unwrap().recv().unwrap();
            }
        }
    }
    let Some(fx) = Fx::new() else { return };
    let (tx, rx) = std::sync::mpsc::channel();
    let hooks = Wait(std::sync::Mutex::new(rx));
    std::thread::scope(|s| {
        let first = s.spawn(|| {
            fx.cycle_with(
                Some(propose(INSTRUCTIONS)),
                &opts(Mode::Auto),
                &hooks,
                loki_process::Cancel::new(),
            )
        });
        // Wait until the first one holds the lock.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while std::fs::read_to_string(fx.paths.lock())
            .unwrap_or_default()
            .is_empty()
        {
            assert!(
                std::time::Instant::now() < deadline,
                "the first cycle never locked"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let second = fx.cycle(Some(propose(INSTRUCTIONS)), &opts(Mode::Auto));
        assert_eq!(second.outcome, Outcome::Busy, "{}", second.reason);
        assert!(second.reason.contains("pid"), "{}", second.reason);
        tx.send(()).unwrap();
        let first = first.join().unwrap();
        assert_eq!(first.outcome, Outcome::KeepBase, "{}", first.reason);
    });
}

#[test]
fn a_lock_left_by_a_dead_process_is_broken_and_audited() {
    let Some(fx) = Fx::new() else { return };
    std::fs::create_dir_all(&fx.paths.dir).unwrap();
    std::fs::write(
        fx.paths.lock(),
        r#"{"pid":4194303,"cycle":"cyc_dead","at":"2026-12-01T00:00:00.000Z"}"#,
    )
    .unwrap();
    let r = fx.cycle(Some(propose(INSTRUCTIONS)), &opts(Mode::Auto));
    assert_eq!(r.outcome, Outcome::KeepBase, "{}", r.reason);
    assert_eq!(fx.audit_actions(), ["lock-broken"]);
}

#[test]
fn daily_budgets_block_before_the_editor() {
    let Some(fx) = Fx::new() else { return };
    // Cycles per day count cycles that reached the editor.
    fx.config("max_cycles_per_day = 1\n");
    let r = fx.cycle(Some(propose(INSTRUCTIONS)), &opts(Mode::Auto));
    assert_eq!(r.outcome, Outcome::KeepBase, "{}", r.reason);
    let r = fx.cycle(Some(propose(INSTRUCTIONS)), &opts(Mode::Auto));
    assert_eq!(r.outcome, Outcome::BudgetExceeded, "{}", r.reason);
    assert!(r.reason.contains("max_cycles_per_day = 1"), "{}", r.reason);
    // Tokens per day: the first cycle's editor spent 150.
    fx.config("max_tokens_per_day = 150\n");
    let r = fx.cycle(Some(propose(INSTRUCTIONS)), &opts(Mode::Auto));
    assert_eq!(r.outcome, Outcome::BudgetExceeded, "{}", r.reason);
    assert!(
        r.reason.contains("max_tokens_per_day = 150"),
        "{}",
        r.reason
    );
}

#[test]
fn automatic_applies_per_day_are_capped() {
    let Some(fx) = Fx::new() else { return };
    fx.config(&format!("max_auto_applies_per_day = 1\n{FAST}"));
    let r = fx.cycle(Some(propose(GOOD)), &opts(Mode::Auto));
    assert_eq!(r.outcome, Outcome::Applied, "{}", r.reason);
    let r = fx.cycle(Some(propose(GOOD)), &opts(Mode::Auto));
    assert_eq!(r.outcome, Outcome::BudgetExceeded, "{}", r.reason);
    assert!(
        r.reason.contains("max_auto_applies_per_day = 1"),
        "{}",
        r.reason
    );
    // A manual cycle is not an automatic apply.
    let r = fx.cycle(Some(propose(GOOD)), &opts(Mode::Manual));
    assert_ne!(r.outcome, Outcome::BudgetExceeded, "{}", r.reason);
}

#[test]
fn the_cycle_cap_stops_the_canary_and_a_guard_it_cannot_pay_blocks_the_write() {
    let Some(fx) = Fx::new() else { return };
    fx.config(FAST);
    fx.protect_passing_run();
    // The editor's 150 tokens and one replay fit; the second replay does not.
    let r = fx.cycle(
        Some(propose(GOOD)),
        &CycleOptions {
            max_tokens: Some(150 + SESSION_TOKENS),
            ..opts(Mode::Auto)
        },
    );
    assert_eq!(r.outcome, Outcome::BudgetExceeded, "{}", r.reason);
    assert!(r.reason.contains("canary"), "{}", r.reason);
    assert_eq!(fx.instructions(), INSTRUCTIONS);
    // The canary's three replays fit, the guard's one more does not.
    let r = fx.cycle(
        Some(propose(GOOD)),
        &CycleOptions {
            max_tokens: Some(150 + 3 * SESSION_TOKENS + 10),
            ..opts(Mode::Auto)
        },
    );
    assert_eq!(r.outcome, Outcome::BudgetExceeded, "{}", r.reason);
    assert!(r.reason.contains("the guard would need"), "{}", r.reason);
    assert_eq!(fx.instructions(), INSTRUCTIONS);
    assert!(!fx.audit_actions().contains(&"apply".to_string()));
}

#[test]
fn ctrl_c_stops_between_steps_as_interrupted() {
    struct CancelAt(loki_process::Cancel);
    impl loki_improve::Hooks for CancelAt {
        fn at(&self, point: Point) {
            if point == Point::Proposed {
                self.0.cancel();
            }
        }
    }
    let Some(fx) = Fx::new() else { return };
    let cancel = loki_process::Cancel::new();
    let r = fx.cycle_with(
        Some(propose(GOOD)),
        &opts(Mode::Auto),
        &CancelAt(cancel.clone()),
        cancel,
    );
    assert_eq!(r.outcome, Outcome::Interrupted, "{}", r.reason);
    assert!(r.reason.contains("before the canary"), "{}", r.reason);
    assert_eq!(fx.instructions(), INSTRUCTIONS);
}

#[test]
fn protect_admits_a_run_that_passes_six_of_six_and_refuses_one_that_does_not() {
    let Some(fx) = Fx::new() else { return };
    fx.config(FAST);
    let keep = propose(INSTRUCTIONS);
    let r = fx.cycle(
        Some(keep.clone()),
        &CycleOptions {
            protect: vec![fx.passed.clone()],
            ..opts(Mode::Auto)
        },
    );
    assert_eq!(r.outcome, Outcome::KeepBase, "{}", r.reason);
    assert_eq!(r.protected, std::slice::from_ref(&fx.passed));
    assert_eq!(r.tokens, 150 + 6 * SESSION_TOKENS);
    assert_eq!(fx.audit_actions(), ["protect"]);
    // A run that fails its replays is refused and audited.
    std::fs::remove_dir_all(fx.paths.corpus()).unwrap();
    fx.broken.store(true, Ordering::SeqCst);
    let r = fx.cycle(
        Some(keep),
        &CycleOptions {
            protect: vec![fx.passed.clone()],
            ..opts(Mode::Auto)
        },
    );
    assert!(r.protected.is_empty());
    assert_eq!(fx.audit_actions(), ["protect", "protect-refused"]);
    // A failed run cannot be protected at all.
    let e = loki_improve::cases::passing_run(&fx.repo, &fx.failed[0])
        .unwrap_err()
        .to_string();
    assert!(e.contains("only a run that passed"), "{e}");
}
