//! A tiny static file server on 127.0.0.1 for pages that have no server of their own
//! (`loki run --url /index.html --serve DIR`, the browser demo).
//!
//! HTTP/1.0-style: one request per connection (`Connection: close`), each on a thread of its own, `GET` and `HEAD` only
//! (anything else 405), the path percent-decoded, `/` and directories served as `index.html`.
//! A path with a `..` segment, or one that resolves (through a symlink) outside the directory, is
//! 404: nothing outside the served directory is ever read. Requests are read with a deadline
//! and a size limit. The server stops when [`Server`] is dropped.

use std::io::{Read as _, Write as _};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::BrowserError;

/// How often the accept loop looks at its stop flag.
const ACCEPT_TICK: Duration = Duration::from_millis(20);
/// A client that sends no complete request head in this time is dropped.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(5);
/// Largest request head read.
const MAX_HEAD: usize = 16 * 1024;

/// A running server.
#[derive(Debug)]
pub struct Server {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Server {
    /// Serves `dir` on an ephemeral port of 127.0.0.1.
    pub fn start(dir: &Path) -> Result<Server, BrowserError> {
        let root = std::fs::canonicalize(dir).map_err(|e| BrowserError::io("serve", dir, e))?;
        let listener = TcpListener::bind(("127.0.0.1", 0))
            .map_err(|e| BrowserError::io("listen on 127.0.0.1 for", &root, e))?;
        listener
            .set_nonblocking(true)
            .map_err(|e| BrowserError::io("listen on 127.0.0.1 for", &root, e))?;
        let addr = listener
            .local_addr()
            .map_err(|e| BrowserError::io("listen on 127.0.0.1 for", &root, e))?;
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::spawn(move || {
            while !flag.load(Ordering::SeqCst) {
                match listener.accept() {
                    // One thread per connection: a browser's idle preconnect must not hold up
                    // the requests behind it for REQUEST_TIMEOUT.
                    Ok((s, _)) => {
                        let root = root.clone();
                        std::thread::spawn(move || handle(s, &root));
                    }
                    Err(_) => std::thread::sleep(ACCEPT_TICK),
                }
            }
        });
        Ok(Server {
            addr,
            stop,
            thread: Some(thread),
        })
    }

    /// `http://127.0.0.1:<port>`.
    #[must_use]
    pub fn origin(&self) -> String {
        format!("http://{}", self.addr)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The file a request path names inside `root` (pure but for the file system checks).
#[must_use]
pub fn file_for(root: &Path, url_path: &str) -> Option<PathBuf> {
    let path = url_path.split(['?', '#']).next().unwrap_or("");
    let decoded = percent_decode(path)?;
    if decoded.split('/').any(|seg| seg == "..") {
        return None;
    }
    let mut file = root.join(decoded.trim_start_matches('/'));
    if file.is_dir() {
        file = file.join("index.html");
    }
    let real = std::fs::canonicalize(&file).ok()?;
    (real.starts_with(root) && real.is_file()).then_some(real)
}

/// `%XX` decoding; `None` for a malformed escape or bytes that are not UTF-8.
#[must_use]
pub fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

fn content_type(file: &Path) -> &'static str {
    match file.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" | "htm" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "json" | "map" => "application/json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "txt" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

fn handle(mut s: TcpStream, root: &Path) {
    let _ = s.set_nonblocking(false);
    let _ = s.set_read_timeout(Some(REQUEST_TIMEOUT));
    let mut head = Vec::new();
    let mut buf = [0u8; 2048];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < MAX_HEAD {
        match s.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => head.extend_from_slice(&buf[..n]),
        }
    }
    let text = String::from_utf8_lossy(&head);
    let mut parts = text.lines().next().unwrap_or("").split_whitespace();
    let (method, path) = (parts.next().unwrap_or(""), parts.next().unwrap_or("/"));
    let (status, ctype, body) = if method != "GET" && method != "HEAD" {
        (
            "405 Method Not Allowed",
            "text/plain",
            b"method not allowed\n".to_vec(),
        )
    } else {
        match file_for(root, path).and_then(|f| std::fs::read(&f).ok().map(|b| (f, b))) {
            Some((f, b)) => ("200 OK", content_type(&f), b),
            None => ("404 Not Found", "text/plain", b"not found\n".to_vec()),
        }
    };
    let header = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = s.write_all(header.as_bytes());
    if method != "HEAD" {
        let _ = s.write_all(&body);
    }
    let _ = s.flush();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_stay_inside_the_served_directory() {
        let d = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(d.path()).unwrap();
        std::fs::create_dir(root.join("sub")).unwrap();
        std::fs::File::create(root.join("index.html")).unwrap();
        std::fs::File::create(root.join("sub/a b.js")).unwrap();
        assert_eq!(file_for(&root, "/"), Some(root.join("index.html")));
        assert_eq!(
            file_for(&root, "/sub/a%20b.js?x=1"),
            Some(root.join("sub/a b.js"))
        );
        assert_eq!(file_for(&root, "/../etc/passwd"), None);
        assert_eq!(file_for(&root, "/sub/%2e%2e/%2e%2e/etc/passwd"), None);
        assert_eq!(file_for(&root, "/missing.js"), None);
        // A symlink to a file outside the root (one this test owns).
        let outside = tempfile::tempdir().unwrap();
        std::fs::File::create(outside.path().join("secret")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret"), root.join("out")).unwrap();
        assert_eq!(file_for(&root, "/out"), None);
    }
}
