//! The user guide (`docs/guide/`, an mdBook) is tested like code:
//!
//! - every `console` block of every chapter is run against the built binary in a fresh home
//!   (scripted or no model, loopback only) and its output compared (see `book` for the format,
//!   `session` for how a command runs and how volatile values are matched);
//! - every `loki` command in a shown-only `sh` block is parsed by the real binary, so the guide
//!   names no command or flag that does not exist;
//! - SUMMARY.md lists every chapter, and `mdbook build` renders them all with no internal link
//!   that leads nowhere (mdBook itself checks none).
//!
//! `LOKI_GUIDE_BLESS=1` writes what the commands printed into the chapters instead of failing,
//! for a chapter's author to review (then put `...`, `[..]` and the values later commands name
//! back where the guide needs them).

#![expect(
    clippy::panic,
    clippy::print_stderr,
    reason = "a guide test fails with the chapter, line and both outputs, and says how many commands it ran"
)]

mod book;
mod fixtures;
mod session;

use std::path::{Path, PathBuf};
use std::process::Command;

use book::{Block, blocks, steps, summary_chapters};
use session::{Session, loki_bin};

/// Runs every console block of a chapter; returns how many commands ran.
fn run_chapter(file: &str) -> usize {
    let text = std::fs::read_to_string(book::src_dir().join(file)).unwrap();
    let consoles: Vec<Block> = blocks(&text)
        .into_iter()
        .filter(|b| b.lang == "console")
        .collect();
    let documented: usize = consoles.iter().map(|b| steps(file, b).len()).sum();
    let mut ran = 0;
    let mut session: Option<Session> = None;
    let bless = loki_core::env::GUIDE_BLESS.get_os().is_some();
    let mut blessed = Vec::new();
    for block in &consoles {
        if block.fixture.is_some() || session.is_none() {
            ran += session.take().map_or(0, |s| s.ran);
            match Session::new(block.fixture.as_deref().unwrap_or("home")) {
                Some(s) => session = Some(s),
                // A tool the fixture needs is missing (outside CI): the chapter is skipped.
                None => return 0,
            }
        }
        let s = session.as_mut().unwrap();
        for step in steps(file, block) {
            if let Some(actual) = s.run(&step, bless) {
                blessed.push((step.output_line, step.expected.len(), actual));
            }
        }
    }
    ran += session.map_or(0, |s| s.ran);
    if !blessed.is_empty() {
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        for (at, len, actual) in blessed.into_iter().rev() {
            lines.splice(at..at + len, actual);
        }
        std::fs::write(book::src_dir().join(file), lines.join("\n") + "\n").unwrap();
        panic!(
            "{file}: LOKI_GUIDE_BLESS rewrote the output of commands that differed: read the diff"
        );
    }
    assert_eq!(ran, documented, "{file}: every console command runs");
    eprintln!("guide: {file}: {ran} console commands run and matched");
    ran
}

/// One test per chapter that has console blocks (libtest runs them in parallel); `CHAPTERS`
/// lists them so a chapter with commands and no test fails `every_console_block_is_run`.
macro_rules! chapters {
    ($($name:ident => $file:literal,)*) => {
        const CHAPTERS: &[&str] = &[$($file),*];
        $(
            #[test]
            fn $name() {
                run_chapter($file);
            }
        )*
    };
}

chapters! {
    getting_started => "getting-started.md",
    stop_hook => "stop-hook.md",
    ci => "ci.md",
    receipts => "receipts.md",
    configuration => "configuration.md",
    control_plane => "control-plane.md",
    improve => "improve.md",
    crash_to_fix => "crash-to-fix.md",
    troubleshooting => "troubleshooting.md",
}

/// Every Markdown file under `src/`, relative.
fn markdown_files() -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(book::src_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .collect();
    out.sort();
    out
}

#[test]
fn every_console_block_is_run_and_every_chapter_is_in_the_summary() {
    let mut listed = summary_chapters();
    listed.push("SUMMARY.md".to_string());
    let mut commands = 0;
    for file in markdown_files() {
        assert!(
            listed.contains(&file),
            "{file} is not linked from SUMMARY.md"
        );
        let text = std::fs::read_to_string(book::src_dir().join(&file)).unwrap();
        let n: usize = blocks(&text)
            .iter()
            .filter(|b| b.lang == "console")
            .map(|b| steps(&file, b).len())
            .sum();
        assert!(
            n == 0 || CHAPTERS.contains(&file.as_str()),
            "{file} has {n} console commands but no test runs it: add it to chapters! in guide/mod.rs"
        );
        commands += n;
    }
    for c in CHAPTERS {
        assert!(
            listed.iter().any(|l| l == c),
            "{c} is tested but not in SUMMARY.md"
        );
    }
    assert!(commands >= 50, "the guide runs {commands} console commands");
    eprintln!(
        "guide: {commands} console commands in {} chapters",
        CHAPTERS.len()
    );
}

/// A `sh` block is shown, not run: each `loki` command in it must still parse (`--help` after
/// its arguments: clap refuses an unknown command, flag or value before it prints help), and no
/// block of another language may hold a command.
#[test]
fn every_shown_only_loki_command_parses() {
    let sb = loki_test_support::Sandbox::new();
    let mut parsed = 0;
    let commands = top_level_commands();
    for file in markdown_files() {
        let text = std::fs::read_to_string(book::src_dir().join(&file)).unwrap();
        for block in blocks(&text) {
            match block.lang.as_str() {
                "console" => continue,
                "sh" => {}
                other => {
                    for l in &block.body {
                        let t = l.trim_start();
                        assert!(
                            !t.starts_with("$ ") && !t.starts_with("loki "),
                            "{file}:{}: a command in a `{other}` block: use `console` (run) or `sh` (shown, parsed)",
                            block.line
                        );
                    }
                    continue;
                }
            }
            for line in &block.body {
                for args in book::loki_invocations(line) {
                    let mut args = args;
                    if let Some(dashdash) = args.iter().position(|a| a == "--") {
                        args.truncate(dashdash);
                    }
                    // A first word that names no command is a task, which `--help` would
                    // accept whatever it is: a misspelt command must not pass as one.
                    if let Some(first) = args.first().filter(|a| !a.starts_with('-')) {
                        assert!(
                            commands.contains(first) || first.contains([' ', '/', '#', ':']),
                            "{file}:{}: `loki {}`: `{first}` is no command, and a task is quoted text or an issue reference",
                            block.line,
                            args.join(" ")
                        );
                    }
                    let out = Command::new(loki_bin())
                        .args(&args)
                        .arg("--help")
                        .env_clear()
                        .env("HOME", sb.home())
                        .env("LOKI_HOME", sb.loki_home())
                        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
                        .current_dir(sb.home())
                        .output()
                        .unwrap();
                    assert!(
                        out.status.success(),
                        "{file}:{}: `loki {}` does not parse: {}",
                        block.line,
                        args.join(" "),
                        String::from_utf8_lossy(&out.stderr)
                    );
                    parsed += 1;
                }
            }
        }
    }
    assert!(parsed >= 10, "{parsed} shown-only loki commands");
    eprintln!("guide: {parsed} shown-only loki commands parsed");
}

/// The command names `loki --help` lists.
fn top_level_commands() -> Vec<String> {
    let out = Command::new(loki_bin()).arg("--help").output().unwrap();
    let help = String::from_utf8(out.stdout).unwrap();
    let list = help
        .split("Commands:\n")
        .nth(1)
        .and_then(|r| r.split("\n\n").next())
        .unwrap();
    let names: Vec<String> = list
        .lines()
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect();
    assert!(
        names.iter().any(|n| n == "seal") && names.len() > 20,
        "{names:?}"
    );
    names
}

/// `mdbook build` renders every chapter, and every relative link and anchor of the rendered
/// book resolves.
#[test]
fn the_book_builds_with_every_chapter_and_no_broken_link() {
    let Some(mdbook) = loki_test_support::require_mdbook() else {
        return;
    };
    let out_dir = tempfile::tempdir().unwrap();
    let guide = book::src_dir().parent().unwrap().to_path_buf();
    let out = Command::new(&mdbook)
        .arg("build")
        .arg(&guide)
        .arg("--dest-dir")
        .arg(out_dir.path())
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "mdbook build failed: {said}");
    assert!(!said.contains("WARN") && !said.contains("ERROR"), "{said}");
    for chapter in summary_chapters() {
        let html = out_dir.path().join(chapter.replace(".md", ".html"));
        let text = std::fs::read_to_string(&html)
            .unwrap_or_else(|e| panic!("{chapter} was not rendered: {e}"));
        let title = std::fs::read_to_string(book::src_dir().join(&chapter))
            .unwrap()
            .lines()
            .find_map(|l| l.strip_prefix("# ").map(str::to_string))
            .unwrap_or_else(|| panic!("{chapter} has no `# ` title"));
        // mdBook's smart punctuation curls apostrophes.
        assert!(
            text.contains(&html_escape(&title))
                || text.contains(&html_escape(&title.replace('\'', "\u{2019}"))),
            "{chapter}: its title is not in {}",
            html.display()
        );
    }
    let broken = broken_links(out_dir.path());
    assert!(
        broken.is_empty(),
        "links that lead nowhere:\n{}",
        broken.join("\n")
    );
}

fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Every `href`/`src` of the rendered HTML that is relative: its file exists, and its
/// `#fragment`, if any, is an `id` in that file. (Absolute paths are the site's root, which
/// mdBook's 404 page links and a deployment decides.)
fn broken_links(root: &Path) -> Vec<String> {
    let attr = regex::Regex::new(r#"(?:href|src)="([^"]*)""#).unwrap();
    let mut broken = Vec::new();
    let mut pages: Vec<PathBuf> = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "html") {
                pages.push(p);
            }
        }
    }
    let mut checked = 0;
    for page in &pages {
        let html = std::fs::read_to_string(page).unwrap();
        for cap in attr.captures_iter(&html) {
            let link = &cap[1];
            if link.is_empty()
                || link.contains("://")
                || link.starts_with('/')
                || link.starts_with("mailto:")
                || link.starts_with("data:")
                || link.starts_with("javascript:")
            {
                continue;
            }
            let (path, fragment) = link.split_once('#').unwrap_or((link, ""));
            let path = path.split('?').next().unwrap_or("");
            let target = if path.is_empty() {
                page.clone()
            } else {
                page.parent().unwrap().join(path)
            };
            checked += 1;
            let target = if target.is_dir() {
                target.join("index.html")
            } else {
                target
            };
            let Ok(text) = std::fs::read_to_string(&target)
                .or_else(|_| std::fs::read(&target).map(|_| String::new()))
            else {
                broken.push(format!(
                    "{}: {link}",
                    page.strip_prefix(root).unwrap().display()
                ));
                continue;
            };
            if !fragment.is_empty() && !text.contains(&format!("id=\"{fragment}\"")) {
                broken.push(format!(
                    "{}: {link} (no id `{fragment}`)",
                    page.strip_prefix(root).unwrap().display()
                ));
            }
        }
    }
    assert!(
        checked > 100,
        "only {checked} links checked: is this the rendered book?"
    );
    broken
}
