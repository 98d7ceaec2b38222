//! `loki mcp` over stdio, driven line by line with malformed input: every line that is not a
//! JSON-RPC request gets a JSON-RPC error (never silence), and the server keeps serving.

use std::io::{BufRead as _, BufReader, Write as _};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Duration;

use loki_test_support::Sandbox;
use serde_json::{Value, json};

use super::{bug_repo, loki};

/// How long one answer may take on a loaded machine.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(30);

/// A running `loki mcp` with its stdin and the lines of its stdout; killed when dropped.
struct Session {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Session {
    fn start(sb: &Sandbox, cwd: &std::path::Path) -> Session {
        let mut cmd = std::process::Command::new(loki());
        sb.apply(&mut cmd);
        cmd.current_dir(cwd)
            .arg("mcp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let mut child = cmd.spawn().unwrap();
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for l in stdout.lines() {
                let Ok(l) = l else { break };
                if tx.send(l).is_err() {
                    break;
                }
            }
        });
        Session {
            child,
            stdin,
            lines,
        }
    }

    fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    /// The next line the server wrote, as JSON.
    fn answer(&self, after: &str) -> Value {
        let line = self
            .lines
            .recv_timeout(ANSWER_TIMEOUT)
            .map_err(|e| match e {
                RecvTimeoutError::Timeout => format!("no answer to {after} in {ANSWER_TIMEOUT:?}"),
                RecvTimeoutError::Disconnected => format!("the server ended after {after}"),
            })
            .unwrap();
        serde_json::from_str(&line)
            .map_err(|e| format!("after {after}: not JSON ({e}): {line}"))
            .unwrap()
    }

    /// Sends `line` and returns the answer.
    fn ask(&mut self, line: &str) -> Value {
        self.send(line);
        self.answer(line)
    }
}

/// Asserts `v` is a JSON-RPC error with `code` and `id`, and returns its message.
fn rpc_error(v: &Value, code: i64, id: &Value) -> String {
    assert_eq!(v["jsonrpc"], "2.0", "{v}");
    assert_eq!(v["error"]["code"], code, "{v}");
    assert_eq!(
        v.get("id"),
        Some(id),
        "the id must be present (null when unknown): {v}"
    );
    v["error"]["message"].as_str().unwrap().to_string()
}

#[test]
fn malformed_lines_get_json_rpc_errors_and_the_server_keeps_serving() {
    let sb = Sandbox::new();
    let repo = bug_repo();
    let mut s = Session::start(&sb, repo.path());

    // Garbage before the handshake is answered too, and does not end the server.
    let v = s.ask("this is not json");
    let m = rpc_error(&v, -32700, &Value::Null);
    assert!(m.contains("Parse error"), "{m}");

    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "malformed-test", "version": "0"}}});
    let v = s.ask(&init.to_string());
    assert_eq!(v["id"], 1, "{v}");
    assert_eq!(v["result"]["serverInfo"]["name"], "loki", "{v}");
    s.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);

    rpc_error(
        &s.ask("{\"jsonrpc\": \"2.0\", \"id\": 2,"),
        -32700,
        &Value::Null,
    );
    rpc_error(&s.ask("[]"), -32600, &Value::Null);
    rpc_error(&s.ask(r#"{"foo":1}"#), -32600, &Value::Null);
    rpc_error(&s.ask("17"), -32600, &Value::Null);
    let m = rpc_error(
        &s.ask(r#"{"jsonrpc":"1.0","id":3,"method":"tools/list"}"#),
        -32600,
        &json!(3),
    );
    assert!(m.contains("jsonrpc"), "{m}");
    rpc_error(
        &s.ask(r#"{"jsonrpc":"2.0","id":"four","method":7}"#),
        -32600,
        &json!("four"),
    );

    let v = s.ask(r#"{"jsonrpc":"2.0","id":5,"method":"no/such_method","params":{}}"#);
    let m = rpc_error(&v, -32601, &json!(5));
    assert!(
        m.contains("no/such_method"),
        "the message names the method: {m}"
    );

    let v = s.ask(r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":3}}"#);
    let m = rpc_error(&v, -32602, &json!(7));
    assert!(
        m.contains("tools/call"),
        "the message names the method: {m}"
    );

    // Still serving: a real request after all of that is answered.
    let v = s.ask(r#"{"jsonrpc":"2.0","id":6,"method":"tools/list"}"#);
    assert_eq!(v["id"], 6, "{v}");
    let tools = v["result"]["tools"].as_array().unwrap();
    assert_eq!(tools.len(), super::TOOLS.len(), "{v}");

    // The end of input ends the server cleanly.
    drop(s.stdin.take());
    let status = s.child.wait().unwrap();
    assert!(status.success(), "{status}");
}
