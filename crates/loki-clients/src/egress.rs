//! loki's egress proxy: how a CLI agent reaches its model while the commands it runs reach
//! nothing else.
//!
//! A CLI agent (Claude Code, Codex, aider, opencode) must talk to its model, and its shell tool
//! runs the model's commands in the same process tree, so the two cannot be told apart by the
//! network box. Instead the box refuses every TCP connection except to this proxy (Landlock
//! ABI 4 rules, [`loki_process::confine::Policy::egress_ports`]), the agent is pointed at it
//! (`HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY` and their lower-case forms, `NO_PROXY` removed),
//! and the proxy forwards only to the hosts of the agent's model ([`crate::CliKind::model_hosts`]
//! and the endpoints its own variables name).
//!
//! # Protocol
//! HTTP/1.1 on `127.0.0.1:<port>`, one request head per connection (at most 16 KiB):
//! - `CONNECT host:port` (HTTPS): allowed → `200 Connection established`, then bytes both ways;
//!   the proxy never sees inside TLS.
//! - an absolute-form request (`GET http://host:port/path HTTP/1.1`, plain HTTP): allowed → the
//!   request line is rewritten to origin form and the connection is spliced to the host.
//! - anything else, or a host not on the list → `403` (`400` for a malformed head) with a body
//!   naming the host and the setting that allows it, and the host is recorded ([`Egress::refused`])
//!   for the run's NOT PROVEN.
//!
//! # Invariants and limits
//! Hosts are matched by name and port as the client wrote them (case-insensitive), never by a
//! DNS answer, so a name cannot be made to point elsewhere through the list. The proxy runs in
//! loki, outside the box. The box keeps the agent in the host's network namespace (the proxy is
//! on its loopback), so UDP, DNS included, is not covered; a command that knows the proxy's port
//! can connect to that port on another host. The proxy stops (and every spliced connection with
//! it, when the agent's process tree ends) when the [`Egress`] is dropped.

use std::ffi::OsString;
use std::io::{self, Read as _, Write as _};
use std::net::{Shutdown, TcpListener, TcpStream, ToSocketAddrs as _};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// The longest request head read before a connection is refused.
const MAX_HEAD: usize = 16 * 1024;
/// How long a client may take to send its head, and the proxy to reach a host.
const TIMEOUT: Duration = Duration::from_secs(20);

/// A host and port, as a client names them.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct HostPort {
    /// Lower-case; an IPv6 address without its brackets.
    pub host: String,
    pub port: u16,
}

impl HostPort {
    /// `host[:port]` or `[v6]:port`, with `default_port` when none is given.
    #[must_use]
    pub fn parse(s: &str, default_port: u16) -> Option<HostPort> {
        let s = s.trim();
        let (host, port) = if let Some(rest) = s.strip_prefix('[') {
            let (h, after) = rest.split_once(']')?;
            let port = match after.strip_prefix(':') {
                Some(p) => p.parse().ok()?,
                None if after.is_empty() => default_port,
                None => return None,
            };
            (h, port)
        } else {
            match s.rsplit_once(':') {
                Some((h, p)) => (h, p.parse().ok()?),
                None => (s, default_port),
            }
        };
        let valid = !host.is_empty()
            && host
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | ':'));
        valid.then(|| HostPort {
            host: host.to_ascii_lowercase(),
            port,
        })
    }

    /// The host and port of an `http://` or `https://` URL (the scheme's port by default).
    #[must_use]
    pub fn from_url(url: &str) -> Option<HostPort> {
        let url = url.trim();
        let (rest, default_port) = if let Some(r) = strip_prefix_ci(url, "https://") {
            (r, 443)
        } else if let Some(r) = strip_prefix_ci(url, "http://") {
            (r, 80)
        } else {
            return None;
        };
        let authority = rest.split(['/', '?', '#']).next()?;
        // Credentials in the URL are not part of where it goes.
        let authority = authority.rsplit_once('@').map_or(authority, |(_, a)| a);
        HostPort::parse(authority, default_port)
    }

    /// Whether the host is this machine's loopback (a local model server).
    #[must_use]
    pub fn is_loopback(&self) -> bool {
        self.host == "localhost"
            || self
                .host
                .parse::<std::net::IpAddr>()
                .is_ok_and(|ip| ip.is_loopback())
    }
}

impl std::fmt::Display for HostPort {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.host.contains(':') {
            write!(f, "[{}]:{}", self.host, self.port)
        } else {
            write!(f, "{}:{}", self.host, self.port)
        }
    }
}

/// The endpoints a client's configuration text names: every `http(s)://` URL on a line whose key
/// says it is one (`base_url`, `baseURL`, `api_base`, `openai-api-base`, `endpoint`), in TOML,
/// JSON or YAML alike. Other URLs (documentation links, project pages) are not endpoints and
/// are left out, so a config file cannot widen the list by mentioning a host.
#[must_use]
pub fn configured_endpoints(text: &str) -> Vec<HostPort> {
    const KEYS: [&str; 7] = [
        "base_url", "baseurl", "base-url", "api_base", "apibase", "api-base", "endpoint",
    ];
    let mut out = Vec::new();
    for line in text.lines() {
        let mut from = 0;
        while let Some(i) = next_url(&line[from..]).map(|i| i + from) {
            let url: String = line[i..]
                .chars()
                .take_while(|c| !c.is_whitespace() && !matches!(c, '"' | '\'' | ',' | '}' | ']'))
                .collect();
            // The key is what precedes the URL since the last separator: `"baseURL": "`,
            // `base_url = "`, `openai-api-base: `.
            let key = line[..i]
                .rsplit([',', '{', '[', ';'])
                .next()
                .unwrap_or_default()
                .to_ascii_lowercase();
            if KEYS.iter().any(|k| key.contains(k)) {
                out.extend(HostPort::from_url(&url));
            }
            from = i + url.len().max(1);
        }
    }
    out
}

/// Where the next `http://` or `https://` starts in `s`.
fn next_url(s: &str) -> Option<usize> {
    [s.find("http://"), s.find("https://")]
        .into_iter()
        .flatten()
        .min()
}

fn strip_prefix_ci<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    s.get(..prefix.len())
        .filter(|head| head.eq_ignore_ascii_case(prefix))
        .map(|_| &s[prefix.len()..])
}

/// A running egress proxy (see the module doc). Dropping it stops it.
#[derive(Debug)]
pub struct Egress {
    port: u16,
    allow: Arc<Vec<HostPort>>,
    refused: Arc<Mutex<Vec<HostPort>>>,
    stop: Arc<AtomicBool>,
    accept: Option<JoinHandle<()>>,
}

impl Egress {
    /// Starts a proxy on `127.0.0.1` (a free port) that forwards only to `allow`.
    pub fn start(allow: Vec<HostPort>) -> io::Result<Egress> {
        let listener = TcpListener::bind(("127.0.0.1", 0))?;
        let port = listener.local_addr()?.port();
        let allow = Arc::new(allow);
        let refused = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let accept = {
            let (allow, refused, stop) = (allow.clone(), refused.clone(), stop.clone());
            std::thread::Builder::new()
                .name("loki-egress".into())
                .spawn(move || {
                    for client in listener.incoming() {
                        if stop.load(Ordering::SeqCst) {
                            break;
                        }
                        let Ok(client) = client else { continue };
                        let (allow, refused) = (allow.clone(), refused.clone());
                        // A connection that fails ends alone; the proxy goes on.
                        let _ = std::thread::Builder::new()
                            .name("loki-egress-conn".into())
                            .spawn(move || {
                                let _ = serve(client, &allow, &refused);
                            });
                    }
                })?
        };
        Ok(Egress {
            port,
            allow,
            refused,
            stop,
            accept: Some(accept),
        })
    }

    /// The proxy's port on `127.0.0.1`.
    #[must_use]
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Where the proxy forwards to.
    #[must_use]
    pub fn allowed(&self) -> &[HostPort] {
        &self.allow
    }

    /// Every host a client asked for and was refused, once each, sorted.
    #[must_use]
    pub fn refused(&self) -> Vec<HostPort> {
        let mut r = self.refused.lock().map(|r| r.clone()).unwrap_or_default();
        r.sort();
        r.dedup();
        r
    }

    /// The variables that point a client at the proxy (and the `NO_PROXY` names to remove).
    #[must_use]
    pub fn env(&self) -> Vec<(OsString, OsString)> {
        let url = format!("http://127.0.0.1:{}", self.port);
        [
            "HTTPS_PROXY",
            "https_proxy",
            "HTTP_PROXY",
            "http_proxy",
            "ALL_PROXY",
            "all_proxy",
        ]
        .into_iter()
        .map(|k| (k.into(), url.clone().into()))
        .collect()
    }

    /// The variables a client must not get: they would let it bypass the proxy.
    pub const BYPASS_VARS: [&'static str; 2] = ["NO_PROXY", "no_proxy"];
}

impl Drop for Egress {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wakes the accept loop, which then sees the flag.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        if let Some(h) = self.accept.take() {
            let _ = h.join();
        }
    }
}

/// One client connection: read its head, check the host, splice.
fn serve(
    mut client: TcpStream,
    allow: &[HostPort],
    refused: &Mutex<Vec<HostPort>>,
) -> io::Result<()> {
    client.set_read_timeout(Some(TIMEOUT))?;
    let mut buf = Vec::with_capacity(1024);
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        if buf.len() > MAX_HEAD {
            return answer(&mut client, 400, "the request head is over 16 KiB");
        }
        let mut chunk = [0u8; 4096];
        let n = client.read(&mut chunk)?;
        if n == 0 {
            return Ok(());
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let first = head.lines().next().unwrap_or_default();
    let mut parts = first.split_whitespace();
    let (Some(method), Some(target), Some(version)) = (parts.next(), parts.next(), parts.next())
    else {
        return answer(&mut client, 400, "a malformed request line");
    };
    let connect = method.eq_ignore_ascii_case("CONNECT");
    let to = if connect {
        HostPort::parse(target, 443)
    } else {
        HostPort::from_url(target).filter(|_| strip_prefix_ci(target, "http://").is_some())
    };
    let Some(to) = to else {
        return answer(
            &mut client,
            400,
            "not a proxy request (CONNECT host:port, or an absolute http:// URL)",
        );
    };
    if !allow.contains(&to) {
        if let Ok(mut r) = refused.lock() {
            r.push(to.clone());
        }
        return answer(
            &mut client,
            403,
            &format!(
                "loki: {to} is not the agent's model, so the agent's commands may not reach it (agent.network = \"off\"); set agent.network = \"on\" to let them"
            ),
        );
    }
    let mut upstream = match connect_to(&to) {
        Ok(s) => s,
        Err(e) => return answer(&mut client, 502, &format!("loki: cannot reach {to}: {e}")),
    };
    let rest = &buf[head_end..];
    if connect {
        client.write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")?;
    } else {
        let origin = origin_form(target);
        let mut rewritten = format!("{method} {origin} {version}").into_bytes();
        rewritten.extend_from_slice(&buf[first.len()..head_end]);
        upstream.write_all(&rewritten)?;
    }
    upstream.write_all(rest)?;
    client.set_read_timeout(None)?;
    splice(client, upstream)
}

/// The path and query of an absolute URL (`/` when it has none).
fn origin_form(url: &str) -> String {
    let after_scheme = url.split_once("://").map_or(url, |(_, r)| r);
    match after_scheme.find('/') {
        Some(i) => after_scheme[i..].to_string(),
        None => match after_scheme.find('?') {
            Some(i) => format!("/{}", &after_scheme[i..]),
            None => "/".to_string(),
        },
    }
}

fn connect_to(to: &HostPort) -> io::Result<TcpStream> {
    let mut last = io::Error::new(io::ErrorKind::NotFound, "no address");
    for addr in (to.host.as_str(), to.port).to_socket_addrs()? {
        match TcpStream::connect_timeout(&addr, TIMEOUT) {
            Ok(s) => return Ok(s),
            Err(e) => last = e,
        }
    }
    Err(last)
}

/// Copies bytes both ways until each side has closed its half.
fn splice(client: TcpStream, upstream: TcpStream) -> io::Result<()> {
    let (mut c_read, mut u_write) = (client.try_clone()?, upstream.try_clone()?);
    let up = std::thread::Builder::new()
        .name("loki-egress-up".into())
        .spawn(move || {
            let _ = io::copy(&mut c_read, &mut u_write);
            let _ = u_write.shutdown(Shutdown::Write);
        })?;
    let (mut u_read, mut c_write) = (upstream, client);
    let _ = io::copy(&mut u_read, &mut c_write);
    let _ = c_write.shutdown(Shutdown::Write);
    let _ = up.join();
    Ok(())
}

fn answer(client: &mut TcpStream, status: u16, body: &str) -> io::Result<()> {
    let reason = match status {
        400 => "Bad Request",
        403 => "Forbidden",
        _ => "Bad Gateway",
    };
    let body = format!("{body}\n");
    write!(
        client,
        "HTTP/1.1 {status} {reason}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )?;
    client.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::BufRead as _;

    fn hp(s: &str) -> HostPort {
        HostPort::parse(s, 0).unwrap()
    }

    #[test]
    fn hosts_and_urls_parse_to_where_they_go() {
        assert_eq!(
            HostPort::from_url("https://API.anthropic.com/v1"),
            Some(hp("api.anthropic.com:443"))
        );
        assert_eq!(
            HostPort::from_url("http://user:pw@127.0.0.1:8080?x"),
            Some(hp("127.0.0.1:8080"))
        );
        assert_eq!(HostPort::from_url("http://[::1]:9/x"), Some(hp("[::1]:9")));
        assert_eq!(HostPort::from_url("ftp://x"), None);
        assert_eq!(HostPort::parse("evil.com:99999", 443), None);
        assert_eq!(HostPort::parse("a b:1", 443), None);
        assert_eq!(
            HostPort::parse("localhost", 11434),
            Some(hp("localhost:11434"))
        );
        assert!(hp("127.0.0.2:1").is_loopback() && !hp("10.0.0.1:1").is_loopback());
        assert_eq!(origin_form("http://h:1/a/b?c"), "/a/b?c");
        assert_eq!(origin_form("http://h:1?c"), "/?c");
        assert_eq!(origin_form("http://h"), "/");
    }

    /// An upstream that answers each connection with what it received in its head.
    fn echo_server() -> (u16, std::sync::mpsc::Receiver<String>) {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for s in l.incoming() {
                let mut s = s.unwrap();
                let mut r = io::BufReader::new(s.try_clone().unwrap());
                let mut line = String::new();
                r.read_line(&mut line).unwrap();
                tx.send(line.trim_end().to_string()).unwrap();
                s.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
                    .unwrap();
            }
        });
        (port, rx)
    }

    fn ask(proxy: u16, raw: &str) -> String {
        let mut s = TcpStream::connect(("127.0.0.1", proxy)).unwrap();
        s.write_all(raw.as_bytes()).unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).unwrap();
        out
    }

    #[test]
    fn an_allowed_host_is_forwarded_in_origin_form_and_others_are_refused_and_recorded() {
        let (port, seen) = echo_server();
        let e = Egress::start(vec![hp(&format!("127.0.0.1:{port}"))]).unwrap();
        let out = ask(
            e.port(),
            &format!(
                "GET http://127.0.0.1:{port}/v1/messages?x=1 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
            ),
        );
        assert!(out.ends_with("ok"), "{out}");
        assert_eq!(seen.recv().unwrap(), "GET /v1/messages?x=1 HTTP/1.1");

        // CONNECT to the same host: a tunnel, whose bytes reach the host unchanged.
        let mut s = TcpStream::connect(("127.0.0.1", e.port())).unwrap();
        write!(s, "CONNECT 127.0.0.1:{port} HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
        let mut r = io::BufReader::new(s.try_clone().unwrap());
        let mut status = String::new();
        r.read_line(&mut status).unwrap();
        assert!(status.starts_with("HTTP/1.1 200"), "{status}");
        s.write_all(b"PING /tunnelled HTTP/1.1\r\n\r\n").unwrap();
        assert_eq!(seen.recv().unwrap(), "PING /tunnelled HTTP/1.1");

        // Another port of the same host, another host, a name for the allowed address: refused.
        for target in [
            format!(
                "CONNECT 127.0.0.1:{} HTTP/1.1\r\n\r\n",
                port.wrapping_add(1)
            ),
            "CONNECT evil.example:443 HTTP/1.1\r\n\r\n".to_string(),
            format!("GET http://localhost:{port}/ HTTP/1.1\r\n\r\n"),
        ] {
            let out = ask(e.port(), &target);
            assert!(out.starts_with("HTTP/1.1 403"), "{out}");
            assert!(out.contains("agent.network"), "{out}");
        }
        assert!(
            seen.try_recv().is_err(),
            "a refused request reached the host"
        );
        let refused: Vec<String> = e.refused().iter().map(ToString::to_string).collect();
        assert_eq!(refused.len(), 3, "{refused:?}");
        assert!(refused.contains(&"evil.example:443".to_string()));

        // Not a proxy request, and a head that never ends.
        assert!(ask(e.port(), "GET /x HTTP/1.1\r\n\r\n").starts_with("HTTP/1.1 400"));
        // One byte over the limit, so the proxy has read all of it when it answers (unread
        // bytes would turn its close into a reset).
        let frame = "GET http://a/ HTTP/1.1\r\n".len();
        let long = format!(
            "GET http://a/{} HTTP/1.1\r\n",
            "x".repeat(MAX_HEAD + 1 - frame)
        );
        assert_eq!(long.len(), MAX_HEAD + 1);
        assert!(ask(e.port(), &long).starts_with("HTTP/1.1 400"));
    }

    #[test]
    fn endpoints_are_read_from_endpoint_keys_only() {
        let toml = "[model_providers.fake]\nname = \"x\"\nbase_url = \"http://127.0.0.1:9911/v1\"\n# docs: https://docs.example/\n";
        assert_eq!(configured_endpoints(toml), [hp("127.0.0.1:9911")]);
        let json = r#"{"provider": {"x": {"options": {"baseURL": "https://gw.corp:8443/v1", "apiKey": "k"}}}, "homepage": "https://github.com/x"}"#;
        assert_eq!(configured_endpoints(json), [hp("gw.corp:8443")]);
        let yaml = "openai-api-base: http://localhost:4000\nmodel: gpt\n";
        assert_eq!(configured_endpoints(yaml), [hp("localhost:4000")]);
        assert!(configured_endpoints("see https://evil.example/ for help\n").is_empty());
    }

    #[test]
    fn dropping_the_proxy_stops_it() {
        let e = Egress::start(Vec::new()).unwrap();
        let port = e.port();
        drop(e);
        assert!(TcpStream::connect(("127.0.0.1", port)).is_err());
    }
}
