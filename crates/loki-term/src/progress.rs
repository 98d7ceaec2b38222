//! What a build run shows while it goes, on stderr (stdout is kept for the summary):
//!
//! - **Quiet on a terminal** (the default): one live status line, redrawn every
//!   [`TICK`]: `… implement 12s · run 41s`. It is erased before the summary is printed, so a
//!   finished run leaves only the summary behind.
//! - **`--verbose`**: the run id and branch, one line per stage as it ends (`stage state seconds
//!   detail`), the engine's notes, and a heartbeat line when a stage has been running for another
//!   `output.heartbeat_s` seconds (default 30): `… implement still running (1m00s, run 1m31s)`.
//!   No control characters are written, so the lines read the same in a CI log.
//! - **Neither** (a pipe, `--json`, `--quiet`): nothing.
//!
//! The engine reports through [`Observer`]; a ticker thread ([`Printer::run_ticking`]) redraws and
//! beats between events. Write errors on stderr are ignored: losing a progress line must never
//! fail a run.

use std::io::Write;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use loki_engine::{Observer, Progress};

use crate::style::{DIM, paint};

/// How often the live line is redrawn.
pub const TICK: Duration = Duration::from_secs(1);
/// Default seconds between heartbeat lines (`output.heartbeat_s`).
pub const DEFAULT_HEARTBEAT: Duration = Duration::from_secs(30);
/// How often the ticker looks at the clock (so it stops promptly when the run ends).
const POLL: Duration = Duration::from_millis(100);
/// Erases the terminal line the cursor is on.
const ERASE: &str = "\r\x1b[2K";

/// The stage in flight and when things started.
#[derive(Debug)]
struct State {
    run_started: Instant,
    stage: Option<(&'static str, Instant)>,
    /// Heartbeats already printed for the stage in flight.
    beats: u32,
    /// The live line is on screen and must be erased before anything else is written.
    line_shown: bool,
}

/// Prints progress (see the module doc).
pub struct Printer {
    verbose: bool,
    live: bool,
    color: bool,
    heartbeat: Duration,
    state: Mutex<State>,
    out: Mutex<Box<dyn Write + Send>>,
}

impl std::fmt::Debug for Printer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Printer")
            .field("verbose", &self.verbose)
            .field("live", &self.live)
            .field("color", &self.color)
            .field("heartbeat", &self.heartbeat)
            .finish_non_exhaustive()
    }
}

impl Printer {
    /// A printer writing to `out`; `live` draws the status line, `verbose` prints lines, `color`
    /// dims them. `out` is a raw stream: the live line's erase sequence must reach the terminal
    /// even when colour is off.
    pub fn new(
        verbose: bool,
        live: bool,
        color: bool,
        heartbeat: Duration,
        out: Box<dyn Write + Send>,
    ) -> Self {
        Printer {
            verbose,
            color,
            // The verbose lines replace the live line: both at once would garble each other.
            live: live && !verbose,
            heartbeat: heartbeat.max(TICK),
            state: Mutex::new(State {
                run_started: Instant::now(),
                stage: None,
                beats: 0,
                line_shown: false,
            }),
            out: Mutex::new(out),
        }
    }

    /// The printer of a build run on this process's stderr: the live line on a terminal unless
    /// `quiet` (`--json`, `-q`), lines with `verbose`, dimmed when stderr shows colour; a
    /// heartbeat every `heartbeat_s` seconds (`output.heartbeat_s`, else [`DEFAULT_HEARTBEAT`]).
    #[must_use]
    pub fn stderr(verbose: bool, quiet: bool, heartbeat_s: Option<u64>) -> Self {
        let heartbeat = heartbeat_s.map_or(DEFAULT_HEARTBEAT, Duration::from_secs);
        let err = std::io::stderr();
        let color = anstream::AutoStream::choice(&err) != anstream::ColorChoice::Never;
        let live = std::io::IsTerminal::is_terminal(&err) && !quiet;
        Printer::new(verbose, live, color, heartbeat, Box::new(err))
    }

    /// Runs `f` while a ticker thread redraws the live line and prints heartbeats; the live line
    /// is erased when `f` returns.
    pub fn run_ticking<T>(&self, f: impl FnOnce() -> T) -> T {
        if !self.live && !self.verbose {
            return f();
        }
        let done = std::sync::atomic::AtomicBool::new(false);
        let result = std::thread::scope(|scope| {
            scope.spawn(|| {
                let mut last_draw = Instant::now();
                while !done.load(std::sync::atomic::Ordering::Relaxed) {
                    std::thread::sleep(POLL);
                    let now = Instant::now();
                    // Heartbeats are checked every poll so they land on time; redraws once a tick.
                    if self.verbose || now.duration_since(last_draw) >= TICK {
                        self.tick(now);
                        last_draw = now;
                    }
                }
            });
            let r = f();
            done.store(true, std::sync::atomic::Ordering::Relaxed);
            r
        });
        self.clear();
        result
    }

    /// Redraws the live line or prints a due heartbeat, as of `now`.
    pub fn tick(&self, now: Instant) {
        let Ok(mut st) = self.state.lock() else {
            return;
        };
        let Some((stage, since)) = st.stage else {
            return;
        };
        let in_stage = now.saturating_duration_since(since);
        let in_run = now.saturating_duration_since(st.run_started);
        if self.live {
            let line = status_line(stage, in_stage, in_run);
            self.write(&format!("{ERASE}{line}"));
            st.line_shown = true;
        } else if self.verbose {
            let due = u32::try_from(in_stage.as_secs() / self.heartbeat.as_secs().max(1))
                .unwrap_or(u32::MAX);
            if due > st.beats {
                st.beats = due;
                // Whole seconds, so the beats read 30s, 1m00s, … rather than drift with the poll.
                let whole = |d: Duration| Duration::from_secs(d.as_secs());
                self.line(&heartbeat_line(stage, whole(in_stage), whole(in_run)));
            }
        }
    }

    /// Erases the live line if it is shown.
    pub fn clear(&self) {
        if let Ok(mut st) = self.state.lock()
            && st.line_shown
        {
            self.write(ERASE);
            st.line_shown = false;
        }
    }

    fn write(&self, text: &str) {
        if let Ok(mut out) = self.out.lock() {
            let _ = out.write_all(text.as_bytes());
            let _ = out.flush();
        }
    }

    fn line(&self, text: &str) {
        if self.color {
            self.write(&format!("{}\n", paint(DIM, text)));
        } else {
            self.write(&format!("{text}\n"));
        }
    }
}

impl Observer for Printer {
    fn progress(&self, event: &Progress) {
        match event {
            Progress::StageStarted { stage } => {
                if let Ok(mut st) = self.state.lock() {
                    st.stage = Some((stage.as_str(), Instant::now()));
                    st.beats = 0;
                }
                if self.live {
                    self.tick(Instant::now());
                }
            }
            Progress::Started { run_id, branch, .. } if self.verbose => {
                self.line(&format!("run {run_id} on branch {branch}"));
            }
            Progress::StageEnded {
                stage,
                state,
                seconds,
                detail,
            } if self.verbose => {
                let took = loki_core::time::human_duration(*seconds);
                self.line(&format!("{stage:<10} {state:<9} {took:>7}  {detail}"));
            }
            Progress::Note(n) if self.verbose => self.line(n),
            Progress::Started { .. } | Progress::StageEnded { .. } | Progress::Note(_) => {}
        }
    }
}

/// The live line: `… <stage> <stage time> · run <run time>`.
#[must_use]
pub fn status_line(stage: &str, in_stage: Duration, in_run: Duration) -> String {
    format!(
        "… {stage} {} · run {}",
        loki_core::time::human_duration(in_stage.as_secs_f64()),
        loki_core::time::human_duration(in_run.as_secs_f64())
    )
}

/// A heartbeat: `… <stage> still running (<stage time>, run <run time>)`.
#[must_use]
pub fn heartbeat_line(stage: &str, in_stage: Duration, in_run: Duration) -> String {
    format!(
        "… {stage} still running ({}, run {})",
        loki_core::time::human_duration(in_stage.as_secs_f64()),
        loki_core::time::human_duration(in_run.as_secs_f64())
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use loki_protocol::{Stage, StageState};
    use std::sync::Arc;

    /// A writer the test can read back.
    #[derive(Clone, Default)]
    struct Buf(Arc<Mutex<Vec<u8>>>);

    impl Write for Buf {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl Buf {
        fn text(&self) -> String {
            String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
        }
    }

    fn started(p: &Printer, stage: Stage) -> Instant {
        p.progress(&Progress::StageStarted { stage });
        p.state.lock().unwrap().stage.unwrap().1
    }

    #[test]
    fn the_live_line_is_redrawn_in_place_and_erased_at_the_end() {
        let buf = Buf::default();
        let p = Printer::new(false, true, false, DEFAULT_HEARTBEAT, Box::new(buf.clone()));
        let t = started(&p, Stage::Implement);
        p.tick(t + Duration::from_secs(12));
        p.clear();
        let text = buf.text();
        assert!(
            text.starts_with("\r\x1b[2K… implement 0ms · run "),
            "{text:?}"
        );
        assert!(
            text.contains("\r\x1b[2K… implement 12s · run 12s"),
            "{text:?}"
        );
        assert!(
            text.ends_with("\r\x1b[2K"),
            "erased before the summary: {text:?}"
        );
        assert!(!text.contains('\n'), "one line, never scrolled: {text:?}");
    }

    #[test]
    fn verbose_prints_stage_lines_and_a_heartbeat_per_interval() {
        let buf = Buf::default();
        let p = Printer::new(
            true,
            true,
            false,
            Duration::from_secs(30),
            Box::new(buf.clone()),
        );
        let t = started(&p, Stage::Implement);
        for s in [10, 29, 30, 31, 59, 61, 95] {
            p.tick(t + Duration::from_secs(s));
        }
        p.progress(&Progress::StageEnded {
            stage: Stage::Implement,
            state: StageState::Completed,
            seconds: 95.0,
            detail: "done".into(),
        });
        let text = buf.text();
        let beats: Vec<&str> = text
            .lines()
            .filter(|l| l.contains("still running"))
            .collect();
        assert_eq!(
            beats,
            [
                "… implement still running (30s, run 30s)",
                "… implement still running (1m01s, run 1m01s)",
                "… implement still running (1m35s, run 1m35s)",
            ],
            "{text}"
        );
        assert!(
            text.contains("implement  completed   1m35s  done"),
            "{text}"
        );
        assert!(
            !text.contains(['\r', '\x1b']),
            "plain lines without colour: {text:?}"
        );
    }

    #[test]
    fn nothing_is_printed_off_a_terminal_without_verbose() {
        let buf = Buf::default();
        let p = Printer::new(false, false, true, DEFAULT_HEARTBEAT, Box::new(buf.clone()));
        let t = started(&p, Stage::Verify);
        p.tick(t + Duration::from_secs(100));
        let r = p.run_ticking(|| 7);
        assert_eq!(r, 7);
        assert_eq!(buf.text(), "");
    }
}
