//! The official MCP Inspector in CLI mode (`mcp-inspector --cli`, npm
//! `@modelcontextprotocol/inspector`) against `loki mcp` over stdio.

use std::path::Path;
use std::process::Output;

use loki_test_support::Sandbox;
use serde_json::Value;

use super::{TOOLS, bug_repo, loki, path_str};

/// The Inspector's exit status when the tool answered `isError: true`.
const TOOL_IS_ERROR: i32 = 5;

/// `mcp-inspector --cli <target…> <args…>` in `cwd` with the sandbox's environment.
pub fn inspector(exe: &Path, sb: &Sandbox, cwd: &Path, target: &[&str], args: &[&str]) -> Output {
    let mut cmd = std::process::Command::new(exe);
    sb.apply(&mut cmd);
    cmd.current_dir(cwd).arg("--cli").args(target).args(args);
    cmd.output().unwrap()
}

pub fn stdout_json(out: &Output) -> Value {
    let text = String::from_utf8_lossy(&out.stdout);
    let parsed = serde_json::from_str(&text);
    assert!(
        parsed.is_ok(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    parsed.unwrap()
}

#[test]
fn the_inspector_lists_the_tools_with_portable_schemas_and_calls_them() {
    let Some(exe) = loki_test_support::require_mcp_inspector("mcp-inspector") else {
        return;
    };
    let sb = Sandbox::new();
    let repo = bug_repo();
    let here = path_str(repo.path());
    let loki = loki();
    let target = [loki.to_str().unwrap(), "mcp"];

    // `--strict` reports every schema portability problem and fails on an error-severity one.
    let listed = inspector(
        &exe,
        &sb,
        repo.path(),
        &target,
        &["--method", "tools/list", "--strict"],
    );
    assert!(listed.status.success(), "{listed:?}");
    assert_eq!(
        String::from_utf8_lossy(&listed.stderr).trim(),
        "",
        "{listed:?}"
    );
    let tools = stdout_json(&listed);
    let names: Vec<&str> = tools["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, TOOLS);

    let repo_arg = format!("repo={here}");
    let called = inspector(
        &exe,
        &sb,
        repo.path(),
        &target,
        &[
            "--method",
            "tools/call",
            "--tool-name",
            "loki_runs",
            "--tool-arg",
            &repo_arg,
            "limit=3",
        ],
    );
    assert!(called.status.success(), "{called:?}");
    let answer = stdout_json(&called);
    assert_eq!(answer["structuredContent"]["total"], 0, "{answer:#}");

    let refused = inspector(
        &exe,
        &sb,
        repo.path(),
        &target,
        &[
            "--method",
            "tools/call",
            "--tool-name",
            "loki_status",
            "--tool-arg",
            &repo_arg,
            "run=--help",
        ],
    );
    assert_eq!(refused.status.code(), Some(TOOL_IS_ERROR), "{refused:?}");
    let answer = stdout_json(&refused);
    assert_eq!(answer["isError"], true);
    assert!(
        answer["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("invalid `run`: `--help` starts with `-`"),
        "{answer:#}"
    );

    let templates = inspector(
        &exe,
        &sb,
        repo.path(),
        &target,
        &["--method", "resources/templates/list"],
    );
    assert!(templates.status.success(), "{templates:?}");
    assert_eq!(
        stdout_json(&templates)["resourceTemplates"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
}
