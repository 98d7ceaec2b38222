//! Every outcome of a cycle, each reached through the real mechanism: real builds replayed by the
//! engine, a scripted editor, the files and records on disk.

use loki_improve::{CycleOptions, Mode, Outcome, Point, Trigger};

use super::fixture::{
    FAST, Fx, GOOD, HARMFUL, INSTRUCTIONS, USELESS, changed_outside, opts, propose,
};

/// The paths a cycle may write.
const ALLOWED: &[&str] = &[
    ".loki/improve/",
    ".loki/agent/instructions.md",
    ".loki/agent/skills/",
];

#[test]
fn auto_applies_a_proven_edit_guards_it_audits_it_and_seals_a_receipt() {
    let Some(fx) = Fx::new() else { return };
    fx.config(FAST);
    fx.protect_passing_run();
    let before = fx.tree();
    let r = fx.cycle(Some(propose(GOOD)), &opts(Mode::Auto));
    assert_eq!(r.outcome, Outcome::Applied, "{}", r.reason);
    assert_eq!(fx.instructions(), GOOD);
    let canary = r.canary.as_ref().unwrap();
    assert_eq!(
        (canary.baseline[0].passed, canary.candidate[0].passed),
        (0, 1)
    );
    assert_eq!(canary.protected[0].passed, 1);
    assert!(r.guard.as_ref().unwrap().passed);
    assert_eq!(fx.audit_actions(), ["canary-end", "apply", "guard-pass"]);
    assert!(matches!(
        loki_improve::audit::verify(&fx.paths.audit()).unwrap(),
        loki_improve::audit::Verdict::Intact { count: 3, .. }
    ));
    // Tokens: the editor's 150, four replays (baseline, candidate, protected, guard) of one
    // implementing session each.
    assert_eq!(r.tokens, 150 + 4 * super::fixture::SESSION_TOKENS);
    // The receipt is signed and its facts are the canary and the guard.
    let receipt = std::path::PathBuf::from(r.receipt.as_deref().unwrap());
    assert!(
        receipt.starts_with(fx.paths.runs()),
        "{}",
        receipt.display()
    );
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&receipt).unwrap()).unwrap();
    assert_eq!(json["kind"], "improve");
    assert_eq!(json["verdict"], "VERIFIED", "{json:#}");
    assert_eq!(json["agent_revision"], r.applied_revision.clone().unwrap());
    let names: Vec<&str> = json["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "canary: failed runs",
            "canary: protected",
            "guard: protected"
        ]
    );
    // Nothing outside the instructions and .loki/improve was written.
    let after = fx.tree();
    assert_eq!(
        changed_outside(&before, &after, ALLOWED),
        Vec::<String>::new()
    );
    // The old revision is kept byte for byte: a rollback restores it.
    let change = loki_improve::ops::rollback(&fx.paths, None).unwrap();
    assert!(
        matches!(change, loki_improve::ops::Change::Applied { .. }),
        "{change:?}"
    );
    assert_eq!(fx.instructions(), INSTRUCTIONS);
}

#[test]
fn manual_mode_queues_and_approve_applies_or_refuses_when_stale() {
    let Some(fx) = Fx::new() else { return };
    fx.config(FAST);
    let r = fx.cycle(Some(propose(GOOD)), &opts(Mode::Manual));
    assert_eq!(r.outcome, Outcome::Pending, "{}", r.reason);
    assert_eq!(
        fx.instructions(),
        INSTRUCTIONS,
        "manual mode writes nothing"
    );
    let id = r.pending.clone().unwrap();
    let pending = loki_improve::proposal::list_pending(&fx.paths).unwrap();
    assert_eq!(pending.len(), 1);
    // A hand edit since the proposal: approving is refused as stale and writes nothing.
    fx.set_instructions("Edited by hand.\n");
    let stale = loki_improve::ops::approve(&fx.paths, &id).unwrap();
    assert!(
        matches!(stale, loki_improve::ops::Change::Stale { .. }),
        "{stale:?}"
    );
    assert_eq!(fx.instructions(), "Edited by hand.\n");
    fx.set_instructions(INSTRUCTIONS);
    let done = loki_improve::ops::approve(&fx.paths, &id).unwrap();
    assert!(
        matches!(done, loki_improve::ops::Change::Applied { .. }),
        "{done:?}"
    );
    assert_eq!(fx.instructions(), GOOD);
    assert!(
        loki_improve::proposal::list_pending(&fx.paths)
            .unwrap()
            .is_empty()
    );
    let actions = fx.audit_actions();
    assert_eq!(actions, ["canary-end", "pending", "stale", "apply"]);
    let e = loki_improve::ops::approve(&fx.paths, &id)
        .unwrap_err()
        .to_string();
    assert!(e.contains("no pending proposal"), "{e}");
}

#[test]
fn a_canary_that_sees_no_improvement_applies_nothing_and_reflects() {
    let Some(fx) = Fx::new() else { return };
    fx.config(FAST);
    let before = fx.tree();
    let r = fx.cycle(Some(propose(USELESS)), &opts(Mode::Auto));
    assert_eq!(r.outcome, Outcome::CanaryFailed, "{}", r.reason);
    assert!(r.reason.contains("no improvement"), "{}", r.reason);
    assert_eq!(fx.instructions(), INSTRUCTIONS);
    assert_eq!(fx.audit_actions(), ["canary-end", "reflect"]);
    assert!(r.reflection.is_some());
    assert_eq!(
        changed_outside(&before, &fx.tree(), &[".loki/improve/"]),
        Vec::<String>::new()
    );
}

#[test]
fn a_protected_case_that_would_regress_fails_the_canary() {
    let Some(fx) = Fx::new() else { return };
    fx.config(FAST);
    fx.protect_passing_run();
    let r = fx.cycle(Some(propose(HARMFUL)), &opts(Mode::Auto));
    assert_eq!(r.outcome, Outcome::CanaryFailed, "{}", r.reason);
    assert!(
        r.reason.contains("protected case(s) regressed"),
        "{}",
        r.reason
    );
    assert_eq!(fx.instructions(), INSTRUCTIONS);
}

/// A guard regression the canary did not see (the agent turned on it after the apply) rolls the
/// edit back to the cycle's own parent, audits it, and starts the cooldown.
#[test]
fn a_guard_regression_rolls_back_to_the_parent_then_cools_down() {
    struct Turn<'a>(&'a Fx);
    impl loki_improve::Hooks for Turn<'_> {
        fn at(&self, point: Point) {
            if point == Point::Applied {
                self.0
                    .broken
                    .store(true, std::sync::atomic::Ordering::SeqCst);
            }
        }
    }
    let Some(fx) = Fx::new() else { return };
    fx.config(FAST);
    fx.protect_passing_run();
    let r = fx.cycle_with(
        Some(propose(GOOD)),
        &opts(Mode::Auto),
        &Turn(&fx),
        loki_process::Cancel::new(),
    );
    assert_eq!(r.outcome, Outcome::RolledBack, "{}", r.reason);
    assert_eq!(fx.instructions(), INSTRUCTIONS);
    assert_eq!(
        fx.audit_actions(),
        ["canary-end", "apply", "guard-fail", "rollback", "reflect"]
    );
    let next = fx.cycle(Some(propose(GOOD)), &opts(Mode::Auto));
    assert_eq!(next.outcome, Outcome::Cooldown, "{}", next.reason);
}

#[test]
fn a_rollback_that_cannot_be_done_keeps_the_edit_and_says_so() {
    struct EditThenBreak<'a>(&'a Fx);
    impl loki_improve::Hooks for EditThenBreak<'_> {
        fn at(&self, point: Point) {
            if point == Point::Applied {
                self.0
                    .broken
                    .store(true, std::sync::atomic::Ordering::SeqCst);
                self.0
                    .set_instructions("A person's edit during the guard.\n");
            }
        }
    }
    let Some(fx) = Fx::new() else { return };
    fx.config(FAST);
    fx.protect_passing_run();
    let r = fx.cycle_with(
        Some(propose(GOOD)),
        &opts(Mode::Auto),
        &EditThenBreak(&fx),
        loki_process::Cancel::new(),
    );
    assert_eq!(r.outcome, Outcome::Applied, "{}", r.reason);
    assert!(r.reason.contains("rollback was refused"), "{}", r.reason);
    assert_eq!(fx.instructions(), "A person's edit during the guard.\n");
    assert!(fx.audit_actions().contains(&"rollback-refused".to_string()));
}

#[test]
fn a_hand_edit_during_the_cycle_makes_it_stale_without_a_reflection() {
    struct HandEdit<'a>(&'a Fx);
    impl loki_improve::Hooks for HandEdit<'_> {
        fn at(&self, point: Point) {
            if point == Point::BeforeWrite {
                self.0.set_instructions("Mine.\n");
            }
        }
    }
    let Some(fx) = Fx::new() else { return };
    fx.config(FAST);
    let r = fx.cycle_with(
        Some(propose(GOOD)),
        &opts(Mode::Auto),
        &HandEdit(&fx),
        loki_process::Cancel::new(),
    );
    assert_eq!(r.outcome, Outcome::Stale, "{}", r.reason);
    assert_eq!(fx.instructions(), "Mine.\n");
    assert_eq!(fx.audit_actions(), ["canary-end", "stale"]);
}

#[test]
fn an_apply_through_a_symlink_is_refused_and_writes_nothing_outside() {
    struct Plant<'a>(&'a Fx, std::path::PathBuf);
    impl loki_improve::Hooks for Plant<'_> {
        fn at(&self, point: Point) {
            if point == Point::BeforeWrite {
                let skills = self.0.paths.agent().join("skills");
                std::fs::create_dir_all(&skills).unwrap();
                std::os::unix::fs::symlink(&self.1, skills.join("evil")).unwrap();
            }
        }
    }
    let Some(fx) = Fx::new() else { return };
    fx.config(FAST);
    let outside = tempfile::tempdir().unwrap();
    let r = fx.cycle_with(
        Some(propose(GOOD)),
        &opts(Mode::Auto),
        &Plant(&fx, outside.path().to_path_buf()),
        loki_process::Cancel::new(),
    );
    assert_eq!(r.outcome, Outcome::Refused, "{}", r.reason);
    assert!(r.reason.contains("symlink"), "{}", r.reason);
    assert_eq!(fx.instructions(), INSTRUCTIONS);
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
}

#[test]
fn the_editor_keeping_the_base_is_keep_base() {
    let Some(fx) = Fx::new() else { return };
    let r = fx.cycle(Some(propose(INSTRUCTIONS)), &opts(Mode::Auto));
    assert_eq!(r.outcome, Outcome::KeepBase, "{}", r.reason);
    let none = serde_json::json!({"tool_calls": [{"name": "propose", "arguments": {"files": [], "rationale": "fine as is"}}]});
    let r = fx.cycle(Some(none), &opts(Mode::Auto));
    assert_eq!(r.outcome, Outcome::KeepBase, "{}", r.reason);
    assert!(fx.audit_actions().is_empty());
}

#[test]
fn the_gate_rejects_bad_paths_bad_skills_oversize_and_repeats_with_a_reflection() {
    let Some(fx) = Fx::new() else { return };
    fx.config(&format!("max_cycles_per_day = 20\n{FAST}"));
    let bad = |files: serde_json::Value| serde_json::json!({"tool_calls": [{"name": "propose", "arguments": {"files": files, "rationale": "r"}}]});
    for (files, why) in [
        (
            serde_json::json!([{"path": "../../evil.md", "content": "x"}]),
            "not an editable file",
        ),
        (
            serde_json::json!([{"path": ".loki/runs/x", "content": "x"}]),
            "not an editable file",
        ),
        (
            serde_json::json!([{"path": "skills/a/SKILL.md", "content": "no frontmatter"}]),
            "frontmatter",
        ),
        (
            serde_json::json!([{"path": "instructions.md", "content": "x".repeat(40_001)}]),
            "max_always_on_chars",
        ),
    ] {
        let r = fx.cycle(Some(bad(files)), &opts(Mode::Auto));
        assert_eq!(r.outcome, Outcome::Rejected, "{}", r.reason);
        assert!(r.reason.contains(why), "{why}: {}", r.reason);
    }
    // Not a proposal at all.
    let text = serde_json::json!({"text": "I think the instructions are fine."});
    let r = fx.cycle(Some(text), &opts(Mode::Auto));
    assert_eq!(r.outcome, Outcome::Rejected, "{}", r.reason);
    let actions = fx.audit_actions();
    assert_eq!(actions.iter().filter(|a| *a == "reject").count(), 5);
    assert_eq!(actions.iter().filter(|a| *a == "reflect").count(), 5);
    assert_eq!(fx.instructions(), INSTRUCTIONS);
    // A revision that failed once is not retried by proposing it again: no replays are spent.
    let once = fx.cycle(Some(propose(USELESS)), &opts(Mode::Auto));
    assert_eq!(once.outcome, Outcome::CanaryFailed, "{}", once.reason);
    let again = fx.cycle(Some(propose(USELESS)), &opts(Mode::Auto));
    assert_eq!(again.outcome, Outcome::Rejected, "{}", again.reason);
    assert!(again.reason.contains("already failed"), "{}", again.reason);
    assert_eq!(again.tokens, 150 + 15, "the editor and the reflection only");
}

#[test]
fn an_editor_that_fails_or_hangs_is_an_outage() {
    let Some(fx) = Fx::new() else { return };
    // The editor's model cannot be built.
    let r = fx.cycle(None, &opts(Mode::Auto));
    assert_eq!(r.outcome, Outcome::Outage, "{}", r.reason);
    assert!(r.reason.starts_with("editor: no model"), "{}", r.reason);
    // A model that never answers: the wall timeout ends it.
    #[derive(Debug)]
    struct Silent;
    impl loki_agent::Provider for Silent {
        fn name(&self) -> &'static str {
            "silent"
        }
        fn model(&self) -> &str {
            "silent"
        }
        fn complete<'a>(
            &'a self,
            _req: &'a loki_agent::Request,
        ) -> loki_agent::BoxFuture<'a, Result<loki_agent::Response, loki_agent::AgentError>>
        {
            Box::pin(std::future::pending())
        }
    }
    fx.config("editor_timeout_s = 1\n");
    let editor = || -> Result<loki_agent::Backend, String> {
        Ok(loki_agent::Backend::Loop(Box::new(Silent)))
    };
    let replay = |_t: loki_engine::TaskInput| -> Result<loki_engine::BuildOptions, String> {
        Err("no replay expected".into())
    };
    let rt = loki_improve::Runtime {
        repo: fx.repo.clone(),
        home: fx.home.clone(),
        key_env: loki_receipt::KeyEnv::from_lookup(|_| None),
        editor: &editor,
        provider: "openai".into(),
        replay: &replay,
        cancel: loki_process::Cancel::new(),
        hooks: &loki_improve::NoHooks,
        confine_exe: None,
    };
    let started = std::time::Instant::now();
    let r = loki_improve::heal_once(&rt, &opts(Mode::Auto)).unwrap();
    assert_eq!(r.outcome, Outcome::Outage, "{}", r.reason);
    assert!(r.reason.contains("longer than 1s"), "{}", r.reason);
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
}

#[test]
fn detect_is_idle_below_the_minimum_and_learns_only_new_failures_of_this_revision() {
    let Some(fx) = Fx::new() else { return };
    let failures = CycleOptions {
        trigger: Trigger::Failures,
        mode: Some(Mode::Auto),
        ..CycleOptions::default()
    };
    // Two failed runs, three needed.
    let r = fx.cycle(Some(propose(INSTRUCTIONS)), &failures);
    assert_eq!(r.outcome, Outcome::Idle, "{}", r.reason);
    assert!(
        r.reason.contains("below min_new_failures = 3"),
        "{}",
        r.reason
    );
    fx.config("min_new_failures = 2\n");
    let r = fx.cycle(Some(propose(INSTRUCTIONS)), &failures);
    assert_eq!(r.outcome, Outcome::KeepBase, "{}", r.reason);
    assert_eq!(r.training.len(), 1, "one case per recurring group");
    // The same failures are not new to the next cycle.
    let r = fx.cycle(Some(propose(INSTRUCTIONS)), &failures);
    assert_eq!(r.outcome, Outcome::NoFailures, "{}", r.reason);
    assert!(r.reason.contains("since the last cycle"), "{}", r.reason);
    // Failures under another revision are not this revision's to learn from.
    fx.set_instructions("Different.\n");
    let r = fx.cycle(Some(propose(INSTRUCTIONS)), &opts(Mode::Auto));
    assert_eq!(r.outcome, Outcome::NoFailures, "{}", r.reason);
}

#[test]
fn only_recurring_failures_are_learnt_from_unless_the_trigger_is_score() {
    let Some(fx) = Fx::new() else { return };
    // One of the two failed runs is gone: nothing recurs.
    std::fs::remove_dir_all(fx.repo.runs_dir().join(&fx.failed[0])).unwrap();
    let r = fx.cycle(Some(propose(INSTRUCTIONS)), &opts(Mode::Auto));
    assert_eq!(r.outcome, Outcome::NoFailures, "{}", r.reason);
    assert!(r.reason.contains("no failure recurs"), "{}", r.reason);
    let score = CycleOptions {
        trigger: Trigger::Score,
        mode: Some(Mode::Auto),
        ..CycleOptions::default()
    };
    let r = fx.cycle(Some(propose(INSTRUCTIONS)), &score);
    assert_eq!(r.outcome, Outcome::KeepBase, "{}", r.reason);
    assert_eq!(r.training, [fx.failed[1].clone()]);
}

#[test]
fn dry_run_prints_the_card_and_writes_nothing() {
    let Some(fx) = Fx::new() else { return };
    let before = fx.tree();
    let r = fx.cycle(
        Some(propose(GOOD)),
        &CycleOptions {
            dry_run: true,
            ..opts(Mode::Auto)
        },
    );
    assert_eq!(r.outcome, Outcome::Idle, "{}", r.reason);
    assert!(r.reason.starts_with("dry run"), "{}", r.reason);
    assert_eq!(r.training.len(), 1);
    assert_eq!(
        changed_outside(&before, &fx.tree(), &[]),
        Vec::<String>::new()
    );
    assert!(!fx.paths.dir.exists());
}

#[test]
fn every_outcome_has_its_name() {
    let names: Vec<&str> = Outcome::ALL.iter().map(|o| o.as_str()).collect();
    assert_eq!(
        names,
        [
            "applied",
            "pending",
            "rejected",
            "canary-failed",
            "rolled-back",
            "stale",
            "refused",
            "budget-exceeded",
            "cooldown",
            "busy",
            "paused",
            "idle",
            "no-failures",
            "outage",
            "interrupted",
            "keep-base"
        ]
    );
    for o in Outcome::ALL {
        let json = serde_json::to_string(&o).unwrap();
        assert_eq!(json, format!("\"{}\"", o.as_str()));
    }
}
