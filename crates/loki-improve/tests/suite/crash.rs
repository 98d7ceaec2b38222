//! Crash safety: a cycle killed at each step (the child process aborts: no destructor, no
//! cleanup, like `kill -9`), then a new cycle. The killed cycle's record says `interrupted`, its
//! lock is broken and audited, nothing half-applied stays, and an apply it left unguarded is
//! guarded by the next cycle before anything else.

use loki_improve::{Mode, Outcome, Point};

use super::fixture::{FAST, Fx, GOOD, INSTRUCTIONS, opts, propose};

const POINTS: &[(&str, Point)] = &[
    ("locked", Point::Locked),
    ("captured", Point::Captured),
    ("proposed", Point::Proposed),
    ("canary", Point::CanaryDone),
    ("applying", Point::Applying),
    ("applied", Point::Applied),
];

struct AbortAt(Point);

impl loki_improve::Hooks for AbortAt {
    fn at(&self, point: Point) {
        if point == self.0 {
            std::process::abort();
        }
    }
}

/// The child: runs one cycle on the fixture named by `LOKI_IMPROVE_ABORT_AT=<point>:<dir>` and
/// aborts at that point. Without the variable it does nothing (it is not a test of its own).
#[test]
fn child_cycle_that_aborts() {
    let Some(spec) = loki_core::env::IMPROVE_ABORT_AT.get() else {
        return;
    };
    let (name, dir) = spec.split_once(':').unwrap();
    let point = POINTS.iter().find(|(n, _)| *n == name).unwrap().1;
    let fx = Fx::open(std::path::Path::new(dir));
    fx.cycle_with(
        Some(propose(GOOD)),
        &opts(Mode::Auto),
        &AbortAt(point),
        loki_process::Cancel::new(),
    );
    panic!("the cycle ended without reaching {name}");
}

/// Kills a cycle at `name` in a child process.
fn kill_at(fx: &Fx, name: &str) {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "suite::crash::child_cycle_that_aborts",
            "--nocapture",
        ])
        .env(
            loki_core::env::IMPROVE_ABORT_AT.name,
            format!("{name}:{}", fx.root.display()),
        )
        .output()
        .unwrap();
    assert!(!out.status.success(), "{name}: the child did not die");
}

/// Killed while writing: a write that landed whole is guarded; a partial one is undone.
#[test]
fn a_cycle_killed_mid_write_is_finished_or_undone_by_the_next() {
    for (landed, expect) in [(GOOD, GOOD), ("half of a write\n", INSTRUCTIONS)] {
        let Some(fx) = Fx::new() else { return };
        fx.config(FAST);
        fx.protect_passing_run();
        kill_at(&fx, "applying");
        fx.set_instructions(landed);
        fx.cycle(Some(propose(INSTRUCTIONS)), &opts(Mode::Auto));
        assert_eq!(fx.instructions(), expect);
        let actions = fx.audit_actions();
        let settled = if landed == GOOD {
            "guard-pass"
        } else {
            "recover"
        };
        assert!(actions.contains(&settled.to_string()), "{actions:?}");
        let records = loki_improve::cycles::list(&fx.paths).unwrap();
        assert_eq!(records[0].step, "recovered");
    }
}

#[test]
fn a_cycle_killed_at_any_step_is_interrupted_and_the_next_cycle_recovers() {
    for (name, _) in POINTS.iter().filter(|(n, _)| *n != "applying") {
        let Some(fx) = Fx::new() else { return };
        fx.config(FAST);
        fx.protect_passing_run();
        kill_at(&fx, name);
        let records = loki_improve::cycles::list(&fx.paths).unwrap();
        let killed = records.last().unwrap().clone();
        assert_eq!(killed.outcome, Outcome::Interrupted, "{name}");
        assert!(killed.ended_at.is_none(), "{name}");
        // The next cycle takes the lock the dead one left, and ends normally.
        let next = fx.cycle(Some(propose(INSTRUCTIONS)), &opts(Mode::Auto));
        let actions = fx.audit_actions();
        assert!(
            actions.contains(&"lock-broken".to_string()),
            "{name}: {actions:?}"
        );
        if *name == "applied" {
            // Killed between its apply and its guard: guarded now, first.
            assert_eq!(fx.instructions(), GOOD);
            assert!(
                actions.ends_with(&["lock-broken".to_string(), "guard-pass".to_string()]),
                "{actions:?}"
            );
            let again = loki_improve::cycles::list(&fx.paths).unwrap();
            let guarded = again.iter().find(|r| r.id == killed.id).unwrap();
            assert_eq!(guarded.guarded, Some(true));
            assert!(guarded.guard.as_ref().unwrap().passed);
            // Its failures were under the old revision.
            assert_eq!(next.outcome, Outcome::NoFailures, "{}", next.reason);
        } else {
            assert_eq!(fx.instructions(), INSTRUCTIONS, "{name}: half-applied");
            assert_eq!(next.outcome, Outcome::KeepBase, "{name}: {}", next.reason);
        }
    }
}
