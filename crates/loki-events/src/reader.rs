//! Reading and validating an event log. See the crate doc for the rules.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

use serde::Deserialize as _;

use crate::event::{Event, GENESIS, hash_value};
use crate::{EventError, MAX_LINE_BYTES};

/// The first line that breaks the log.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct BadLine {
    /// 1-based line number.
    pub line: u64,
    pub reason: String,
}

/// What a read concluded about the log as a whole.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "status", rename_all = "lowercase")]
pub enum LogStatus {
    /// Every line is valid and the file ends with a newline.
    Intact,
    /// Every whole line is valid; the last line has no newline (a write was interrupted).
    Interrupted { torn_bytes: u64 },
    /// A line breaks the chain or the envelope rules.
    Broken(BadLine),
}

/// The result of reading a log: its status and the valid prefix.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct LogSummary {
    #[serde(flatten)]
    pub status: LogStatus,
    /// Number of valid events before the end or the first problem.
    pub count: u64,
    /// Hash of the last valid event (64 zeros when there is none).
    pub head: String,
    /// Byte length of the valid prefix.
    #[serde(skip)]
    pub intact_bytes: u64,
}

/// Streams the log and validates every line. `run` pins the expected run id; without it the first
/// line's run id is expected on every line. I/O errors are errors; anything wrong in the content
/// is reported in the returned status.
pub fn verify_log(path: &Path, run: Option<&str>) -> Result<LogSummary, EventError> {
    scan(path, run, |_| {})
}

/// Reads the valid events of a log with the summary; for logs that fit in memory (every run's).
pub fn read_events(path: &Path, run: Option<&str>) -> Result<(Vec<Event>, LogSummary), EventError> {
    let mut events = Vec::new();
    let summary = scan(path, run, |e| events.push(e))?;
    Ok((events, summary))
}

enum RawLine {
    Eof,
    /// A whole line (without its newline), `len` bytes on disk including the newline.
    Whole {
        len: u64,
    },
    /// Bytes at the end of the file with no newline.
    Torn {
        len: u64,
    },
    /// Longer than the limit; `len` bytes on disk. The content is not kept.
    TooLong {
        len: u64,
    },
}

/// Reads one line into `buf`, keeping at most `MAX_LINE_BYTES + 1` bytes of it.
fn next_line(r: &mut impl BufRead, buf: &mut Vec<u8>) -> std::io::Result<RawLine> {
    buf.clear();
    let mut len: u64 = 0;
    let mut too_long = false;
    loop {
        let chunk = r.fill_buf()?;
        if chunk.is_empty() {
            return Ok(match (len, too_long) {
                (0, _) => RawLine::Eof,
                (_, true) => RawLine::TooLong { len },
                (_, false) => RawLine::Torn { len },
            });
        }
        let (take, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        let content = if done {
            &chunk[..take - 1]
        } else {
            &chunk[..take]
        };
        if !too_long {
            if buf.len() + content.len() > MAX_LINE_BYTES {
                too_long = true;
                buf.clear();
            } else {
                buf.extend_from_slice(content);
            }
        }
        len += take as u64;
        r.consume(take);
        if done {
            return Ok(if too_long {
                RawLine::TooLong { len }
            } else {
                RawLine::Whole { len }
            });
        }
    }
}

fn scan(
    path: &Path,
    run: Option<&str>,
    mut each: impl FnMut(Event),
) -> Result<LogSummary, EventError> {
    let file = File::open(path).map_err(|e| EventError::io("open", path, e))?;
    let mut r = BufReader::with_capacity(64 * 1024, file);
    let mut buf = Vec::new();
    let mut count: u64 = 0;
    let mut head = GENESIS.to_string();
    let mut intact_bytes: u64 = 0;
    let mut expected_run = run.map(str::to_string);
    let done = |status, count, head, intact_bytes| {
        Ok(LogSummary {
            status,
            count,
            head,
            intact_bytes,
        })
    };
    loop {
        let line_no = count + 1;
        let raw = next_line(&mut r, &mut buf).map_err(|e| EventError::io("read", path, e))?;
        let len = match raw {
            RawLine::Eof => return done(LogStatus::Intact, count, head, intact_bytes),
            RawLine::TooLong { len } => {
                let bad = BadLine {
                    line: line_no,
                    reason: format!("line is {len} bytes, over the {MAX_LINE_BYTES}-byte limit"),
                };
                return done(LogStatus::Broken(bad), count, head, intact_bytes);
            }
            RawLine::Torn { len } => {
                // A torn tail is only an interrupted write if nothing follows it, which holds here
                // by construction (it ended at EOF). Its content is not validated: it is incomplete.
                return done(
                    LogStatus::Interrupted { torn_bytes: len },
                    count,
                    head,
                    intact_bytes,
                );
            }
            RawLine::Whole { len } => len,
        };
        match check_line(&buf, count, &head, &mut expected_run) {
            Ok(event) => {
                head.clone_from(&event.hash);
                count += 1;
                intact_bytes += len;
                each(event);
            }
            Err(reason) => {
                let bad = BadLine {
                    line: line_no,
                    reason,
                };
                return done(LogStatus::Broken(bad), count, head, intact_bytes);
            }
        }
    }
}

fn check_line(
    bytes: &[u8],
    seq: u64,
    prev: &str,
    expected_run: &mut Option<String>,
) -> Result<Event, String> {
    let text = std::str::from_utf8(bytes).map_err(|e| format!("not UTF-8: {e}"))?;
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    if !value.is_object() {
        return Err("not a JSON object".to_string());
    }
    // Deserialise from a borrow: the value itself is hashed below, without a copy.
    let event = Event::deserialize(&value).map_err(|e| format!("bad envelope: {e}"))?;
    if event.v != 1 {
        return Err(format!("unsupported version v={}", event.v));
    }
    if event.seq != seq {
        return Err(format!(
            "seq is {}, expected {seq} (a line was deleted, inserted or moved)",
            event.seq
        ));
    }
    if !valid_ts(&event.ts) {
        return Err(format!("ts {:?} is not a UTC RFC 3339 time", event.ts));
    }
    if !valid_type(&event.kind) {
        return Err(format!("type {:?} is not an event type", event.kind));
    }
    if event.kind.starts_with("stage.") != event.stage.is_some() {
        return Err(format!(
            "type {} and stage {:?} do not go together",
            event.kind,
            event.stage.map(loki_protocol::Stage::as_str)
        ));
    }
    match expected_run {
        Some(run) if *run != event.run => {
            return Err(format!(
                "run is {:?}, expected {run:?} (a line from another run)",
                event.run
            ));
        }
        Some(_) => {}
        None => *expected_run = Some(event.run.clone()),
    }
    if event.prev != prev {
        return Err(format!(
            "prev does not match the hash of line {seq} (chain broken)"
        ));
    }
    let mut without_hash = value;
    if let Some(obj) = without_hash.as_object_mut() {
        obj.remove("hash");
    }
    let want = hash_value(&without_hash).map_err(|e| e.to_string())?;
    if event.hash != want {
        return Err("hash does not match the line's content (the line was edited)".to_string());
    }
    Ok(event)
}

fn valid_ts(ts: &str) -> bool {
    let b = ts.as_bytes();
    b.len() >= 20 && b[4] == b'-' && b[10] == b'T' && ts.ends_with('Z')
}

fn valid_type(t: &str) -> bool {
    !t.is_empty()
        && t.split('.').all(|part| {
            !part.is_empty() && part.bytes().all(|c| c.is_ascii_lowercase() || c == b'_')
        })
}
