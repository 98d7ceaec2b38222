//! The stdio transport: one JSON-RPC message per line on stdin and stdout, screened before rmcp
//! sees it, so every malformed line gets a JSON-RPC answer.
//!
//! rmcp drops a line that is not JSON without a word (a client waits for an answer that never
//! comes) and answers a well-formed message of the wrong shape with `-32600` but no `id`. Every
//! line read is therefore classified first ([`screen`], pure):
//!
//! | line | answer |
//! |---|---|
//! | empty (only whitespace) | none: skipped |
//! | not JSON (or longer than [`MAX_LINE`]) | `-32700` Parse error, `id: null` |
//! | JSON that is not an object (`[]`, a batch, `1`, `"x"`, `null`) | `-32600` Invalid Request, `id: null` (MCP sends no batches) |
//! | an object without `"jsonrpc": "2.0"`, with an `id` that is not a string or an integer, a `method` that is not a string, `params` that are not an object or array, or neither a request, a notification nor a response | `-32600` with the request's `id` when it has a valid one, else `null` |
//! | anything else | passed to rmcp, which answers an unknown method with `-32601` and a known one with malformed `params` with `-32602`, both naming the method ([`crate::LokiServer`]) |
//!
//! A notification is never answered, even when rmcp cannot read it (JSON-RPC 2.0 §4.1).
//!
//! Both writers (rmcp's and the screen's) write whole lines through one lock, so their answers
//! never interleave. The server ends when stdin closes; a malformed line never ends it.

use std::sync::Arc;

use rmcp::ServiceExt as _;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;

use crate::McpError;
use crate::server::LokiServer;

/// The longest line read (rmcp's own limit): a longer one is answered `-32700` and skipped, so a
/// peer that never sends a newline cannot exhaust memory.
pub const MAX_LINE: usize = 16 * 1024 * 1024;
/// Bytes buffered between the screen and rmcp in each direction.
const PIPE_BYTES: usize = 64 * 1024;

/// JSON-RPC 2.0 error codes.
pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;

/// What to do with one line read from the client.
#[derive(Debug, Clone, PartialEq)]
pub enum Screened {
    /// Nothing to read or answer (an empty line, a notification nobody can answer).
    Skip,
    /// A message for rmcp.
    Pass,
    /// An error response to write back instead.
    Answer(Value),
}

/// An error response (pure).
fn error(id: &Value, code: i64, message: &str) -> Screened {
    Screened::Answer(
        json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}),
    )
}

/// Classifies one line (without its newline); see the module table.
#[must_use]
pub fn screen(line: &[u8]) -> Screened {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Screened::Skip;
    }
    let value: Value = match serde_json::from_slice(line) {
        Ok(v) => v,
        Err(e) => {
            return error(
                &Value::Null,
                PARSE_ERROR,
                &format!("Parse error: the line is not JSON ({e})"),
            );
        }
    };
    let Value::Object(msg) = &value else {
        let what = match &value {
            Value::Array(a) if a.is_empty() => "an empty array".to_string(),
            Value::Array(_) => "a batch (an array); MCP sends one message per line".to_string(),
            other => loki_core::json::kind_of(other).to_string(),
        };
        return error(
            &Value::Null,
            INVALID_REQUEST,
            &format!("Invalid Request: expected a JSON-RPC 2.0 object, got {what}"),
        );
    };
    let id = msg.get("id");
    let id_ok = match id {
        Some(Value::String(_)) => true,
        Some(Value::Number(n)) => n.is_i64() || n.is_u64(),
        _ => false,
    };
    let reply_id = if id_ok { id.cloned() } else { None }.unwrap_or(Value::Null);
    let invalid = |why: String| {
        error(
            &reply_id,
            INVALID_REQUEST,
            &format!("Invalid Request: {why}"),
        )
    };
    match msg.get("jsonrpc") {
        Some(Value::String(v)) if v == "2.0" => {}
        Some(other) => return invalid(format!("\"jsonrpc\" must be \"2.0\", got {other}")),
        None => return invalid("\"jsonrpc\": \"2.0\" is missing".into()),
    }
    if id.is_some() && !id_ok {
        return invalid("\"id\" must be a string or an integer".into());
    }
    let has_method = match msg.get("method") {
        Some(Value::String(_)) => true,
        Some(other) => {
            return invalid(format!(
                "\"method\" must be a string, got {}",
                loki_core::json::kind_of(other)
            ));
        }
        None => false,
    };
    if let Some(p) = msg.get("params")
        && !(p.is_object() || p.is_array())
    {
        return invalid(format!(
            "\"params\" must be an object or an array, got {}",
            loki_core::json::kind_of(p)
        ));
    }
    if !has_method {
        // A response to one of the server's requests: exactly one of result and error, with an id.
        return if id.is_some() && (msg.contains_key("result") != msg.contains_key("error")) {
            Screened::Pass
        } else {
            invalid("neither a request (\"method\" and \"id\"), a notification (\"method\") nor a response (\"id\" and \"result\" or \"error\")".into())
        };
    }
    // A request, or a notification (rmcp reads it or ignores it; nobody waits for an answer).
    Screened::Pass
}

/// Serves `server` over stdin and stdout until stdin closes.
pub async fn serve(server: LokiServer) -> Result<(), McpError> {
    serve_on(server, tokio::io::stdin(), tokio::io::stdout()).await
}

/// Serves `server` over `input` and `output` (the process's stdio, or a test's pipes).
pub async fn serve_on<R, W>(server: LokiServer, input: R, output: W) -> Result<(), McpError>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let out = Arc::new(Mutex::new(output));
    let (to_rmcp, rmcp_in) = tokio::io::duplex(PIPE_BYTES);
    let (rmcp_out, from_rmcp) = tokio::io::duplex(PIPE_BYTES);
    let reader = tokio::spawn(read_client(input, to_rmcp, Arc::clone(&out)));
    let writer = tokio::spawn(forward(from_rmcp, Arc::clone(&out)));
    let served = async {
        let running = server
            .serve((rmcp_in, rmcp_out))
            .await
            .map_err(|e| McpError::Stdio(e.to_string()))?;
        running
            .waiting()
            .await
            .map_err(|e| McpError::Stdio(e.to_string()))?;
        Ok::<(), McpError>(())
    }
    .await;
    // rmcp has ended (stdin closed, or its transport broke): nothing more is read, and what it
    // wrote is flushed before the process exits.
    reader.abort();
    let flushed = writer
        .await
        .map_err(|e| McpError::Stdio(format!("the output writer stopped: {e}")))?;
    served?;
    flushed.map_err(|e| McpError::Stdio(format!("cannot write to stdout: {e}")))
}

/// Writes one line (with its newline) under the output lock and flushes it.
async fn write_line<W: AsyncWrite + Unpin>(out: &Mutex<W>, line: &[u8]) -> std::io::Result<()> {
    let mut w = out.lock().await;
    w.write_all(line).await?;
    if !line.ends_with(b"\n") {
        w.write_all(b"\n").await?;
    }
    w.flush().await
}

/// Reads the client's lines, answers the malformed ones and hands the rest to rmcp. Returns at
/// the end of input (rmcp then sees its own end of input) or when rmcp stopped reading.
async fn read_client<R, W>(input: R, mut to_rmcp: tokio::io::DuplexStream, out: Arc<Mutex<W>>)
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut input = BufReader::new(input);
    let mut line = Vec::new();
    loop {
        line.clear();
        let too_long = match read_bounded(&mut input, &mut line).await {
            Ok(Line::Eof) | Err(_) => break,
            Ok(Line::Whole) => false,
            Ok(Line::TooLong) => true,
        };
        let verdict = if too_long {
            error(
                &Value::Null,
                PARSE_ERROR,
                &format!("Parse error: the line is longer than {MAX_LINE} bytes"),
            )
        } else {
            screen(line.strip_suffix(b"\n").unwrap_or(&line))
        };
        let done = match verdict {
            Screened::Skip => Ok(()),
            Screened::Answer(v) => write_line(&out, v.to_string().as_bytes()).await,
            Screened::Pass => {
                if !line.ends_with(b"\n") {
                    line.push(b'\n');
                }
                match to_rmcp.write_all(&line).await {
                    Ok(()) => to_rmcp.flush().await,
                    Err(e) => Err(e),
                }
            }
        };
        if done.is_err() {
            break;
        }
    }
    let _ = to_rmcp.shutdown().await;
}

/// How [`read_bounded`] ended.
enum Line {
    /// A line (the last one may lack its newline).
    Whole,
    /// A line longer than [`MAX_LINE`]: read to its end and dropped.
    TooLong,
    Eof,
}

/// Reads one line into `buf`, keeping at most [`MAX_LINE`] bytes of it.
async fn read_bounded<R: AsyncRead + Unpin>(
    input: &mut BufReader<R>,
    buf: &mut Vec<u8>,
) -> std::io::Result<Line> {
    let mut too_long = false;
    let mut any = false;
    loop {
        let chunk = input.fill_buf().await?;
        if chunk.is_empty() {
            return Ok(match (any, too_long) {
                (false, _) => Line::Eof,
                (true, true) => Line::TooLong,
                (true, false) => Line::Whole,
            });
        }
        any = true;
        let (take, end) = match chunk.iter().position(|b| *b == b'\n') {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        if !too_long {
            if buf.len() + take > MAX_LINE + 1 {
                too_long = true;
                buf.clear();
            } else {
                buf.extend_from_slice(&chunk[..take]);
            }
        }
        input.consume(take);
        if end {
            return Ok(if too_long { Line::TooLong } else { Line::Whole });
        }
    }
}

/// Copies rmcp's output to `out`, one whole line at a time.
async fn forward<W: AsyncWrite + Unpin>(
    from_rmcp: tokio::io::DuplexStream,
    out: Arc<Mutex<W>>,
) -> std::io::Result<()> {
    let mut from_rmcp = BufReader::new(from_rmcp);
    let mut line = Vec::new();
    loop {
        line.clear();
        if from_rmcp.read_until(b'\n', &mut line).await? == 0 {
            return Ok(());
        }
        write_line(&out, &line).await?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(line: &str) -> Value {
        match screen(line.as_bytes()) {
            Screened::Answer(v) => v,
            other => panic!("{line}: expected an answer, got {other:?}"),
        }
    }

    #[test]
    fn each_malformed_line_gets_its_code_and_id() {
        let cases: [(&str, i64, Value); 11] = [
            ("not json", PARSE_ERROR, Value::Null),
            ("{\"jsonrpc\":\"2.0\",", PARSE_ERROR, Value::Null),
            ("[]", INVALID_REQUEST, Value::Null),
            (
                "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]",
                INVALID_REQUEST,
                Value::Null,
            ),
            ("42", INVALID_REQUEST, Value::Null),
            ("{\"foo\":1}", INVALID_REQUEST, Value::Null),
            (
                "{\"jsonrpc\":\"1.0\",\"id\":7,\"method\":\"ping\"}",
                INVALID_REQUEST,
                json!(7),
            ),
            (
                "{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":5}",
                INVALID_REQUEST,
                json!("a"),
            ),
            (
                "{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"ping\"}",
                INVALID_REQUEST,
                Value::Null,
            ),
            (
                "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\",\"params\":1}",
                INVALID_REQUEST,
                json!(3),
            ),
            ("{\"jsonrpc\":\"2.0\",\"id\":4}", INVALID_REQUEST, json!(4)),
        ];
        for (line, code, id) in cases {
            let v = answer(line);
            assert_eq!(v["jsonrpc"], "2.0", "{line}");
            assert_eq!(v["error"]["code"], code, "{line}: {v}");
            assert_eq!(v["id"], id, "{line}: {v}");
            assert!(v["error"]["message"].is_string(), "{line}: {v}");
        }
    }

    #[test]
    fn well_formed_messages_and_blank_lines_are_not_answered_here() {
        for line in [
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r",
            "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"no/such/method\",\"params\":{}}",
            "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
            "{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\",\"params\":{\"name\":3}}",
            "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":3}}",
            "{\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{}}",
        ] {
            assert_eq!(screen(line.as_bytes()), Screened::Pass, "{line}");
        }
        assert_eq!(screen(b"  \r"), Screened::Skip);
    }
}
