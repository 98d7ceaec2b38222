//! The Landlock rules of a [`Policy`] ([`rules`]: denied paths carved out) and the restriction
//! of the calling process ([`restrict_self`]).

use std::path::{Path, PathBuf};

use landlock::{
    ABI, Access, AccessFs, AccessNet, BitFlags, PathBeneath, PathFd, Ruleset, RulesetAttr,
    RulesetCreatedAttr, RulesetStatus,
};

use super::{
    ConfineError, Enforcement, Grant, Network, NetworkMechanism, Policy, Rule, TARGET_ABI, support,
};

/// The rules that implement `policy` (see the module doc). Paths are made absolute and
/// canonical; ones that do not exist are skipped.
#[must_use]
pub fn rules(policy: &Policy) -> Vec<Rule> {
    let deny: Vec<PathBuf> = policy
        .deny
        .iter()
        .chain(&policy.masked)
        .filter_map(|p| p.canonicalize().ok())
        .collect();
    // Write rules stop at denied and read-only paths alike.
    let mut stop = deny.clone();
    stop.extend(
        policy
            .read_only
            .iter()
            .chain(&policy.pinned)
            .filter_map(|p| p.canonicalize().ok()),
    );
    let mut out = Vec::new();
    carve(Path::new("/"), &deny, Grant::Read, &mut out);
    for w in &policy.write {
        let Ok(w) = w.canonicalize() else { continue };
        // A write path inside a denied one would reopen it; one around a denied or read-only
        // path (a temporary directory holding loki's home or a checkout) is carved like `/`.
        if !deny.iter().any(|d| w.starts_with(d)) {
            carve(&w, &stop, Grant::Write, &mut out);
        }
    }
    out.extend(
        policy
            .list
            .iter()
            .filter_map(|p| p.canonicalize().ok())
            .map(|path| Rule {
                path,
                grant: Grant::List,
            }),
    );
    out
}

/// Rules (`grant`) for everything under `dir` except the denied paths.
fn carve(dir: &Path, deny: &[PathBuf], grant: Grant, out: &mut Vec<Rule>) {
    if deny.iter().any(|d| d == dir) {
        return;
    }
    if !deny.iter().any(|d| d.starts_with(dir)) {
        out.push(Rule {
            path: dir.to_path_buf(),
            grant,
        });
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut children: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    children.sort();
    for child in children {
        let Ok(meta) = std::fs::symlink_metadata(&child) else {
            continue;
        };
        // A rule on a symlink would grant its target (the rule's descriptor follows it), which
        // may be a denied path (`~/keys -> ~/.loki/keys`): a link gets no rule of its own, and
        // what it points to is reachable only where its real place is.
        if meta.file_type().is_symlink() {
            continue;
        }
        if meta.is_dir() {
            carve(&child, deny, grant, out);
        } else if !deny.contains(&child) {
            out.push(Rule { path: child, grant });
        }
    }
}

/// Confines the calling process (and everything it starts afterwards) to `policy`. Call it in a
/// process about to `exec`; it cannot be undone.
pub fn restrict_self(policy: &Policy) -> Result<Enforcement, ConfineError> {
    restrict_self_with(policy, rules(policy))
}

/// [`restrict_self`] with the rules computed beforehand ([`rules`]). Stacking layers needs it:
/// once the first layer is enforced, the walk of the next one may no longer list the
/// directories it has to carve, so every layer's rules are computed before any is enforced.
pub fn restrict_self_with(policy: &Policy, rules: Vec<Rule>) -> Result<Enforcement, ConfineError> {
    let err = |e: landlock::RulesetError| ConfineError::Ruleset(e.to_string());
    let all = AccessFs::from_all(TARGET_ABI);
    let read = AccessFs::from_read(TARGET_ABI);
    let mut base = Ruleset::default().handle_access(all).map_err(err)?;
    let tcp_rules =
        policy.network == Network::Denied && support().network() == NetworkMechanism::LandlockTcp;
    if tcp_rules {
        // Handled with no rule but the egress ports': every other TCP connect and bind is
        // refused.
        base = base
            .handle_access(AccessNet::from_all(ABI::V4))
            .map_err(err)?;
    }
    let mut ruleset = base.create().map_err(err)?;
    if tcp_rules {
        for port in &policy.egress_ports {
            ruleset = ruleset
                .add_rule(landlock::NetPort::new(*port, AccessNet::ConnectTcp))
                .map_err(err)?;
        }
    }
    for rule in rules {
        // Gone since the walk (a temporary file): nothing to grant.
        let Ok(fd) = PathFd::new(&rule.path) else {
            continue;
        };
        let is_dir = std::fs::metadata(&rule.path).is_ok_and(|m| m.is_dir());
        let mut access: BitFlags<AccessFs> = match rule.grant {
            Grant::Write => all,
            Grant::Read => read,
            Grant::List => AccessFs::ReadDir.into(),
        };
        if !is_dir {
            // Directory rights on a file are refused by the kernel.
            access &= AccessFs::from_file(TARGET_ABI);
        }
        if access.is_empty() {
            // A list-only rule on a file grants nothing.
            continue;
        }
        ruleset = ruleset
            .add_rule(PathBeneath::new(fd, access))
            .map_err(err)?;
    }
    let status = ruleset.restrict_self().map_err(err)?;
    Ok(match status.ruleset {
        RulesetStatus::FullyEnforced => Enforcement::Full,
        RulesetStatus::PartiallyEnforced => Enforcement::Partial,
        RulesetStatus::NotEnforced => Enforcement::NotEnforced,
    })
}
