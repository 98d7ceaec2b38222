//! Many blobs read by one `git cat-file --batch` process, and the cache that lets every reader of
//! one [`Git`] handle (and its clones) share them.
//!
//! # Why
//! A judgement reads each changed file's two sides in three places (the owner classification,
//! the static scan, the rename detection) and the head's context files besides. One `cat-file`
//! process per read was most of the judge's fixed cost: a process start is 5-400 ms on a loaded
//! machine. [`Git::read_blobs`] reads any number of objects in one process; [`Git::prefetch`]
//! puts them in the handle's cache, where [`Git::show_blob`] and [`Git::show_file`] find them.
//!
//! # Format (`git cat-file --batch`, stdin one request a line)
//! A request is an object name: an object id, or `<rev>:<path>`. For each, in order, git prints
//! either `<oid> SP <type> SP <size> LF <size bytes of content> LF`, or `<request> SP missing LF`
//! (also `ambiguous` for an abbreviated id that names several objects). Content is raw bytes:
//! newlines and anything else, so the size, never a delimiter, says where it ends.
//! [`parse_batch`] is the pure parser of that output: anything else (a short read, a header it
//! does not know, bytes after the last answer) is an error, never a guess.
//!
//! # Invariants
//! - The same hardened call as every other ([`Git::spec`]): no replace objects, no filters (the
//!   batch mode without `--filters` prints stored bytes), no textconv, no hooks, no fsmonitor.
//! - A request with a line break cannot be written on one line: it is read alone
//!   ([`Git::show_file`]'s single `cat-file blob`).
//! - Only what cannot change is cached: a full object id, or a full tree or commit id with a
//!   path (`<oid>:<path>`); the objects they name are immutable, so a cached answer is the answer.
//!   A ref such as `HEAD:x` is always read afresh. The cache holds at most [`BLOB_CACHE_CAP`]
//!   bytes; past that, reads go to git as before.
//! - A non-blob (a tree at that path, a submodule's commit) is `None`, as [`Git::show_file`] says
//!   for a path that is not a file.
//! - A batch whose output is over the output cap, or not understood, is read again one request
//!   at a time (what every read did before), so batching never refuses what a single read gives.
//! - [`Git::prefetch`] is an optimisation only: when the batch fails (its output over the cap, a
//!   git that cannot run), nothing is cached and each reader's own call reports the problem.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use crate::{Git, GitError};

/// Most bytes of blob content a handle keeps: a judgement reads a few files of a change; a
/// change of many large files reads the rest one by one, as before.
pub const BLOB_CACHE_CAP: usize = 128 * 1024 * 1024;

/// The bytes of each object read, `None` when the request names nothing or not a blob.
pub type Blobs = Vec<Option<Vec<u8>>>;

/// What a handle remembers: request → content (`None`: known missing or not a blob).
#[derive(Debug, Default)]
pub(crate) struct BlobCache {
    entries: HashMap<String, Option<Arc<Vec<u8>>>>,
    bytes: usize,
}

pub(crate) type SharedBlobCache = Arc<Mutex<BlobCache>>;

/// Whether `s` is a full object id (SHA-1 or SHA-256), which names one immutable object.
fn is_full_oid(s: &str) -> bool {
    matches!(s.len(), 40 | 64) && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Whether the answer to `request` can never change: a full id, or a full id and a path.
fn immutable(request: &str) -> bool {
    match request.split_once(':') {
        Some((rev, _)) => is_full_oid(rev),
        None => is_full_oid(request),
    }
}

/// What is wrong in `git cat-file --batch` output, and where: the request whose answer it is
/// and the header or sizes read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BatchError {
    /// `n` counts the answers from 1, of `of`.
    #[error("answer {n} of {of} ({request}) is cut off")]
    CutOff {
        n: usize,
        of: usize,
        request: String,
    },
    #[error("unexpected answer to {request}: {header:?}")]
    Header { request: String, header: String },
    #[error("unexpected size in the answer to {request}: {header:?}")]
    Size { request: String, header: String },
    #[error("the content of {request} ({size} bytes) is cut off or not followed by a newline")]
    Content { request: String, size: usize },
    #[error("{bytes} bytes after the last of {answers} answers")]
    Trailing { bytes: usize, answers: usize },
}

/// Parses `git cat-file --batch` output for `requests` (see the module doc): one entry per
/// request, in order. `Err` carries what was wrong and where.
pub fn parse_batch(out: &[u8], requests: &[&str]) -> Result<Blobs, BatchError> {
    let mut rest = out;
    let mut blobs = Vec::with_capacity(requests.len());
    for (i, request) in requests.iter().enumerate() {
        let nl = rest
            .iter()
            .position(|&b| b == b'\n')
            .ok_or_else(|| BatchError::CutOff {
                n: i + 1,
                of: requests.len(),
                request: (*request).to_string(),
            })?;
        let header = &rest[..nl];
        rest = &rest[nl + 1..];
        if let Some(name) = header
            .strip_suffix(b" missing")
            .or_else(|| header.strip_suffix(b" ambiguous"))
            && name == request.as_bytes()
        {
            blobs.push(None);
            continue;
        }
        let text = String::from_utf8_lossy(header);
        let mut parts = text.split(' ');
        let (Some(_oid), Some(kind), Some(size), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(BatchError::Header {
                request: (*request).to_string(),
                header: text.to_string(),
            });
        };
        let size: usize = size.parse().map_err(|_| BatchError::Size {
            request: (*request).to_string(),
            header: text.to_string(),
        })?;
        if rest.len() < size + 1 || rest[size] != b'\n' {
            return Err(BatchError::Content {
                request: (*request).to_string(),
                size,
            });
        }
        let content = &rest[..size];
        rest = &rest[size + 1..];
        blobs.push((kind == "blob").then(|| content.to_vec()));
    }
    if !rest.is_empty() {
        return Err(BatchError::Trailing {
            bytes: rest.len(),
            answers: requests.len(),
        });
    }
    Ok(blobs)
}

impl Git {
    /// The bytes of every object in `requests` (object ids or `<rev>:<path>`), in order, read by
    /// one `git cat-file --batch` (a request with a line break by a call of its own); `None` where
    /// the object does not exist or is not a blob. Answers found in the handle's cache are not
    /// read again.
    pub fn read_blobs(&self, requests: &[&str]) -> Result<Blobs, GitError> {
        let mut out: Blobs = vec![None; requests.len()];
        let mut batch: Vec<(usize, &str)> = Vec::new();
        for (i, r) in requests.iter().enumerate() {
            if let Some(known) = self.cached(r) {
                out[i] = known;
            } else if r.contains(['\n', '\r']) || r.is_empty() {
                out[i] = self.show_file_uncached(r)?;
            } else {
                batch.push((i, r));
            }
        }
        if batch.is_empty() {
            return Ok(out);
        }
        let names: Vec<&str> = batch.iter().map(|(_, r)| *r).collect();
        let mut input = names.join("\n").into_bytes();
        input.push(b'\n');
        let spec = self
            .spec(&["cat-file", "--batch", "--buffer"])
            .stdin_bytes(input);
        let command = spec.display();
        let read = match self.run_spec(&spec).and_then(|bytes| {
            parse_batch(&bytes, &names).map_err(|e| GitError::Parse {
                command,
                detail: e.to_string(),
            })
        }) {
            Ok(read) => read,
            // All of it over the output cap (or an answer not understood): each alone, as
            // before batches, so a large change is read, not refused.
            Err(GitError::Parse { .. }) => names
                .iter()
                .map(|r| self.show_file_uncached(r))
                .collect::<Result<_, _>>()?,
            Err(e) => return Err(e),
        };
        for ((i, r), blob) in batch.into_iter().zip(read) {
            self.remember(r, blob.as_deref());
            out[i] = blob;
        }
        Ok(out)
    }

    /// Reads `requests` in one batch into the handle's cache (only those whose answer cannot
    /// change: see the module doc), so that later [`Git::show_blob`] / [`Git::show_file`] calls
    /// for them start no process. A failure caches nothing: the later reads report it.
    pub fn prefetch(&self, requests: &[&str]) {
        let wanted: Vec<&str> = requests
            .iter()
            .copied()
            .filter(|r| immutable(r) && self.cached(r).is_none())
            .collect();
        if !wanted.is_empty() {
            let _ = self.read_blobs(&wanted);
        }
    }

    /// The cached answer to `request`, when there is one.
    pub(crate) fn cached(&self, request: &str) -> Option<Option<Vec<u8>>> {
        let cache = self.blobs.lock().unwrap_or_else(PoisonError::into_inner);
        cache
            .entries
            .get(request)
            .map(|v| v.as_ref().map(|b| b.as_ref().clone()))
    }

    /// Caches an answer when it cannot change and the cache has room.
    pub(crate) fn remember(&self, request: &str, blob: Option<&[u8]>) {
        if !immutable(request) {
            return;
        }
        let mut cache = self.blobs.lock().unwrap_or_else(PoisonError::into_inner);
        let len = blob.map_or(0, <[u8]>::len);
        if cache.bytes + len > BLOB_CACHE_CAP || cache.entries.contains_key(request) {
            return;
        }
        cache.bytes += len;
        cache
            .entries
            .insert(request.to_owned(), blob.map(|b| Arc::new(b.to_vec())));
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// What git prints for one request: found (with its type) or missing.
    #[derive(Debug, Clone)]
    enum Answer {
        Found {
            kind: &'static str,
            content: Vec<u8>,
        },
        Missing,
    }

    fn render(requests: &[String], answers: &[Answer]) -> Vec<u8> {
        let mut out = Vec::new();
        for (r, a) in requests.iter().zip(answers) {
            match a {
                Answer::Found { kind, content } => {
                    out.extend_from_slice(
                        format!("{} {kind} {}\n", "a".repeat(40), content.len()).as_bytes(),
                    );
                    out.extend_from_slice(content);
                    out.push(b'\n');
                }
                Answer::Missing => out.extend_from_slice(format!("{r} missing\n").as_bytes()),
            }
        }
        out
    }

    fn answer() -> impl Strategy<Value = Answer> {
        prop_oneof![
            // Content full of what a line parser would trip on: newlines, NULs, fake headers.
            prop::collection::vec(
                prop_oneof![Just(b'\n'), Just(0u8), Just(b' '), any::<u8>()],
                0..300
            )
            .prop_map(|content| Answer::Found {
                kind: "blob",
                content
            }),
            Just(Answer::Found {
                kind: "blob",
                content: b"x missing\nabc blob 3\nzzz\n".to_vec()
            }),
            Just(Answer::Found {
                kind: "tree",
                content: b"100644 a\0bin".to_vec()
            }),
            Just(Answer::Missing),
        ]
    }

    fn request() -> impl Strategy<Value = String> {
        prop_oneof![
            "[0-9a-f]{40}",
            "[0-9a-f]{40}:[a-z/ ._-]{1,20}",
            "HEAD:[a-z/ ._-]{1,20}",
        ]
    }

    proptest! {
        #[test]
        fn every_answer_is_read_back_whatever_its_bytes(
            cases in prop::collection::vec((request(), answer()), 0..12)
        ) {
            let (requests, answers): (Vec<String>, Vec<Answer>) = cases.into_iter().unzip();
            let out = render(&requests, &answers);
            let names: Vec<&str> = requests.iter().map(String::as_str).collect();
            let parsed = parse_batch(&out, &names).unwrap();
            prop_assert_eq!(parsed.len(), answers.len());
            for (p, a) in parsed.iter().zip(&answers) {
                match a {
                    Answer::Found { kind: "blob", content } => prop_assert_eq!(p.as_ref(), Some(content)),
                    Answer::Found { .. } | Answer::Missing => prop_assert!(p.is_none()),
                }
            }
        }

        #[test]
        fn output_cut_anywhere_is_an_error_never_a_shorter_answer(
            cases in prop::collection::vec((request(), answer()), 1..6),
            cut in any::<prop::sample::Index>(),
        ) {
            let (requests, answers): (Vec<String>, Vec<Answer>) = cases.into_iter().unzip();
            let out = render(&requests, &answers);
            let at = cut.index(out.len());
            let names: Vec<&str> = requests.iter().map(String::as_str).collect();
            prop_assert!(parse_batch(&out[..at], &names).is_err());
        }

        #[test]
        fn arbitrary_bytes_never_panic(
            out in prop::collection::vec(any::<u8>(), 0..400),
            requests in prop::collection::vec(request(), 0..5),
        ) {
            let names: Vec<&str> = requests.iter().map(String::as_str).collect();
            let _ = parse_batch(&out, &names);
        }
    }

    #[test]
    fn extra_bytes_after_the_last_answer_are_an_error() {
        let mut out = render(
            &["HEAD:a".to_owned()],
            &[Answer::Found {
                kind: "blob",
                content: b"a\n".to_vec(),
            }],
        );
        out.extend_from_slice(b"junk");
        let err = parse_batch(&out, &["HEAD:a"]).unwrap_err().to_string();
        assert!(err.contains("after the last"), "{err}");
    }

    #[test]
    fn a_missing_line_for_another_request_is_not_taken_as_this_one() {
        let err = parse_batch(b"HEAD:b missing\n", &["HEAD:a"])
            .unwrap_err()
            .to_string();
        assert!(err.contains("HEAD:a"), "{err}");
    }

    #[test]
    fn only_full_ids_are_cached() {
        let oid = "0123456789abcdef0123456789abcdef01234567";
        assert!(immutable(oid));
        assert!(immutable(&format!("{oid}:src/a b.rs")));
        assert!(!immutable("HEAD:src/a.rs"));
        assert!(!immutable("0123456:src/a.rs"));
        assert!(!immutable("main"));
    }
}
