//! `loki mcp --http PORT`: Streamable HTTP on loopback, driven by the Python SDK and the
//! Inspector, and refusing a request whose `Host` is not a loopback name.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Stdio};

use loki_test_support::Sandbox;
use serde_json::json;

use super::inspector::{inspector, stdout_json};
use super::{TOOLS, bug_repo, loki, ok, path_str, python, tool, tool_error};

/// A running `loki mcp --http 0`, killed when dropped.
struct Server {
    child: Child,
    url: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts the server on a free port in `cwd` and reads the address it announces on stderr.
fn serve(sb: &Sandbox, cwd: &Path) -> Server {
    let mut cmd = std::process::Command::new(loki());
    sb.apply(&mut cmd);
    cmd.current_dir(cwd)
        .args(["mcp", "--http", "0"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    // Keep draining, so a later line never blocks the server on a full pipe.
    std::thread::spawn(move || lines.for_each(drop));
    let announced = "loki mcp: serving Streamable HTTP on ";
    assert!(first.starts_with(announced), "{first}");
    let url = first[announced.len()..].to_string();
    Server { child, url }
}

#[test]
fn http_serves_real_clients_on_loopback_only() {
    let Some(sdk) = super::python_sdk() else {
        return;
    };
    let Some(exe) = loki_test_support::require_mcp_inspector("mcp-inspector") else {
        return;
    };
    let sb = Sandbox::new();
    let repo = bug_repo();
    let here = path_str(repo.path());
    let server = serve(&sb, repo.path());
    assert!(
        server.url.starts_with("http://127.0.0.1:"),
        "{}",
        server.url
    );
    assert!(server.url.ends_with("/mcp"), "{}", server.url);

    let steps = json!([
        {"op": "initialize"},
        {"op": "list_tools"},
        tool("loki_runs", &json!({"repo": here})),
        tool("loki_runs", &json!({"repo": "/"})),
        tool("loki_status", &json!({"repo": here})),
    ]);
    let r = python(
        &sdk,
        &sb,
        &[
            "http".into(),
            server.url.clone().into(),
            steps.to_string().into(),
        ],
        &[],
    );
    assert_eq!(r[0]["serverInfo"]["name"], "loki");
    assert_eq!(r[1]["tools"].as_array().unwrap().len(), TOOLS.len());
    assert_eq!(ok(&r[2])["total"], 0);
    assert!(tool_error(&r[3]).contains("is not inside a git work tree"));
    assert!(tool_error(&r[4]).contains("`latest`: no runs in"));

    let listed = inspector(
        &exe,
        &sb,
        repo.path(),
        &[server.url.as_str()],
        &["--method", "tools/list"],
    );
    assert!(listed.status.success(), "{listed:?}");
    assert_eq!(
        stdout_json(&listed)["tools"].as_array().unwrap().len(),
        TOOLS.len()
    );

    // DNS rebinding: a page on another name that resolves to 127.0.0.1 is refused.
    let addr = server
        .url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_string();
    let mut tcp = TcpStream::connect(&addr).unwrap();
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    write!(
        tcp,
        "POST /mcp HTTP/1.1\r\nHost: attacker.example\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    tcp.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 403"), "{answer}");
}

#[test]
fn a_port_in_use_is_a_clear_failure() {
    let sb = Sandbox::new();
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    crate::cli::sandboxed(&sb, sb.home())
        .args(["mcp", "--http", &port])
        .assert()
        .code(1)
        .stderr(predicates::str::contains(format!(
            "cannot listen on 127.0.0.1:{port}"
        )));
}
