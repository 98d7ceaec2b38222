//! Real headless Chromium: launch and shutdown, a killed browser, page checks.

use std::path::Path;
use std::time::{Duration, Instant};

use loki_browser::page::PageErrorKind;
use loki_browser::{Browser, BrowserError, PageRun, Step, run_page};
use serde_json::json;

/// True while any process of group `pgid` exists.
fn group_alive(pgid: u32) -> bool {
    let pid = rustix::process::Pid::from_raw(i32::try_from(pgid).unwrap()).unwrap();
    rustix::process::test_kill_process_group(pid).is_ok()
}

fn wait_gone(pgid: u32) -> bool {
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        if !group_alive(pgid) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

fn site(files: &[(&str, &str)]) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    for (name, text) in files {
        let p = d.path().join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    d
}

fn check(
    program: &Path,
    dir: &Path,
    url: &str,
    steps: Vec<Step>,
) -> Result<loki_browser::PageOutcome, BrowserError> {
    run_page(
        program,
        &PageRun {
            url: url.into(),
            serve: Some(dir.to_path_buf()),
            server: vec![],
            cwd: dir.to_path_buf(),
            steps,
            settle: Duration::from_millis(300),
            load_timeout: Duration::from_secs(20),
            video: None,
        },
    )
}

#[test]
fn close_stops_the_whole_group_and_removes_the_profile() {
    let Some(program) = loki_test_support::require_browser() else {
        return;
    };
    let mut b = Browser::launch(&program).unwrap();
    assert!(b.product.contains("Chrome"), "{}", b.product);
    let (pgid, profile) = (b.pid(), b.profile_dir().unwrap().to_path_buf());
    assert!(group_alive(pgid));
    b.open_page().unwrap();
    let r = b
        .page_call(
            "Runtime.evaluate",
            json!({"expression": "6 * 7", "returnByValue": true}),
        )
        .unwrap();
    assert_eq!(r["result"]["value"], 42);
    b.close();
    assert!(
        wait_gone(pgid),
        "browser processes of group {pgid} outlived close()"
    );
    assert!(
        !profile.exists(),
        "profile {} left behind",
        profile.display()
    );
}

#[test]
fn a_killed_browser_is_reported_and_leaves_no_process() {
    let Some(program) = loki_test_support::require_browser() else {
        return;
    };
    let mut b = Browser::launch(&program).unwrap();
    let pgid = b.pid();
    b.open_page().unwrap();
    let pid = rustix::process::Pid::from_raw(i32::try_from(pgid).unwrap()).unwrap();
    rustix::process::kill_process(pid, rustix::process::Signal::KILL).unwrap();
    let e = b
        .page_call("Runtime.evaluate", json!({"expression": "1"}))
        .unwrap_err();
    assert!(matches!(e, BrowserError::Gone { .. }), "{e}");
    // The runner kills the rest of the group once the leader is gone.
    assert!(wait_gone(pgid), "renderers of group {pgid} were orphaned");
    drop(b);
}

#[test]
fn errors_on_load_after_a_click_and_in_promises_are_collected_with_frames() {
    let Some(program) = loki_test_support::require_browser() else {
        return;
    };
    let d = site(&[
        (
            "index.html",
            "<!doctype html><button id=go>go</button><script src=app.js></script>\n",
        ),
        (
            "app.js",
            "function boom() {\n  null.x;\n}\ndocument.getElementById('go').addEventListener('click', () => boom());\nPromise.reject(new Error('nope'));\nconsole.error('bad', 42);\nfetch('/missing.json');\n",
        ),
    ]);
    let out = check(
        &program,
        d.path(),
        "/index.html",
        vec![Step::Click("#go".into())],
    )
    .unwrap();
    let errs = &out.report.errors;
    let kinds: Vec<PageErrorKind> = errs.iter().map(|e| e.kind).collect();
    assert!(kinds.contains(&PageErrorKind::Rejection), "{errs:#?}");
    assert!(kinds.contains(&PageErrorKind::ConsoleError), "{errs:#?}");
    assert!(kinds.contains(&PageErrorKind::Request), "{errs:#?}");
    let ex = errs
        .iter()
        .find(|e| e.kind == PageErrorKind::Exception)
        .unwrap();
    assert_eq!(ex.name, "TypeError");
    assert_eq!(ex.frames[0].function, "boom");
    assert!(ex.frames[0].url.ends_with("/app.js"), "{:?}", ex.frames[0]);
    assert_eq!(ex.frames[0].line, 2);
    let c = errs
        .iter()
        .find(|e| e.kind == PageErrorKind::ConsoleError)
        .unwrap();
    assert_eq!(c.message, "bad 42");
    let r = errs
        .iter()
        .find(|e| e.kind == PageErrorKind::Request)
        .unwrap();
    assert_eq!(r.message, "GET /missing.json 404 Not Found");
}

#[test]
fn a_step_that_matches_nothing_and_a_page_that_never_loads_are_harness_errors() {
    let Some(program) = loki_test_support::require_browser() else {
        return;
    };
    let d = site(&[("index.html", "<p>ok</p>")]);
    let e = check(&program, d.path(), "/", vec![Step::Click("#nope".into())]).unwrap_err();
    assert!(matches!(&e, BrowserError::Step { index: 1, .. }), "{e}");
    assert!(e.is_page_problem());
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let e = run_page(
        &program,
        &PageRun {
            url: format!("http://127.0.0.1:{port}/"),
            serve: None,
            server: vec!["sleep".into(), "30".into()],
            cwd: d.path().to_path_buf(),
            steps: vec![],
            settle: Duration::from_millis(100),
            load_timeout: Duration::from_secs(2),
            video: None,
        },
    )
    .unwrap_err();
    assert!(matches!(&e, BrowserError::NotLoaded { .. }), "{e}");
    assert!(e.to_string().contains("never loaded"), "{e}");
}

#[test]
fn a_screencast_becomes_an_animated_png() {
    let Some(program) = loki_test_support::require_browser() else {
        return;
    };
    let d = site(&[(
        "index.html",
        "<!doctype html><body style='background:#fff'><button id=go onclick=\"document.body.style.background='#c00'\">go</button>",
    )]);
    let video = d.path().join("replay.png");
    let out = run_page(
        &program,
        &PageRun {
            url: "/".into(),
            serve: Some(d.path().to_path_buf()),
            server: vec![],
            cwd: d.path().to_path_buf(),
            steps: vec![Step::Click("#go".into())],
            settle: Duration::from_millis(300),
            load_timeout: Duration::from_secs(20),
            video: Some(video.clone()),
        },
    )
    .unwrap();
    let frames = out.report.video_frames.unwrap();
    assert!(frames >= 1);
    let bytes = std::fs::read(&video).unwrap();
    let reader = png::Decoder::new(std::io::Cursor::new(&bytes))
        .read_info()
        .unwrap();
    let info = reader.info();
    assert_eq!((info.width, info.height), (800, 600));
    assert_eq!(info.animation_control.unwrap().num_frames as usize, frames);
}

#[test]
fn a_screenshot_is_a_png_of_the_viewport() {
    let Some(program) = loki_test_support::require_browser() else {
        return;
    };
    let d = site(&[("index.html", "<!doctype html><h1>hello</h1>")]);
    let server = loki_browser::serve::Server::start(d.path()).unwrap();
    let mut b = Browser::launch(&program).unwrap();
    let png_bytes = loki_browser::page::screenshot(
        &mut b,
        &format!("{}/", server.origin()),
        Duration::from_millis(100),
        Duration::from_secs(20),
    )
    .unwrap();
    let reader = png::Decoder::new(std::io::Cursor::new(&png_bytes))
        .read_info()
        .unwrap();
    assert_eq!((reader.info().width, reader.info().height), (800, 600));
    // A page that does not answer is NotLoaded, not an empty image.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let e = loki_browser::page::screenshot(
        &mut b,
        &format!("http://127.0.0.1:{port}/"),
        Duration::from_millis(100),
        Duration::from_secs(5),
    )
    .unwrap_err();
    assert!(matches!(e, BrowserError::NotLoaded { .. }), "{e}");
}
