//! The tools of the built-in loop and how each call is executed.
//!
//! | tool | arguments | effect |
//! | --- | --- | --- |
//! | `read_file` | `path`, optional `offset` (1-based line), `limit` (lines) | the file's text |
//! | `list_files` | optional `path` (default `.`) | files under it, recursively, sorted |
//! | `search` | `query` (literal text), optional `path` | `path:line: text` for each match |
//! | `write_file` | `path`, `content` | creates or replaces the file (atomic write) |
//! | `edit` | `path`, `search`, `replace` | one search/replace through `loki-patch` |
//! | `apply_patch` | `patch` (`*** Begin Patch` … `*** End Patch`) | all-or-nothing, through `loki-patch` |
//! | `run` | `command`, optional `timeout_s` | `sh -c` in the worktree via the process runner |
//! | `finish` | `status` (`done`, `already_done`, `spec_conflict`), `detail` | ends the session |
//!
//! Every path goes through [`Worktree::resolve`] (see [`crate::confine`]). `run` uses
//! [`loki_process`]: own process group, stdin null, the scrubbed environment (no tokens or
//! keys), a timeout, and output capped head+tail. Listing and search walk the project as git sees
//! it ([`loki_core::walk`] with [`Visibility::Project`]: `.gitignore` and `.git/info/exclude`
//! honoured, `.git` and `.loki` never walked); search reads a file only when confinement accepts
//! it, so a symlink out of the worktree is listed but never read.
//!
//! Never an `Err` out of [`execute`]: bad arguments, a string instead of an object, an unknown
//! tool, a refused path, a failed edit — each becomes a tool result with `is_error: true` that the
//! model reads and can act on. Outputs are clipped head+tail to [`ToolOptions::output_cap`].

use std::path::Path;
use std::time::Duration;

use loki_core::walk::{Visibility, Walk};
use serde_json::{Map, Value, json};

use crate::confine::Worktree;
use crate::context::clip;
use crate::message::{ToolCall, ToolSpec};

/// Default cap of one tool result: a whole source file of a few hundred lines or a test run's
/// summary fits; a 50 MB log becomes its head and tail.
pub const DEFAULT_TOOL_OUTPUT_CAP: usize = 32 * 1024;
/// Default timeout of one `run` call when the model gives none.
pub const DEFAULT_RUN_TIMEOUT: Duration = Duration::from_secs(120);
/// Longest `run` timeout a model may ask for: a slow test suite, not an unbounded wait.
pub const MAX_RUN_TIMEOUT: Duration = Duration::from_secs(600);
/// Entries listed at most by one `list_files` call.
const MAX_LIST_ENTRIES: usize = 2000;
/// Matches returned at most by one `search` call.
const MAX_SEARCH_MATCHES: usize = 200;
/// Files larger than this are skipped by `search` (generated or data files, not source).
const MAX_SEARCH_FILE_BYTES: u64 = 2 * 1024 * 1024;
/// Characters of a matching line shown by `search`.
const SEARCH_LINE_CHARS: usize = 240;
/// Bytes of the tool cap kept free for the `exit code` line and the runner's truncation marker,
/// so that `run` output is cut once, by the runner, rather than clipped a second time.
const RUN_HEADER_ROOM: usize = 256;
/// How a file is recognised as binary: a NUL byte in its first 8 KiB (as git does).
const BINARY_SNIFF_BYTES: usize = 8192;

/// How `finish` ended the session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FinishStatus {
    /// The task is done.
    Done,
    /// Nothing had to change: the repository already does what the task asks.
    AlreadyDone,
    /// The task contradicts the repository's specification or tests.
    SpecConflict,
}

impl FinishStatus {
    /// The name as serialised (`done`, `already_done`, `spec_conflict`).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            FinishStatus::Done => "done",
            FinishStatus::AlreadyDone => "already_done",
            FinishStatus::SpecConflict => "spec_conflict",
        }
    }
}

/// The model's final word.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Finish {
    pub status: FinishStatus,
    pub detail: String,
}

/// The result of one tool call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolResult {
    pub content: String,
    pub is_error: bool,
    /// Set by a valid `finish` call.
    pub finish: Option<Finish>,
}

impl ToolResult {
    fn ok(content: String) -> Self {
        ToolResult {
            content,
            is_error: false,
            finish: None,
        }
    }

    fn err(content: String) -> Self {
        ToolResult {
            content,
            is_error: true,
            finish: None,
        }
    }
}

/// Limits of tool execution.
#[derive(Debug, Clone)]
pub struct ToolOptions {
    pub output_cap: usize,
    pub default_run_timeout: Duration,
    pub max_run_timeout: Duration,
    /// The whole environment of `run` commands. `None`: the scrubbed current environment
    /// (`loki_process::scrubbed_env`). A caller that isolates the agent further (a private
    /// `HOME`, a private git directory) passes its own; it should be scrubbed too.
    pub run_env: Option<Vec<(std::ffi::OsString, std::ffi::OsString)>>,
    /// Cancels a `run` command in flight (its whole process group is killed), e.g. on Ctrl-C:
    /// dropping the session's future alone would leave the child running until its timeout.
    pub cancel: Option<loki_process::Cancel>,
    /// An argv prefix every `run` command goes through (the model box, `loki __confine …`);
    /// empty: commands run directly.
    pub run_wrapper: Vec<std::ffi::OsString>,
    /// Told each `run` command before it starts (the CLI shows them with `-v`).
    pub on_run: Option<RunHook>,
}

/// A callback given each command the model runs, as the model wrote it.
#[derive(Clone)]
pub struct RunHook(pub std::sync::Arc<dyn Fn(&str) + Send + Sync>);

impl std::fmt::Debug for RunHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RunHook")
    }
}

impl Default for ToolOptions {
    fn default() -> Self {
        ToolOptions {
            output_cap: DEFAULT_TOOL_OUTPUT_CAP,
            default_run_timeout: DEFAULT_RUN_TIMEOUT,
            max_run_timeout: MAX_RUN_TIMEOUT,
            run_env: None,
            cancel: None,
            run_wrapper: Vec::new(),
            on_run: None,
        }
    }
}

/// The tool names, in the order they are offered.
pub const TOOL_NAMES: &[&str] = &[
    "read_file",
    "list_files",
    "search",
    "write_file",
    "edit",
    "apply_patch",
    "run",
    "finish",
];

fn schema(props: &Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": props, "required": required, "additionalProperties": false})
}

/// The specs sent to the model.
#[must_use]
pub fn tool_specs() -> Vec<ToolSpec> {
    let path = json!({"type": "string", "description": "path relative to the repository root"});
    let spec = |name: &str, description: &str, parameters: Value| ToolSpec {
        name: name.to_string(),
        description: description.to_string(),
        parameters,
    };
    vec![
        spec(
            "read_file",
            "Read a text file. Optional offset (1-based first line) and limit (number of lines).",
            schema(
                &json!({"path": path, "offset": {"type": "integer", "minimum": 1}, "limit": {"type": "integer", "minimum": 1}}),
                &["path"],
            ),
        ),
        spec(
            "list_files",
            "List files under a directory (default: the repository root), recursively.",
            schema(&json!({"path": path}), &[]),
        ),
        spec(
            "search",
            "Search files for a literal string; returns path:line: text for each match.",
            schema(
                &json!({"query": {"type": "string"}, "path": path}),
                &["query"],
            ),
        ),
        spec(
            "write_file",
            "Create or replace a whole file with the given content.",
            schema(
                &json!({"path": path, "content": {"type": "string"}}),
                &["path", "content"],
            ),
        ),
        spec(
            "edit",
            "Replace exactly one occurrence of `search` in a file with `replace`. Include enough surrounding lines for the search text to be unique.",
            schema(
                &json!({"path": path, "search": {"type": "string"}, "replace": {"type": "string"}}),
                &["path", "search", "replace"],
            ),
        ),
        spec(
            "apply_patch",
            "Apply a patch in the `*** Begin Patch` / `*** Update File:` / `*** Add File:` / `*** Delete File:` / `*** End Patch` format, all or nothing.",
            schema(&json!({"patch": {"type": "string"}}), &["patch"]),
        ),
        spec(
            "run",
            "Run a shell command in the repository root (for example the tests). Returns the exit code and the output.",
            schema(
                &json!({"command": {"type": "string"}, "timeout_s": {"type": "integer", "minimum": 1}}),
                &["command"],
            ),
        ),
        spec(
            "finish",
            "End the session: status done (the task is complete), already_done (nothing needed changing) or spec_conflict (the task contradicts the repository's tests or spec), with a short detail.",
            schema(
                &json!({"status": {"type": "string", "enum": ["done", "already_done", "spec_conflict"]}, "detail": {"type": "string"}}),
                &["status", "detail"],
            ),
        ),
    ]
}

/// Executes one call; never fails (see the module doc). `time_left` bounds a `run`.
pub async fn execute(
    wt: &Worktree,
    opts: &ToolOptions,
    call: &ToolCall,
    time_left: Option<Duration>,
) -> ToolResult {
    let args = match arguments(call) {
        Ok(a) => a,
        Err(e) => return ToolResult::err(e),
    };
    let result = match call.name.as_str() {
        "read_file" => read_file(wt, &args),
        "list_files" => list_files(wt, &args),
        "search" => search(wt, &args),
        "write_file" => write_file(wt, &args),
        "edit" => edit(wt, &args),
        "apply_patch" => apply_patch(wt, &args),
        "run" => run(wt, opts, &args, time_left).await,
        "finish" => return finish(&args),
        other => Err(format!(
            "unknown tool `{other}`; the tools are: {}",
            TOOL_NAMES.join(", ")
        )),
    };
    match result {
        Ok(out) => ToolResult::ok(clip(&out, opts.output_cap)),
        Err(e) => ToolResult::err(clip(&e, opts.output_cap)),
    }
}

fn arguments(call: &ToolCall) -> Result<Map<String, Value>, String> {
    if let Some(e) = &call.arguments_error {
        return Err(format!(
            "the arguments of `{}` are not valid JSON ({e}); send one JSON object that matches the tool's schema",
            call.name
        ));
    }
    match &call.arguments {
        Value::Object(m) => Ok(m.clone()),
        other => Err(format!(
            "the arguments of `{}` must be a JSON object, got {}; send an object like {{\"path\": \"...\"}}",
            call.name,
            loki_core::json::kind_of(other)
        )),
    }
}

fn string<'a>(args: &'a Map<String, Value>, key: &str) -> Result<&'a str, String> {
    match args.get(key) {
        Some(Value::String(s)) => Ok(s),
        Some(other) => Err(format!(
            "argument `{key}` must be a string, got {}",
            loki_core::json::kind_of(other)
        )),
        None => Err(format!("missing required argument `{key}`")),
    }
}

fn opt_uint(args: &Map<String, Value>, key: &str) -> Result<Option<u64>, String> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_u64()
            .map(Some)
            .ok_or_else(|| format!("argument `{key}` must be a positive integer")),
    }
}

fn is_binary(bytes: &[u8]) -> bool {
    bytes[..bytes.len().min(BINARY_SNIFF_BYTES)].contains(&0)
}

fn read_file(wt: &Worktree, args: &Map<String, Value>) -> Result<String, String> {
    let rel = string(args, "path")?;
    let path = wt.resolve(rel).map_err(|e| e.to_string())?;
    if path.is_dir() {
        return Err(format!("{rel} is a directory; use list_files"));
    }
    let bytes = std::fs::read(&path).map_err(|e| format!("cannot read {rel}: {e}"))?;
    if is_binary(&bytes) {
        return Err(format!("{rel} looks binary (a NUL byte); it is not shown"));
    }
    let text = String::from_utf8_lossy(&bytes);
    let offset = opt_uint(args, "offset")?;
    let limit = opt_uint(args, "limit")?;
    if offset.is_none() && limit.is_none() {
        return Ok(text.into_owned());
    }
    let skip = usize::try_from(offset.unwrap_or(1).saturating_sub(1)).unwrap_or(usize::MAX);
    let take = limit.map_or(usize::MAX, |l| usize::try_from(l).unwrap_or(usize::MAX));
    Ok(text.split_inclusive('\n').skip(skip).take(take).collect())
}

/// The project's files at or under `dir` (inside the worktree), depth-first in name order, as
/// git sees them (see the module doc); at most `limit + 1`, so a caller can tell there are more.
fn walk(wt: &Worktree, dir: &Path, limit: usize) -> Vec<std::path::PathBuf> {
    let under = dir.strip_prefix(wt.root()).unwrap_or(Path::new(""));
    Walk::new(wt.root(), Visibility::Project)
        .under(under)
        .files()
        .take(limit.saturating_add(1))
        .map(|e| e.path)
        .collect()
}

fn list_files(wt: &Worktree, args: &Map<String, Value>) -> Result<String, String> {
    let rel = match args.get("path") {
        None | Some(Value::Null) => ".",
        Some(_) => string(args, "path")?,
    };
    let dir = wt.resolve(rel).map_err(|e| e.to_string())?;
    if !dir.is_dir() {
        return Err(format!("{rel} is not a directory"));
    }
    let mut files = walk(wt, &dir, MAX_LIST_ENTRIES);
    let more = files.len() > MAX_LIST_ENTRIES;
    files.truncate(MAX_LIST_ENTRIES);
    let mut out: String = files
        .iter()
        .map(|p| format!("{}\n", wt.relative(p)))
        .collect();
    if more {
        out.push_str(&format!(
            "[loki: more than {MAX_LIST_ENTRIES} files; list a subdirectory]\n"
        ));
    }
    if out.is_empty() {
        out.push_str("(no files)\n");
    }
    Ok(out)
}

fn search(wt: &Worktree, args: &Map<String, Value>) -> Result<String, String> {
    let query = string(args, "query")?;
    if query.is_empty() {
        return Err("argument `query` is empty".into());
    }
    let rel = match args.get("path") {
        None | Some(Value::Null) => ".",
        Some(_) => string(args, "path")?,
    };
    let start = wt.resolve(rel).map_err(|e| e.to_string())?;
    let files = if start.is_dir() {
        walk(wt, &start, usize::MAX)
    } else {
        vec![start]
    };
    let mut out = String::new();
    let mut n = 0;
    for f in files {
        // A listed symlink may point out of the worktree: read only what confinement accepts.
        let Ok(f) = wt.resolve(&wt.relative(&f)) else {
            continue;
        };
        if f.metadata()
            .map_or(true, |m| m.len() > MAX_SEARCH_FILE_BYTES)
        {
            continue;
        }
        let Ok(bytes) = std::fs::read(&f) else {
            continue;
        };
        if is_binary(&bytes) {
            continue;
        }
        let text = String::from_utf8_lossy(&bytes);
        for (i, line) in text.lines().enumerate() {
            if line.contains(query) {
                n += 1;
                if n > MAX_SEARCH_MATCHES {
                    out.push_str(&format!(
                        "[loki: more than {MAX_SEARCH_MATCHES} matches; narrow the query or the path]\n"
                    ));
                    return Ok(out);
                }
                let shown: String = line.chars().take(SEARCH_LINE_CHARS).collect();
                out.push_str(&format!("{}:{}: {shown}\n", wt.relative(&f), i + 1));
            }
        }
    }
    if out.is_empty() {
        out = format!("no matches for {query:?}\n");
    }
    Ok(out)
}

fn write_file(wt: &Worktree, args: &Map<String, Value>) -> Result<String, String> {
    let rel = string(args, "path")?;
    let content = string(args, "content")?;
    let path = wt.resolve(rel).map_err(|e| e.to_string())?;
    if path.is_dir() {
        return Err(format!("{rel} is a directory"));
    }
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| format!("cannot create {rel}'s directory: {e}"))?;
    }
    use std::os::unix::fs::PermissionsExt;
    let existed = path.metadata().ok();
    let result = match &existed {
        Some(m) => loki_core::fs::write_atomic_mode(
            &path,
            content.as_bytes(),
            m.permissions().mode() & 0o7777,
        ),
        None => loki_core::fs::write_atomic(&path, content.as_bytes()),
    };
    result.map_err(|e| format!("cannot write {rel}: {e}"))?;
    Ok(format!(
        "{} {rel} ({} bytes)",
        if existed.is_some() {
            "replaced"
        } else {
            "created"
        },
        content.len()
    ))
}

fn edit(wt: &Worktree, args: &Map<String, Value>) -> Result<String, String> {
    let rel = string(args, "path")?;
    let search = string(args, "search")?;
    let replace = string(args, "replace")?;
    wt.resolve(rel).map_err(|e| e.to_string())?;
    let out = loki_patch::edit_file(
        wt.root(),
        rel,
        search,
        replace,
        loki_patch::ApplyOptions::default(),
    )
    .map_err(|e| e.to_string())?;
    Ok(match out.change {
        Some(change) => format!(
            "edited {} at line {} ({} match)\n{}",
            out.path,
            out.line,
            out.rung.name(),
            change.diff(false)
        ),
        None => format!(
            "{}: the replacement equals the text at line {}; nothing changed",
            out.path, out.line
        ),
    })
}

fn apply_patch(wt: &Worktree, args: &Map<String, Value>) -> Result<String, String> {
    let text = string(args, "patch")?;
    let patch = loki_patch::parse_patch(text).map_err(|e| e.to_string())?;
    for op in &patch.ops {
        wt.resolve(op.path()).map_err(|e| e.to_string())?;
        if let loki_patch::FileOp::Update {
            move_to: Some(to), ..
        } = op
        {
            wt.resolve(to).map_err(|e| e.to_string())?;
        }
    }
    let changes = loki_patch::apply_patch(wt.root(), &patch, loki_patch::ApplyOptions::default())
        .map_err(|e| e.to_string())?;
    let mut out = String::from("patch applied:\n");
    for c in &changes {
        let mark = match c.kind {
            loki_patch::ChangeKind::Added => 'A',
            loki_patch::ChangeKind::Deleted => 'D',
            loki_patch::ChangeKind::Modified => 'M',
        };
        out.push_str(&format!("{mark} {}\n", c.path));
    }
    Ok(out)
}

async fn run(
    wt: &Worktree,
    opts: &ToolOptions,
    args: &Map<String, Value>,
    time_left: Option<Duration>,
) -> Result<String, String> {
    let command = string(args, "command")?.to_string();
    let asked = opt_uint(args, "timeout_s")?.map_or(opts.default_run_timeout, Duration::from_secs);
    let mut timeout = asked.min(opts.max_run_timeout);
    if let Some(left) = time_left {
        timeout = timeout.min(left);
    }
    if let Some(hook) = &opts.on_run {
        (hook.0)(&command);
    }
    let mut spec = loki_process::Spec::new("sh", wt.root())
        .args(["-c", command.as_str()])
        .envs(
            opts.run_env
                .clone()
                .unwrap_or_else(loki_process::scrubbed_env),
        )
        .timeout(timeout)
        .output_cap(opts.output_cap.saturating_sub(RUN_HEADER_ROOM))
        .wrapped(&opts.run_wrapper);
    if let Some(cancel) = &opts.cancel {
        spec = spec.cancel_with(cancel.clone());
    }
    let out = tokio::task::spawn_blocking(move || loki_process::run(&spec))
        .await
        .map_err(|e| format!("the command could not be run: {e}"))?
        .map_err(|e| format!("the command could not be run: {e}"))?;
    let text = out.output.text();
    if out.timed_out {
        return Err(format!(
            "`{command}` timed out after {}s and was killed (exit {}); output:\n{text}",
            timeout.as_secs(),
            out.exit_code()
        ));
    }
    Ok(format!("exit code {}\n{text}", out.exit_code()))
}

fn finish(args: &Map<String, Value>) -> ToolResult {
    let status = match string(args, "status") {
        Ok("done") => FinishStatus::Done,
        Ok("already_done") => FinishStatus::AlreadyDone,
        Ok("spec_conflict") => FinishStatus::SpecConflict,
        Ok(other) => {
            return ToolResult::err(format!(
                "status {other:?} is not one of done, already_done, spec_conflict"
            ));
        }
        Err(e) => return ToolResult::err(e),
    };
    let detail = match string(args, "detail") {
        Ok(d) => d.to_string(),
        Err(e) => return ToolResult::err(e),
    };
    ToolResult {
        content: "session finished".into(),
        is_error: false,
        finish: Some(Finish { status, detail }),
    }
}

#[cfg(test)]
#[expect(clippy::disallowed_methods, reason = "fixtures are written directly")]
mod tests {
    use super::*;

    async fn call(wt: &Worktree, name: &str, arguments: Value) -> ToolResult {
        let call = ToolCall {
            id: "c".into(),
            name: name.into(),
            arguments,
            arguments_error: None,
        };
        execute(wt, &ToolOptions::default(), &call, None).await
    }

    #[tokio::test(flavor = "current_thread")]
    async fn listing_follows_gitignore_and_search_reads_only_confined_files() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let p = dir.path();
        for (f, body) in [
            (".gitignore", "*.log\n"),
            ("src/a.rs", "needle\n"),
            ("src/b.log", "needle\n"),
            (".git/config", "needle\n"),
            (".loki/runs/x/events.jsonl", "needle\n"),
        ] {
            std::fs::create_dir_all(p.join(f).parent().unwrap()).unwrap();
            std::fs::write(p.join(f), body).unwrap();
        }
        std::fs::write(outside.path().join("secret"), "needle\n").unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret"), p.join("leak")).unwrap();
        let wt = Worktree::new(p).unwrap();

        let r = call(&wt, "list_files", json!({})).await;
        assert_eq!(r.content, ".gitignore\nleak\nsrc/a.rs\n");
        let r = call(&wt, "list_files", json!({"path": "src"})).await;
        assert_eq!(r.content, "src/a.rs\n");
        let r = call(&wt, "search", json!({"query": "needle"})).await;
        assert_eq!(r.content, "src/a.rs:1: needle\n");
        let r = call(&wt, "read_file", json!({"path": ".git/config"})).await;
        assert!(r.is_error && r.content.contains(".git"), "{}", r.content);
    }
}
