//! codex: the real program, pinned in `.ci/agents.pins`, against the fake model server.
