//! A client's interactive TUI driven through a pseudo-terminal (`script` from util-linux, as
//! `build_flags` uses it): keys in on `script`'s stdin, the screen read from its stdout.

use std::io::{Read as _, Write as _};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use loki_test_support::Sandbox;

/// A whole TUI session takes seconds; this only stops a hung client.
const TUI_DEADLINE: Duration = Duration::from_secs(180);

/// An interactive client under `script` (a pseudo-terminal), its screen output collected as it
/// comes.
pub struct Tui {
    child: std::process::Child,
    input: std::process::ChildStdin,
    screen: Arc<Mutex<Vec<u8>>>,
}

impl Tui {
    /// Starts `line` (a shell command line) in `dir` under `script`, with the sandbox's
    /// environment plus `env` and a 200×50 terminal.
    pub fn start(sb: &Sandbox, dir: &Path, line: &str, env: &[(&str, &str)]) -> Tui {
        let line = format!("stty cols 200 rows 50; exec {line}");
        let mut cmd = Command::new("script");
        sb.apply(&mut cmd).current_dir(dir);
        let mut child = cmd
            .env("TERM", "xterm-256color")
            .envs(env.iter().copied())
            .args(["-qfec", &line, "/dev/null"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let input = child.stdin.take().unwrap();
        let mut out = child.stdout.take().unwrap();
        let screen = Arc::new(Mutex::new(Vec::new()));
        let sink = screen.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            while let Ok(n) = out.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        });
        Tui {
            child,
            input,
            screen,
        }
    }

    /// The screen output so far, escape sequences removed.
    pub fn text(&self) -> String {
        strip_escapes(&String::from_utf8_lossy(&self.screen.lock().unwrap()))
    }

    /// Waits until `pred` holds for the screen text with every run of blanks and line breaks
    /// made one space (a TUI may draw the words of one line by moving the cursor).
    pub fn wait_for(&self, what: &str, pred: impl Fn(&str) -> bool) {
        let start = Instant::now();
        let flat = |t: String| t.split_whitespace().collect::<Vec<_>>().join(" ");
        while !pred(&flat(self.text())) {
            let text = self.text();
            let tail = text
                .char_indices()
                .rev()
                .nth(4000)
                .map_or(text.as_str(), |(i, _)| &text[i..]);
            assert!(
                start.elapsed() < TUI_DEADLINE,
                "the TUI never showed {what}; the end of its screen:\n{tail}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Types `keys`; an error means the client (and so `script`) has ended.
    pub fn send(&mut self, keys: &str) -> std::io::Result<()> {
        self.input.write_all(keys.as_bytes())?;
        self.input.flush()
    }

    /// Types `prompt` and submits it.
    pub fn ask(&mut self, prompt: &str) {
        self.send(prompt).unwrap();
        std::thread::sleep(Duration::from_millis(500));
        self.send("\r").unwrap();
    }

    /// Ctrl-C twice (how Claude Code, Codex and Gemini CLI exit), then waits for the client to
    /// end (at most 20 s, then the drop ends it).
    pub fn quit(mut self) {
        let start = Instant::now();
        while self.child.try_wait().unwrap().is_none() && start.elapsed() < Duration::from_secs(20)
        {
            // One may be enough: the second then finds no reader.
            let _ = self.send("\x03");
            std::thread::sleep(Duration::from_millis(300));
            let _ = self.send("\x03");
            std::thread::sleep(Duration::from_secs(1));
        }
    }
}

impl Drop for Tui {
    /// Ends the client and `script` (after a failed assertion too): not every client ends on
    /// the SIGHUP of its closed pseudo-terminal.
    fn drop(&mut self) {
        let script = self.child.id();
        let children = std::fs::read_to_string(format!("/proc/{script}/task/{script}/children"))
            .unwrap_or_default();
        for pid in children.split_whitespace() {
            let _ = Command::new("kill").args(["-KILL", pid]).status();
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The text drawn, roughly: OSC sequences dropped, a cursor move right or to a column as a space
/// (TUIs move over the blanks between words), one down or to a position as a new line,
/// other CSI sequences dropped.
fn strip_escapes(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\x1b' => match chars.next() {
                Some('[') => {
                    for c in chars.by_ref() {
                        if ('@'..='~').contains(&c) {
                            match c {
                                'C' | 'G' => out.push(' '),
                                'B' | 'E' | 'H' | 'f' => out.push('\n'),
                                _ => {}
                            }
                            break;
                        }
                    }
                }
                Some(']') => {
                    while let Some(c) = chars.next() {
                        if c == '\x07' || (c == '\x1b' && chars.next_if_eq(&'\\').is_some()) {
                            break;
                        }
                    }
                }
                _ => {}
            },
            '\r' => out.push('\n'),
            c => out.push(c),
        }
    }
    out
}
