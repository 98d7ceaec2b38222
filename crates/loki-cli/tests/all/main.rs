//! End-to-end tests of the `loki` binary: real processes, real git repositories in temp dirs,
//! an isolated HOME. One test binary for the crate (link time on two cores).

#![expect(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods,
    clippy::type_complexity,
    reason = "tests fail loudly on broken fixtures and write fixture files directly (not loki state)"
)]

mod agents;
mod answer;
mod ask;
mod backlog;
mod browser;
mod build;
mod build_backends;
mod build_flags;
mod build_maven;
mod ci_judge;
mod ci_templates;
mod cli;
mod config;
mod contract;
mod deep;
mod demo;
mod doctor;
mod guide;
mod heal;
mod improve;
mod install;
mod intake;
mod intake_bad;
mod intake_pr;
mod interrupts;
mod json_contract;
mod judge;
mod mcp;
mod modelbox;
mod provider_failures;
mod runs;
mod seal;
mod seal_declare;
mod seal_worktree;
mod serve;
mod serve_ui;
mod signals;
mod slack;
mod verify;
mod visual;
mod workspace;
