//! The single writer of an event log. See the crate doc for the format and the durability policy.

use std::fs::{self, File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use loki_core::fs::FileLock;
use loki_protocol::Stage;
use sha2::{Digest, Sha256};

use crate::event::{Event, EventType, GENESIS};
use crate::payload::Payload;
use crate::reader::{LogStatus, verify_log};
use crate::{EventError, MAX_LINE_BYTES};

/// Appends events to one run's `events.jsonl`, holding the log's lock while it lives.
#[derive(Debug)]
pub struct EventWriter {
    path: PathBuf,
    file: File,
    // Held for its lock, released when the writer drops.
    _lock: FileLock,
    run: String,
    next_seq: u64,
    head: String,
    recovered_torn_bytes: Option<u64>,
}

impl EventWriter {
    /// Opens (or creates) `<run_dir>/events.jsonl` for `run_id`, taking the exclusive lock.
    ///
    /// An existing log is verified first and continued after its last line. A torn last line is
    /// moved to `events.jsonl.torn`; a broken chain refuses to open, so nothing is ever appended
    /// after a tampered line.
    pub fn open(run_dir: &Path, run_id: &str) -> Result<EventWriter, EventError> {
        let path = run_dir.join("events.jsonl");
        let lock_path = run_dir.join("events.lock");
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(|e| EventError::io("open lock file", &lock_path, e))?;
        let lock = match FileLock::try_take(file) {
            Ok(Ok(lock)) => lock,
            Ok(Err(_busy)) => {
                return Err(EventError::Locked {
                    path,
                    lock: lock_path,
                });
            }
            Err(e) => return Err(EventError::io("lock", &lock_path, e)),
        };
        let mut next_seq = 0;
        let mut head = GENESIS.to_string();
        let mut recovered_torn_bytes = None;
        if path.exists() {
            let summary = verify_log(&path, Some(run_id))?;
            match summary.status {
                LogStatus::Intact => {}
                LogStatus::Interrupted { torn_bytes } => {
                    move_torn_tail(&path, summary.intact_bytes)?;
                    recovered_torn_bytes = Some(torn_bytes);
                }
                LogStatus::Broken(bad) => {
                    return Err(EventError::BrokenLog {
                        path,
                        reason: format!("line {}: {}", bad.line, bad.reason),
                    });
                }
            }
            next_seq = summary.count;
            head = summary.head;
        }
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .mode(0o644)
            .open(&path)
            .map_err(|e| EventError::io("open for append", &path, e))?;
        Ok(EventWriter {
            path,
            file,
            _lock: lock,
            run: run_id.to_string(),
            next_seq,
            head,
            recovered_torn_bytes,
        })
    }

    /// Appends one event and returns it. `data` must be a JSON object (or null for `{}`).
    ///
    /// Producers use [`EventWriter::record`] (or [`crate::RunRecorder`]) with a typed payload; this
    /// untyped form is for tools and tests that write arbitrary data on purpose.
    pub fn append(
        &mut self,
        kind: EventType,
        stage: Option<Stage>,
        data: serde_json::Value,
    ) -> Result<Event, EventError> {
        let encode = |reason: String| EventError::Encode {
            event_type: kind.as_str().to_string(),
            reason,
        };
        let data = match data {
            serde_json::Value::Object(m) => m,
            serde_json::Value::Null => serde_json::Map::new(),
            other => return Err(encode(format!("data must be an object, got {other}"))),
        };
        if kind.is_stage() != stage.is_some() {
            return Err(encode(
                "stage events, and only they, name a stage".to_string(),
            ));
        }
        let mut event = Event {
            v: 1,
            seq: self.next_seq,
            ts: loki_core::time::now_rfc3339(),
            run: self.run.clone(),
            kind: kind.as_str().to_string(),
            stage,
            data,
            prev: self.head.clone(),
            hash: String::new(),
        };
        let (hash, mut line) = canonical_line(&event).map_err(encode)?;
        event.hash = hash;
        line.push(b'\n');
        if line.len() > MAX_LINE_BYTES {
            return Err(EventError::TooLarge {
                event_type: kind.as_str().to_string(),
                bytes: line.len(),
            });
        }
        // One write(2) on an O_APPEND fd: whole line or (on a crash) a torn tail, never interleaved.
        let written = self
            .file
            .write(&line)
            .map_err(|e| EventError::io("append to", &self.path, e))?;
        if written != line.len() {
            return Err(EventError::io(
                "append to",
                &self.path,
                std::io::Error::new(
                    std::io::ErrorKind::WriteZero,
                    format!("short write: {written} of {} bytes", line.len()),
                ),
            ));
        }
        self.next_seq += 1;
        self.head.clone_from(&event.hash);
        if kind.is_terminal() || kind == EventType::ReceiptSealed {
            self.sync()?;
        }
        if let Some(dir) = self.path.parent() {
            crate::sink::notify(dir, &event);
        }
        Ok(event)
    }

    /// Appends one typed event: its type (and stage) come from the payload's type.
    pub fn record<P: Payload>(&mut self, payload: &P) -> Result<Event, EventError> {
        let data = serde_json::to_value(payload).map_err(|e| EventError::Encode {
            event_type: P::TYPE.as_str().to_string(),
            reason: e.to_string(),
        })?;
        self.append(P::TYPE, payload.stage(), data)
    }

    /// Flushes the log to disk.
    pub fn sync(&self) -> Result<(), EventError> {
        self.file
            .sync_data()
            .map_err(|e| EventError::io("fsync", &self.path, e))
    }

    /// Number of events in the log.
    #[must_use]
    pub fn count(&self) -> u64 {
        self.next_seq
    }

    /// Hash of the last event (64 zeros for an empty log).
    #[must_use]
    pub fn head(&self) -> &str {
        &self.head
    }

    /// The log's path.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Bytes of a torn last line moved aside when this writer opened the log, if there were any.
    #[must_use]
    pub fn recovered_torn_bytes(&self) -> Option<u64> {
        self.recovered_torn_bytes
    }
}

impl Drop for EventWriter {
    fn drop(&mut self) {
        // Best effort: a failed fsync at drop has no one to report to, and the next open re-verifies.
        let _ = self.file.sync_data();
    }
}

/// The event's hash and its line, from one canonicalisation.
///
/// The envelope's keys are fixed, so its RFC 8785 form is assembled in sorted key order around the
/// canonical `data` (`data` < `hash` < `prev` < `run` < `seq` < `stage` < `ts` < `type` < `v`, all
/// ASCII, so UTF-16 order is byte order). Without `hash` those bytes are what is hashed; with
/// `hash` inserted in its place they are the line, itself canonical. The reader recomputes the
/// hash through the generic JCS path, so any divergence here would be caught by every test that
/// reads a log back.
fn canonical_line(event: &Event) -> Result<(String, Vec<u8>), String> {
    let jcs =
        |v: &serde_json::Value| serde_json_canonicalizer::to_vec(v).map_err(|e| e.to_string());
    let data = jcs(&serde_json::Value::Object(event.data.clone()))?;
    let string = |s: &str| jcs(&serde_json::Value::String(s.to_string()));
    let mut tail = Vec::with_capacity(256);
    tail.extend_from_slice(b",\"prev\":");
    tail.extend_from_slice(&string(&event.prev)?);
    tail.extend_from_slice(b",\"run\":");
    tail.extend_from_slice(&string(&event.run)?);
    tail.extend_from_slice(format!(",\"seq\":{}", event.seq).as_bytes());
    if let Some(stage) = event.stage {
        tail.extend_from_slice(b",\"stage\":");
        tail.extend_from_slice(&string(stage.as_str())?);
    }
    tail.extend_from_slice(b",\"ts\":");
    tail.extend_from_slice(&string(&event.ts)?);
    tail.extend_from_slice(b",\"type\":");
    tail.extend_from_slice(&string(&event.kind)?);
    tail.extend_from_slice(format!(",\"v\":{}}}", event.v).as_bytes());

    let mut hasher = Sha256::new();
    hasher.update(b"{\"data\":");
    hasher.update(&data);
    hasher.update(&tail);
    let hash = hex::encode(hasher.finalize());

    let mut line = Vec::with_capacity(data.len() + tail.len() + 96);
    line.extend_from_slice(b"{\"data\":");
    line.extend_from_slice(&data);
    line.extend_from_slice(b",\"hash\":\"");
    line.extend_from_slice(hash.as_bytes());
    line.push(b'"');
    line.extend_from_slice(&tail);
    Ok((hash, line))
}

/// Copies the bytes after `intact` into `<log>.torn` (appending, for evidence) and truncates.
fn move_torn_tail(path: &Path, intact: u64) -> Result<(), EventError> {
    let mut f = OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .map_err(|e| EventError::io("open", path, e))?;
    f.seek(SeekFrom::Start(intact))
        .map_err(|e| EventError::io("seek in", path, e))?;
    let mut torn = Vec::new();
    f.read_to_end(&mut torn)
        .map_err(|e| EventError::io("read", path, e))?;
    let torn_path = path.with_extension("jsonl.torn");
    let mut keep = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&torn_path)
        .map_err(|e| EventError::io("open", &torn_path, e))?;
    torn.push(b'\n');
    keep.write_all(&torn)
        .and_then(|()| keep.sync_data())
        .map_err(|e| EventError::io("write", &torn_path, e))?;
    f.set_len(intact)
        .and_then(|()| f.sync_data())
        .map_err(|e| EventError::io("truncate the torn line of", path, e))?;
    // Keep the directory entry of the .torn file durable too.
    if let Some(dir) = path.parent() {
        let _ = fs::File::open(dir).and_then(|d| d.sync_all());
    }
    Ok(())
}
