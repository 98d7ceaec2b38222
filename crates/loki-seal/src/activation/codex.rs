//! Codex: whether the project's hooks load is not yet read (trust state, feature flags).

use std::path::Path;

use super::{Activation, Active, UserEnv};
use crate::Agent;

pub(super) fn activation(repo_root: &Path, _user: &UserEnv) -> Activation {
    Activation {
        agent: Agent::Codex,
        active: Active::Unknown,
        detail: format!(
            "{} registers the hooks; whether Codex loads them is not checked yet",
            crate::install::settings_path(repo_root, Agent::Codex).display()
        ),
        fix: None,
    }
}
