//! CLI providers (claude, aider, opencode): build runs through the real program, pinned in `.ci/agents.pins`, against the fake model servers.
