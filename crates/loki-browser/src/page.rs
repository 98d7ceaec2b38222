//! Checking a page: load it, run the steps, collect what went wrong.
//!
//! # Steps (`--steps FILE`, JSON or YAML: a list)
//! ```yaml
//! - click: "#save"                            # document.querySelector(sel).click()
//! - type: {selector: "#name", text: "Ada"}    # focus it, then Input.insertText
//! - navigate: "/other.html"                   # relative to the current page; waits for load
//! - wait: 500                                 # milliseconds, collecting events meanwhile
//! - wait: "#result"                           # until the selector matches (STEP_TIMEOUT)
//! ```
//! A step whose selector matches nothing is [`BrowserError::Step`]: a harness problem, not a crash.
//!
//! # What is collected ([`PageError`], in the order it happened)
//! - `Runtime.exceptionThrown`: an uncaught exception, or an unhandled rejection when its text
//!   starts with `Uncaught (in promise)`;
//! - `Runtime.consoleAPICalled` of type `error`: `console.error(…)`, its arguments joined;
//! - a response with status ≥ 400, or `Network.loadingFailed` (not cancelled), for a request to
//!   the page's own origin (other origins are not the repository's code); `/favicon.ico` is
//!   ignored, browsers ask for it on their own.
//!
//! Stack frames keep the URL, 1-based line and column and the function name; mapping them to
//! files is the caller's business. After the load and after each step the page gets
//! [`CheckOptions::settle`] for late errors (timers, promise chains).
//!
//! A page that does not answer or does not fire `load` within [`CheckOptions::load_timeout`] is
//! [`BrowserError::NotLoaded`].

use std::collections::HashMap;
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::{Value, json};

use crate::cdp::Event;
use crate::{Browser, BrowserError};

/// How long a `wait: "<selector>"` step waits for a match.
const STEP_TIMEOUT: Duration = Duration::from_secs(10);
/// How often a selector is looked for.
const SELECTOR_POLL: Duration = Duration::from_millis(100);
/// Screencast frames kept (about 30 s at the browser's pace); later ones are dropped, the final
/// screenshot is always added. Bounds memory on a long session.
const MAX_FRAMES: usize = 600;
/// The fixed viewport: screencast frames all get one size.
const VIEWPORT: (u32, u32) = (800, 600);

/// One scripted interaction.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase", deny_unknown_fields)]
pub enum Step {
    Click(String),
    Type { selector: String, text: String },
    Navigate(String),
    Wait(Wait),
}

/// What a `wait` step waits for.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(untagged)]
pub enum Wait {
    Ms(u64),
    Selector(String),
}

impl std::fmt::Display for Step {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Step::Click(s) => write!(f, "click {s}"),
            Step::Type { selector, .. } => write!(f, "type into {selector}"),
            Step::Navigate(u) => write!(f, "navigate {u}"),
            Step::Wait(Wait::Ms(ms)) => write!(f, "wait {ms}ms"),
            Step::Wait(Wait::Selector(s)) => write!(f, "wait for {s}"),
        }
    }
}

/// Parses a steps file: YAML, of which JSON is a subset (pure).
pub fn parse_steps(text: &str) -> Result<Vec<Step>, BrowserError> {
    let v: Value =
        serde_yaml_ng::from_str(text).map_err(|e| BrowserError::BadSteps(e.to_string()))?;
    serde_json::from_value(v).map_err(|e| {
        BrowserError::BadSteps(format!(
            "{e} (expected e.g. [{{\"click\": \"#btn\"}}, {{\"type\": {{\"selector\": \"#q\", \"text\": \"x\"}}}}, {{\"navigate\": \"/a\"}}, {{\"wait\": 500}}])"
        ))
    })
}

/// Which kind of problem a [`PageError`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageErrorKind {
    Exception,
    Rejection,
    ConsoleError,
    Request,
}

/// One stack frame as the browser reports it (1-based line and column).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UrlFrame {
    pub function: String,
    pub url: String,
    pub line: u32,
    pub column: u32,
}

/// One problem seen on the page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageError {
    pub kind: PageErrorKind,
    /// `TypeError`, `Error`; empty for console errors and requests.
    pub name: String,
    pub message: String,
    pub frames: Vec<UrlFrame>,
}

/// What to check.
#[derive(Debug, Clone)]
pub struct CheckOptions {
    /// An absolute `http(s)://` URL.
    pub url: String,
    pub steps: Vec<Step>,
    pub settle: Duration,
    pub load_timeout: Duration,
    /// Record a screencast into this APNG file.
    pub video: Option<std::path::PathBuf>,
}

/// The result of a check.
#[derive(Debug, Clone)]
pub struct CheckReport {
    pub errors: Vec<PageError>,
    /// `HeadlessChrome/120.0.…`.
    pub product: String,
    /// Frames in the video, when one was recorded.
    pub video_frames: Option<usize>,
}

/// `scheme://host[:port]` of an absolute URL (pure).
#[must_use]
pub fn origin_of(url: &str) -> Option<&str> {
    let scheme_end = url.find("://")? + 3;
    let rest = &url[scheme_end..];
    let end = rest
        .find(['/', '?', '#'])
        .map_or(url.len(), |i| scheme_end + i);
    Some(&url[..end])
}

/// `url` made absolute against `base` (pure; enough for `/path`, `path` and absolute URLs).
#[must_use]
pub fn join_url(base: &str, url: &str) -> String {
    if url.contains("://") {
        return url.to_string();
    }
    let origin = origin_of(base).unwrap_or(base);
    if url.starts_with('/') {
        return format!("{origin}{url}");
    }
    let path = base.split(['?', '#']).next().unwrap_or(base);
    match path.rfind('/') {
        Some(i) if i >= origin.len() => format!("{}{url}", &path[..=i]),
        _ => format!("{origin}/{url}"),
    }
}

fn frames_of(stack: Option<&Value>) -> Vec<UrlFrame> {
    let Some(frames) = stack
        .and_then(|s| s.get("callFrames"))
        .and_then(Value::as_array)
    else {
        return Vec::new();
    };
    frames
        .iter()
        .filter_map(|f| {
            let url = f.get("url").and_then(Value::as_str)?;
            if url.is_empty() {
                return None;
            }
            let n = |k: &str| {
                f.get(k)
                    .and_then(Value::as_u64)
                    .and_then(|v| u32::try_from(v + 1).ok())
                    .unwrap_or(1)
            };
            Some(UrlFrame {
                function: f
                    .get("functionName")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
                url: url.to_string(),
                line: n("lineNumber"),
                column: n("columnNumber"),
            })
        })
        .collect()
}

fn arg_text(a: &Value) -> String {
    match a.get("value") {
        Some(Value::String(s)) => s.clone(),
        Some(v) if !v.is_null() => v.to_string(),
        _ => a
            .get("description")
            .or_else(|| a.get("type"))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
    }
}

/// `TypeError: msg` split into name and message (pure); anything else is all message.
fn split_name(first_line: &str) -> (String, String) {
    match first_line.split_once(": ") {
        Some((n, m)) if !n.is_empty() && !n.contains(' ') => (n.to_string(), m.to_string()),
        _ => (String::new(), first_line.to_string()),
    }
}

/// Requests seen, by id: (method, url, initiator frame).
type Requests = HashMap<String, (String, String, Option<UrlFrame>)>;

/// Turns one event into a problem when it is one (pure).
fn on_event(e: &Event, origin: &str, requests: &mut Requests) -> Option<PageError> {
    let p = &e.params;
    match e.method.as_str() {
        "Runtime.exceptionThrown" => Some(exception(p.get("exceptionDetails")?)),
        "Runtime.consoleAPICalled" if p.get("type").and_then(Value::as_str) == Some("error") => {
            let args = p.get("args").and_then(Value::as_array)?;
            let message = args.iter().map(arg_text).collect::<Vec<_>>().join(" ");
            Some(PageError {
                kind: PageErrorKind::ConsoleError,
                name: String::new(),
                message,
                frames: frames_of(p.get("stackTrace")),
            })
        }
        "Network.requestWillBeSent" => {
            request_sent(p, requests);
            None
        }
        "Network.responseReceived" => {
            let id = p.get("requestId").and_then(Value::as_str)?;
            let r = p.get("response")?;
            let status = r.get("status").and_then(Value::as_u64)?;
            let url = r.get("url").and_then(Value::as_str)?;
            if status < 400 || !own(url, origin) {
                return None;
            }
            let text = r.get("statusText").and_then(Value::as_str).unwrap_or("");
            let (method, _, frame) = requests.get(id).cloned().unwrap_or_default();
            Some(request_error(
                &method,
                url,
                origin,
                &format!("{status} {text}"),
                frame,
            ))
        }
        "Network.loadingFailed" => {
            if p.get("canceled").and_then(Value::as_bool) == Some(true) {
                return None;
            }
            let id = p.get("requestId").and_then(Value::as_str)?;
            let (method, url, frame) = requests.get(id).cloned()?;
            if !own(&url, origin) {
                return None;
            }
            let err = p
                .get("errorText")
                .and_then(Value::as_str)
                .unwrap_or("failed");
            Some(request_error(&method, &url, origin, err, frame))
        }
        _ => None,
    }
}

/// An uncaught exception or promise rejection from its `exceptionDetails` `d`: its name and
/// message, and its stack (else the place the details name).
fn exception(d: &Value) -> PageError {
    let text = d.get("text").and_then(Value::as_str).unwrap_or_default();
    let ex = d.get("exception");
    let desc = ex
        .and_then(|x| x.get("description"))
        .and_then(Value::as_str)
        .map(str::to_string)
        .or_else(|| ex.and_then(|x| x.get("value")).map(arg_text))
        .unwrap_or_else(|| text.to_string());
    let (name, message) = split_name(desc.lines().next().unwrap_or_default());
    let mut frames = frames_of(d.get("stackTrace"));
    if frames.is_empty()
        && let Some(url) = d.get("url").and_then(Value::as_str)
    {
        let n = |k: &str| {
            d.get(k)
                .and_then(Value::as_u64)
                .and_then(|v| u32::try_from(v + 1).ok())
                .unwrap_or(1)
        };
        frames.push(UrlFrame {
            function: String::new(),
            url: url.to_string(),
            line: n("lineNumber"),
            column: n("columnNumber"),
        });
    }
    PageError {
        kind: if text.starts_with("Uncaught (in promise)") {
            PageErrorKind::Rejection
        } else {
            PageErrorKind::Exception
        },
        name,
        message,
        frames,
    }
}

/// Remembers a request about to be sent (`p`, with `?` on what it lacks): its method, URL and
/// the frame that made it.
fn request_sent(p: &Value, requests: &mut Requests) -> Option<()> {
    let id = p.get("requestId").and_then(Value::as_str)?;
    let req = p.get("request")?;
    let url = req.get("url").and_then(Value::as_str)?;
    let method = req.get("method").and_then(Value::as_str).unwrap_or("GET");
    let init = p.get("initiator");
    let mut frame = frames_of(init.and_then(|i| i.get("stack")))
        .into_iter()
        .next();
    if frame.is_none()
        && let Some(u) = init.and_then(|i| i.get("url")).and_then(Value::as_str)
    {
        frame = Some(UrlFrame {
            function: String::new(),
            url: u.to_string(),
            line: init
                .and_then(|i| i.get("lineNumber"))
                .and_then(Value::as_u64)
                .and_then(|v| u32::try_from(v + 1).ok())
                .unwrap_or(1),
            column: 1,
        });
    }
    requests.insert(id.to_string(), (method.to_string(), url.to_string(), frame));
    Some(())
}

fn own(url: &str, origin: &str) -> bool {
    origin_of(url) == Some(origin) && !url[origin.len()..].starts_with("/favicon.ico")
}

fn request_error(
    method: &str,
    url: &str,
    origin: &str,
    what: &str,
    frame: Option<UrlFrame>,
) -> PageError {
    // The path, not the URL: the port of a server started per run must not enter the signature.
    let path = url.strip_prefix(origin).unwrap_or(url);
    let method = if method.is_empty() { "GET" } else { method };
    PageError {
        kind: PageErrorKind::Request,
        name: String::new(),
        message: format!("{method} {path} {}", what.trim()),
        frames: frame.into_iter().collect(),
    }
}

/// State of one check while it runs.
struct Run<'a> {
    b: &'a mut Browser,
    origin: String,
    requests: Requests,
    errors: Vec<PageError>,
    frames: Vec<crate::video::Frame>,
    recording: bool,
    loaded: bool,
}

impl Run<'_> {
    /// Handles events until `deadline`, or until `until(event)` says stop.
    fn pump(
        &mut self,
        deadline: Instant,
        until: &dyn Fn(&Event) -> bool,
    ) -> Result<bool, BrowserError> {
        while let Some(e) = self.b.next_event(deadline)? {
            if e.method == "Page.screencastFrame" {
                if let Some(sid) = e.params.get("sessionId") {
                    // Unacknowledged, the browser sends no more frames.
                    self.b
                        .page_call("Page.screencastFrameAck", json!({"sessionId": sid}))?;
                }
                if let Some(data) = e.params.get("data").and_then(Value::as_str)
                    && self.frames.len() < MAX_FRAMES
                {
                    use base64::Engine as _;
                    if let Ok(png) = base64::engine::general_purpose::STANDARD.decode(data) {
                        let ts = e
                            .params
                            .pointer("/metadata/timestamp")
                            .and_then(Value::as_f64)
                            .unwrap_or(0.0);
                        self.frames.push(crate::video::Frame { png, timestamp: ts });
                    }
                }
                continue;
            }
            if e.method == "Page.loadEventFired" {
                self.loaded = true;
            }
            if let Some(err) = on_event(&e, &self.origin, &mut self.requests) {
                self.errors.push(err);
            }
            if until(&e) {
                return Ok(true);
            }
        }
        Ok(false)
    }

    fn settle(&mut self, d: Duration) -> Result<(), BrowserError> {
        self.pump(Instant::now() + d, &|_| false).map(drop)
    }

    fn navigate(&mut self, url: &str, timeout: Duration) -> Result<(), BrowserError> {
        self.loaded = false;
        let r = self.b.page_call("Page.navigate", json!({"url": url}))?;
        if let Some(err) = r.get("errorText").and_then(Value::as_str) {
            return Err(BrowserError::NotLoaded {
                url: url.to_string(),
                detail: err.to_string(),
            });
        }
        let loaded = self.pump(Instant::now() + timeout, &|e| {
            e.method == "Page.loadEventFired"
        })?;
        if !loaded && !self.loaded {
            return Err(BrowserError::NotLoaded {
                url: url.to_string(),
                detail: format!("no load event within {}s", timeout.as_secs()),
            });
        }
        Ok(())
    }

    fn eval(&mut self, expr: &str) -> Result<Value, BrowserError> {
        let r = self.b.page_call(
            "Runtime.evaluate",
            json!({"expression": expr, "returnByValue": true, "userGesture": true}),
        )?;
        Ok(r.pointer("/result/value").cloned().unwrap_or(Value::Null))
    }

    fn step(&mut self, i: usize, step: &Step, opts: &CheckOptions) -> Result<(), BrowserError> {
        let fail = |detail: String| BrowserError::Step {
            index: i + 1,
            step: step.to_string(),
            detail,
        };
        let q = |s: &str| serde_json::to_string(s).unwrap_or_default();
        match step {
            Step::Click(sel) => {
                let found = self.eval(&format!(
                    "(() => {{ const e = document.querySelector({}); if (!e) return false; e.scrollIntoView(); e.click(); return true; }})()",
                    q(sel)
                ))?;
                if found != Value::Bool(true) {
                    return Err(fail(format!("no element matches {sel}")));
                }
            }
            Step::Type { selector, text } => {
                let found = self.eval(&format!(
                    "(() => {{ const e = document.querySelector({}); if (!e) return false; e.focus(); return true; }})()",
                    q(selector)
                ))?;
                if found != Value::Bool(true) {
                    return Err(fail(format!("no element matches {selector}")));
                }
                self.b
                    .page_call("Input.insertText", json!({"text": text}))?;
            }
            Step::Navigate(url) => {
                let current = self.eval("location.href")?;
                let base = current.as_str().unwrap_or(&opts.url).to_string();
                self.navigate(&join_url(&base, url), opts.load_timeout)?;
            }
            Step::Wait(Wait::Ms(ms)) => self.settle(Duration::from_millis(*ms))?,
            Step::Wait(Wait::Selector(sel)) => {
                let deadline = Instant::now() + STEP_TIMEOUT;
                loop {
                    if self.eval(&format!("!!document.querySelector({})", q(sel)))?
                        == Value::Bool(true)
                    {
                        break;
                    }
                    if Instant::now() >= deadline {
                        return Err(fail(format!(
                            "no element matched {sel} within {}s",
                            STEP_TIMEOUT.as_secs()
                        )));
                    }
                    self.settle(SELECTOR_POLL)?;
                }
            }
        }
        Ok(())
    }
}

/// Opens a page in `b` with the domains a check listens to and the fixed viewport.
fn prepare(b: &mut Browser) -> Result<(), BrowserError> {
    b.open_page()?;
    for m in ["Runtime.enable", "Page.enable", "Network.enable"] {
        b.page_call(m, json!({}))?;
    }
    b.page_call(
        "Emulation.setDeviceMetricsOverride",
        json!({"width": VIEWPORT.0, "height": VIEWPORT.1, "deviceScaleFactor": 1, "mobile": false}),
    )?;
    Ok(())
}

/// A PNG of `url` once it fired `load` and had `settle` for late rendering, in a new page of
/// `b` at the fixed viewport (for visual evidence and UI tests).
pub fn screenshot(
    b: &mut Browser,
    url: &str,
    settle: Duration,
    load_timeout: Duration,
) -> Result<Vec<u8>, BrowserError> {
    prepare(b)?;
    let mut run = Run {
        b,
        origin: origin_of(url).unwrap_or_default().to_string(),
        requests: HashMap::new(),
        errors: Vec::new(),
        frames: Vec::new(),
        recording: false,
        loaded: false,
    };
    run.navigate(url, load_timeout)?;
    run.settle(settle)?;
    let shot = run
        .b
        .page_call("Page.captureScreenshot", json!({"format": "png"}))?;
    let data = shot.get("data").and_then(Value::as_str).unwrap_or_default();
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD
        .decode(data)
        .map_err(|e| BrowserError::Protocol {
            method: "Page.captureScreenshot".into(),
            message: format!("the image is not base64: {e}"),
        })
}

/// Loads `opts.url` in a new page of `b`, runs the steps and reports what went wrong.
pub fn check(b: &mut Browser, opts: &CheckOptions) -> Result<CheckReport, BrowserError> {
    prepare(b)?;
    let origin = origin_of(&opts.url).unwrap_or_default().to_string();
    let mut run = Run {
        b,
        origin,
        requests: HashMap::new(),
        errors: Vec::new(),
        frames: Vec::new(),
        recording: false,
        loaded: false,
    };
    if opts.video.is_some() {
        run.b.page_call(
            "Page.startScreencast",
            json!({"format": "png", "maxWidth": VIEWPORT.0, "maxHeight": VIEWPORT.1, "everyNthFrame": 1}),
        )?;
        run.recording = true;
    }
    run.navigate(&opts.url, opts.load_timeout)?;
    run.settle(opts.settle)?;
    for (i, s) in opts.steps.iter().enumerate() {
        run.step(i, s, opts)?;
        run.settle(opts.settle)?;
    }
    let mut video_frames = None;
    if let Some(path) = &opts.video {
        // The final state, even when nothing repainted since the last frame.
        let shot = run
            .b
            .page_call("Page.captureScreenshot", json!({"format": "png"}))?;
        if let Some(data) = shot.get("data").and_then(Value::as_str) {
            use base64::Engine as _;
            if let Ok(png) = base64::engine::general_purpose::STANDARD.decode(data) {
                let ts = run.frames.last().map_or(0.0, |f| f.timestamp + 1.0);
                run.frames.push(crate::video::Frame { png, timestamp: ts });
            }
        }
        if run.recording {
            run.b.page_call("Page.stopScreencast", json!({}))?;
        }
        video_frames = Some(crate::video::write_apng(&run.frames, path)?);
    }
    Ok(CheckReport {
        errors: run.errors,
        product: run.b.product.clone(),
        video_frames,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_parse_from_yaml_and_json() {
        let y = "- click: '#go'\n- type: {selector: '#q', text: hi}\n- navigate: /b.html\n- wait: 200\n- wait: '#done'\n";
        let j = r##"[{"click":"#go"},{"type":{"selector":"#q","text":"hi"}},{"navigate":"/b.html"},{"wait":200},{"wait":"#done"}]"##;
        let want = vec![
            Step::Click("#go".into()),
            Step::Type {
                selector: "#q".into(),
                text: "hi".into(),
            },
            Step::Navigate("/b.html".into()),
            Step::Wait(Wait::Ms(200)),
            Step::Wait(Wait::Selector("#done".into())),
        ];
        assert_eq!(parse_steps(y).unwrap(), want);
        assert_eq!(parse_steps(j).unwrap(), want);
        let e = parse_steps("- tap: '#x'").unwrap_err().to_string();
        assert!(e.contains("unknown variant `tap`"), "{e}");
    }

    #[test]
    fn urls_join_and_origins_split() {
        assert_eq!(
            origin_of("http://127.0.0.1:8/a/b.js?x"),
            Some("http://127.0.0.1:8")
        );
        assert_eq!(origin_of("http://h"), Some("http://h"));
        assert_eq!(
            join_url("http://h:1/a/b.html", "/c.html"),
            "http://h:1/c.html"
        );
        assert_eq!(
            join_url("http://h:1/a/b.html", "c.html"),
            "http://h:1/a/c.html"
        );
        assert_eq!(join_url("http://h:1", "c.html"), "http://h:1/c.html");
        assert_eq!(join_url("http://h:1/", "http://x/y"), "http://x/y");
    }

    #[test]
    fn requests_of_other_origins_and_the_favicon_are_not_the_page_s_problems() {
        let mut reqs = Requests::new();
        let ev = |method: &str, params: Value| Event {
            method: method.into(),
            params,
            session: None,
        };
        let o = "http://127.0.0.1:9";
        for (id, url) in [
            ("1", "http://127.0.0.1:9/x.js"),
            ("2", "http://cdn/x.js"),
            ("3", "http://127.0.0.1:9/favicon.ico"),
        ] {
            on_event(
                &ev(
                    "Network.requestWillBeSent",
                    json!({"requestId": id, "request": {"url": url, "method": "GET"}}),
                ),
                o,
                &mut reqs,
            );
        }
        let resp = |id: &str, url: &str| {
            ev(
                "Network.responseReceived",
                json!({"requestId": id, "response": {"url": url, "status": 404, "statusText": "Not Found"}}),
            )
        };
        let e = on_event(&resp("1", "http://127.0.0.1:9/x.js"), o, &mut reqs).unwrap();
        assert_eq!(e.message, "GET /x.js 404 Not Found");
        assert!(on_event(&resp("2", "http://cdn/x.js"), o, &mut reqs).is_none());
        assert!(on_event(&resp("3", "http://127.0.0.1:9/favicon.ico"), o, &mut reqs).is_none());
    }
}
