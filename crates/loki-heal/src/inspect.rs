//! Looking at a recorded incident without healing it: `loki fix` without `--apply` (the
//! diagnosis) and `loki replay` (one run of its reproduction).
//!
//! Both read the incident of a run checked to hold one ([`crate::fix::incident_dir`],
//! [`crate::incident::load`]) and change no file of the repository. A replay asked for a video
//! ([`crate::web::replay_video`]) removes the video an earlier replay left first, so an old one
//! can never pass for this one's; the video is reported only when this replay wrote it.

use std::path::PathBuf;

use loki_core::RunId;
use loki_core::layout::Repo;

use crate::{HealError, Incident, Replay, Resolution};

/// What `loki fix` shows about an incident.
#[derive(Debug)]
pub struct Diagnosis {
    /// The incident's run directory.
    pub dir: PathBuf,
    pub incident: Incident,
    /// Its frames as files of the repository, and the frames refused.
    pub resolution: Resolution,
    /// The text of the crashing line of the innermost source file, when it can be read.
    pub crash_line: Option<String>,
}

/// The diagnosis of the incident recorded in `run`.
///
/// # Errors
/// `run` holds no incident, or its incident cannot be read.
pub fn diagnose(repo: &Repo, run: &RunId) -> Result<Diagnosis, HealError> {
    let dir = crate::fix::incident_dir(repo, run)?;
    let (incident, _) = crate::incident::load(&dir)?;
    let resolution = crate::resolve(&repo.root, &incident);
    let crash_line = resolution.crash_line();
    Ok(Diagnosis {
        dir,
        incident,
        resolution,
        crash_line,
    })
}

/// What `loki replay` established.
#[derive(Debug)]
pub struct Replayed {
    pub incident: Incident,
    pub replay: Replay,
    /// The screencast this replay wrote, when `--video` asked for one and the page check wrote it.
    pub video: Option<PathBuf>,
}

/// Runs the reproduction of the incident recorded in `run` once, with a screencast when `video`
/// (a web page's incident only).
///
/// # Errors
/// `run` holds no incident or no reproduction script, a video was asked of a process crash
/// ([`HealError::NotAPage`]), or the script could not be run.
pub fn replay(repo: &Repo, run: &RunId, video: bool) -> Result<Replayed, HealError> {
    let dir = crate::fix::incident_dir(repo, run)?;
    let (incident, _) = crate::incident::load(&dir)?;
    let (path, extra) = crate::web::replay_video(&dir, &incident, run.as_str(), video)?;
    let replay = crate::repro::run_with(&dir, &incident, None, &[], &extra)?;
    Ok(Replayed {
        incident,
        replay,
        video: (video && path.is_file()).then_some(path),
    })
}
