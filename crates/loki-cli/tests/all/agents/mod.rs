//! The conformance suite: the real agent programs pinned in `.ci/agents.pins` (installed by
//! `scripts/install-agents` into `$LOKI_AGENTS`), each driven offline against loki-test-support's
//! fake model servers, with loki's hooks or loki's CLI provider in the loop.
//!
//! Per seal agent: install → a cheat session is blocked and the reason reaches the model → a
//! resumed session keeps its baseline → a release is visible → an honest session is VERIFIED.
//! Per CLI provider: a build run VERIFIED through the real client, and a cap that kills it.
//! `scripts/update-agents` moves the pins to the newest releases and re-runs this suite; the
//! weekly workflow `.github/workflows/update-agents.yml` runs it and opens a pull request with the
//! moves and the result, so a client's protocol change is a red test here, not a user's bug report.
//!
//! Cursor's CLI agent (`cursor-agent`) is not in the suite: Cursor ships it only from
//! `cursor.com/install` (not reachable here), and the npm package of that name is an unrelated
//! project. The Cursor hook protocol is pinned by `loki_seal::hook`'s unit tests alone.

mod caps;
mod claude;
mod claude_lineage;
mod codex;
mod gemini;
mod providers;
mod tui;
mod workdir;
