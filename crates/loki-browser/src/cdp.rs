//! A minimal Chrome DevTools Protocol client over one WebSocket.
//!
//! Wire format (JSON text frames): a command is `{"id": N, "method": "Domain.method",
//! "params": {…}, "sessionId"?: "…"}`; its reply is `{"id": N, "result": {…}}` or
//! `{"id": N, "error": {"code": …, "message": "…"}}`; everything else is an event
//! `{"method": "…", "params": {…}, "sessionId"?: "…"}`.
//!
//! One caller at a time (`&mut self`): [`Cdp::call`] sends and reads until its reply, queueing
//! every event it meets; [`Cdp::next_event`] hands out the queue, then reads more. Reads use a
//! short socket timeout ([`READ_TICK`]) so every wait ends at its deadline. A closed socket or
//! a read error is [`BrowserError::Gone`]: the browser died or shut the connection.

use std::collections::VecDeque;
use std::net::TcpStream;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tungstenite::{Message, WebSocket};

use crate::BrowserError;

/// Socket read timeout: how often a wait looks at its deadline.
const READ_TICK: Duration = Duration::from_millis(50);
/// How long the WebSocket handshake may take on loopback.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// A protocol event.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    pub method: String,
    pub params: Value,
    pub session: Option<String>,
}

/// An open DevTools connection.
#[derive(Debug)]
pub struct Cdp {
    ws: WebSocket<TcpStream>,
    next_id: u64,
    queue: VecDeque<Event>,
}

impl Cdp {
    /// Connects to `ws://127.0.0.1:<port><path>`.
    pub fn connect(port: u16, path: &str) -> Result<Cdp, BrowserError> {
        let gone = |detail: String| BrowserError::Gone {
            during: "the DevTools connection".into(),
            detail,
        };
        let addr = std::net::SocketAddr::from(([127, 0, 0, 1], port));
        let stream = TcpStream::connect_timeout(&addr, HANDSHAKE_TIMEOUT)
            .map_err(|e| gone(format!("cannot connect to {addr}: {e}")))?;
        stream
            .set_read_timeout(Some(HANDSHAKE_TIMEOUT))
            .map_err(|e| gone(e.to_string()))?;
        let url = format!("ws://127.0.0.1:{port}{path}");
        let (ws, _) = tungstenite::client(url.as_str(), stream)
            .map_err(|e| gone(format!("WebSocket handshake with {url} failed: {e}")))?;
        ws.get_ref()
            .set_read_timeout(Some(READ_TICK))
            .map_err(|e| gone(e.to_string()))?;
        Ok(Cdp {
            ws,
            next_id: 1,
            queue: VecDeque::new(),
        })
    }

    /// Sends `method` and waits up to `timeout` for its result.
    pub fn call(
        &mut self,
        session: Option<&str>,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, BrowserError> {
        let id = self.next_id;
        self.next_id += 1;
        let mut msg = json!({"id": id, "method": method});
        msg["params"] = params;
        if let Some(s) = session {
            msg["sessionId"] = Value::String(s.to_string());
        }
        self.ws
            .send(Message::text(msg.to_string()))
            .map_err(|e| BrowserError::Gone {
                during: method.to_string(),
                detail: e.to_string(),
            })?;
        let deadline = Instant::now() + timeout;
        loop {
            let Some(v) = self.read(deadline, method)? else {
                return Err(BrowserError::Timeout {
                    method: method.to_string(),
                    secs: timeout.as_secs(),
                });
            };
            if v.get("id").and_then(Value::as_u64) == Some(id) {
                if let Some(err) = v.get("error") {
                    return Err(BrowserError::Protocol {
                        method: method.to_string(),
                        message: err
                            .get("message")
                            .and_then(Value::as_str)
                            .unwrap_or("unknown error")
                            .to_string(),
                    });
                }
                return Ok(v.get("result").cloned().unwrap_or(Value::Null));
            }
            self.enqueue(&v);
        }
    }

    /// The next event, waiting until `deadline`; `None` when none came in time.
    pub fn next_event(&mut self, deadline: Instant) -> Result<Option<Event>, BrowserError> {
        loop {
            if let Some(e) = self.queue.pop_front() {
                return Ok(Some(e));
            }
            match self.read(deadline, "waiting for events")? {
                Some(v) => self.enqueue(&v),
                None => return Ok(None),
            }
        }
    }

    fn enqueue(&mut self, v: &Value) {
        // A reply to a command nobody waits for any more (its caller timed out) is dropped.
        if let Some(method) = v.get("method").and_then(Value::as_str) {
            self.queue.push_back(Event {
                method: method.to_string(),
                params: v.get("params").cloned().unwrap_or(Value::Null),
                session: v
                    .get("sessionId")
                    .and_then(Value::as_str)
                    .map(str::to_string),
            });
        }
    }

    /// One JSON message, or `None` at the deadline.
    fn read(&mut self, deadline: Instant, during: &str) -> Result<Option<Value>, BrowserError> {
        loop {
            match self.ws.read() {
                Ok(Message::Text(t)) => {
                    let v: Value =
                        serde_json::from_str(t.as_str()).map_err(|e| BrowserError::Protocol {
                            method: during.to_string(),
                            message: format!("a message that is not JSON: {e}"),
                        })?;
                    return Ok(Some(v));
                }
                Ok(Message::Close(_)) => {
                    return Err(BrowserError::Gone {
                        during: during.to_string(),
                        detail: "the connection was closed".into(),
                    });
                }
                Ok(_) => {}
                Err(tungstenite::Error::Io(e))
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) =>
                {
                    if Instant::now() >= deadline {
                        return Ok(None);
                    }
                }
                Err(e) => {
                    return Err(BrowserError::Gone {
                        during: during.to_string(),
                        detail: e.to_string(),
                    });
                }
            }
        }
    }
}
