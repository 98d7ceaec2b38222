//! claude loads the repository's hook settings as they are: registered is active.

use std::path::Path;

use super::{Activation, Active, UserEnv};
use crate::Agent;

pub(super) fn activation(repo_root: &Path, _user: &UserEnv) -> Activation {
    Activation {
        agent: Agent::Claude,
        active: Active::Yes,
        detail: format!(
            "{} registers the hooks",
            crate::install::settings_path(repo_root, Agent::Claude).display()
        ),
        fix: None,
    }
}
