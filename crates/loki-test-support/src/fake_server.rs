//! What the loopback fakes ([`crate::fake_llm`], [`crate::fake_responses`],
//! [`crate::fake_gemini`]) share: the server on `127.0.0.1:0` that stops when dropped, and the
//! ledger of requests received and rules broken that [`Ledger::assert_clean`] turns into a test
//! failure. Each fake keeps only its own wire format and validation.

use std::collections::BTreeMap;

use axum::Router;
use axum::body::Bytes;
use axum::http::HeaderMap;
use serde_json::Value;

use crate::fake_llm::Recorded;

/// A router served on `127.0.0.1:0` until dropped.
#[derive(Debug)]
pub(crate) struct Loopback {
    addr: std::net::SocketAddr,
    task: tokio::task::JoinHandle<()>,
}

impl Loopback {
    /// Binds and serves `app`; start it inside a tokio runtime.
    pub(crate) async fn serve(app: Router) -> Loopback {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Loopback { addr, task }
    }

    /// `http://127.0.0.1:<port>`.
    pub(crate) fn origin(&self) -> String {
        format!("http://{}", self.addr)
    }
}

impl Drop for Loopback {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// One request as received: its lower-cased headers and body (parsed, or why not).
pub(crate) struct Incoming {
    pub(crate) headers: BTreeMap<String, String>,
    pub(crate) body: Result<Value, String>,
}

impl Incoming {
    pub(crate) fn new(headers: &HeaderMap, body: &Bytes) -> Incoming {
        Incoming {
            headers: headers
                .iter()
                .map(|(k, v)| {
                    (
                        k.as_str().to_ascii_lowercase(),
                        v.to_str().unwrap_or("").to_string(),
                    )
                })
                .collect(),
            body: serde_json::from_slice(body).map_err(|e| format!("the body is not JSON: {e}")),
        }
    }
}

/// Every request a fake received and every rule one broke.
#[derive(Debug, Default)]
pub(crate) struct Ledger {
    pub(crate) requests: Vec<Recorded>,
    pub(crate) violations: Vec<String>,
}

impl Ledger {
    /// Records `req` under `path` (its path, or path and query) and returns its number (from 1).
    pub(crate) fn record(&mut self, req: &Incoming, path: &str) -> usize {
        self.requests.push(Recorded {
            path: path.to_string(),
            headers: req.headers.clone(),
            body: req.body.as_ref().cloned().unwrap_or(Value::Null),
        });
        self.requests.len()
    }

    /// Panics when a request broke a rule, or when `unused` scripted replies were never asked
    /// for. `server` names the fake in the message.
    pub(crate) fn assert_clean(&self, server: &str, unused: usize) {
        assert!(
            self.violations.is_empty(),
            "{server} violations: {:#?}",
            self.violations
        );
        assert!(
            unused == 0,
            "{unused} queued replies of the {server} were never requested"
        );
    }
}
