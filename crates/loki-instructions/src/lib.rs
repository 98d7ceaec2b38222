//! The agent's instructions that live in a repository, and their revision.
//!
//! # Files (`.loki/agent/`)
//! - `instructions.md`: free text, the always-on part of the agent's instructions.
//! - `skills/<name>/SKILL.md`: one skill each, opening with YAML frontmatter between `---` lines
//!   that has `name` (equal to the directory name) and a non-empty `description`; the body
//!   follows. Names match `[a-z0-9][a-z0-9_-]{0,63}`.
//!
//! Nothing else under `.loki/agent/` is an instruction: other files are neither loaded nor part
//! of the revision, and `loki improve` never writes them.
//!
//! # Revision
//! `sha256:<hex>` of, for each editable file sorted by its path relative to `.loki/agent/`
//! (`/`-separated): the path, a NUL byte, the byte length in decimal, a NUL byte, the bytes. The
//! empty set has a revision too ([`EMPTY_REVISION`]), so a run without instructions is stamped
//! like any other. Build runs record the revision in `run.json` and the receipt; `loki improve`
//! learns only from runs stamped with the current one and swaps revisions by compare-and-swap.
//!
//! # What the agent sees ([`AgentFiles::prompt`])
//! The instructions, then one index line per skill (`- name: description`): together the
//! *always-on* text, whose size `loki improve` bounds. Then each skill's body under its own
//! heading, in name order, so that the prompt is deterministic.
//!
//! # Refusals
//! A symlink in place of an instruction file or directory is refused, never followed (a checkout
//! could point it anywhere); so are files that are not UTF-8, over [`MAX_FILE_BYTES`], and skills
//! whose frontmatter does not parse or disagrees with their directory.
//!
//! # Never
//! Writes a file: it reads and hashes; `loki improve` writes revisions (atomically, through
//! `loki_core::fs`). Errors are `loki_core::CoreError` (what was read, where, why).

use std::fs;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use sha2::{Digest, Sha256};

use loki_core::CoreError;

/// The always-on instructions file, relative to `.loki/agent/`.
pub const INSTRUCTIONS_FILE: &str = "instructions.md";
/// The directory of skills, relative to `.loki/agent/`.
pub const SKILLS_DIR: &str = "skills";
/// The file of one skill inside `skills/<name>/`.
pub const SKILL_FILE: &str = "SKILL.md";
/// The largest instruction file loki loads (1 MiB): larger is a mistake, not instructions.
pub const MAX_FILE_BYTES: u64 = 1024 * 1024;
/// The revision of an empty set of instruction files (sha256 of no bytes).
pub const EMPTY_REVISION: &str =
    "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

/// One editable instruction file: its path relative to `.loki/agent/` and its text.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct AgentFile {
    pub path: String,
    pub content: String,
}

/// One parsed skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skill {
    pub name: String,
    pub description: String,
    pub body: String,
}

#[derive(Debug, Deserialize)]
struct Frontmatter {
    name: Option<String>,
    description: Option<String>,
}

/// The editable files of `.loki/agent/`, sorted by path.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AgentFiles {
    pub files: Vec<AgentFile>,
}

/// `<repo>/.loki/agent`.
#[must_use]
pub fn agent_dir(repo_root: &Path) -> PathBuf {
    repo_root.join(loki_core::layout::LOKI_DIR).join("agent")
}

/// True for the paths `loki improve` may write: `instructions.md` and `skills/<name>/SKILL.md`.
#[must_use]
pub fn is_editable(path: &str) -> bool {
    if path == INSTRUCTIONS_FILE {
        return true;
    }
    let mut parts = path.split('/');
    matches!(
        (parts.next(), parts.next(), parts.next(), parts.next()),
        (Some(SKILLS_DIR), Some(name), Some(SKILL_FILE), None) if valid_skill_name(name)
    )
}

/// `[a-z0-9][a-z0-9_-]{0,63}`.
#[must_use]
pub fn valid_skill_name(name: &str) -> bool {
    let b = name.as_bytes();
    !b.is_empty()
        && b.len() <= 64
        && (b[0].is_ascii_lowercase() || b[0].is_ascii_digit())
        && b.iter()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-' || *c == b'_')
}

impl AgentFiles {
    /// Reads the editable files under `dir` (`.loki/agent/`); an absent directory is the empty set.
    pub fn load(dir: &Path) -> Result<AgentFiles, CoreError> {
        let mut files = Vec::new();
        match fs::symlink_metadata(dir) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(AgentFiles::default()),
            Err(e) => return Err(CoreError::io("read", dir, e)),
            Ok(m) if !m.is_dir() => return Err(refused(dir, "is not a directory")),
            Ok(_) => {}
        }
        if let Some(text) = read_text(&dir.join(INSTRUCTIONS_FILE))? {
            files.push(AgentFile {
                path: INSTRUCTIONS_FILE.to_string(),
                content: text,
            });
        }
        let skills = dir.join(SKILLS_DIR);
        match fs::symlink_metadata(&skills) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(CoreError::io("read", &skills, e)),
            Ok(m) if !m.is_dir() => return Err(refused(&skills, "is not a directory")),
            Ok(_) => {
                let entries =
                    fs::read_dir(&skills).map_err(|e| CoreError::io("list", &skills, e))?;
                for entry in entries {
                    let entry = entry.map_err(|e| CoreError::io("list", &skills, e))?;
                    let name = entry.file_name().to_string_lossy().into_owned();
                    let file_type = entry
                        .file_type()
                        .map_err(|e| CoreError::io("read", entry.path(), e))?;
                    if file_type.is_symlink() {
                        return Err(refused(&entry.path(), "is a symlink"));
                    }
                    if !file_type.is_dir() || name.starts_with('.') {
                        continue;
                    }
                    if !valid_skill_name(&name) {
                        // Silently skipping it would leave the user wondering why the agent
                        // ignores the skill.
                        return Err(refused(
                            &entry.path(),
                            "is not a valid skill name ([a-z0-9][a-z0-9_-]{0,63})",
                        ));
                    }
                    if let Some(text) = read_text(&entry.path().join(SKILL_FILE))? {
                        files.push(AgentFile {
                            path: format!("{SKILLS_DIR}/{name}/{SKILL_FILE}"),
                            content: text,
                        });
                    }
                }
            }
        }
        files.sort_by(|a, b| a.path.cmp(&b.path));
        let loaded = AgentFiles { files };
        loaded.skills().map_err(|(path, why)| CoreError::BadValue {
            key: dir.join(path).display().to_string(),
            why,
        })?;
        Ok(loaded)
    }

    /// The revision of these files (see the module doc).
    #[must_use]
    pub fn revision(&self) -> String {
        revision_of(&self.files)
    }

    /// `instructions.md`, if present.
    #[must_use]
    pub fn instructions(&self) -> Option<&str> {
        self.files
            .iter()
            .find(|f| f.path == INSTRUCTIONS_FILE)
            .map(|f| f.content.as_str())
    }

    /// Every skill, parsed, in name order; the first bad one as `(path, why)`.
    pub fn skills(&self) -> Result<Vec<Skill>, (String, String)> {
        let mut out = Vec::new();
        for f in self.files.iter().filter(|f| f.path != INSTRUCTIONS_FILE) {
            let dir_name = f.path.split('/').nth(1).unwrap_or_default();
            let skill = parse_skill(&f.content).map_err(|why| (f.path.clone(), why.to_string()))?;
            if skill.name != dir_name {
                return Err((
                    f.path.clone(),
                    format!(
                        "frontmatter name {:?} differs from its directory {dir_name:?}",
                        skill.name
                    ),
                ));
            }
            out.push(skill);
        }
        out.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(out)
    }

    /// The always-on text: the instructions and one index line per skill. Its length in
    /// characters is what `improve.max_always_on_chars` bounds.
    #[must_use]
    pub fn always_on(&self) -> String {
        let mut s = self
            .instructions()
            .unwrap_or_default()
            .trim_end()
            .to_string();
        if let Ok(skills) = self.skills()
            && !skills.is_empty()
        {
            if !s.is_empty() {
                s.push_str("\n\n");
            }
            s.push_str("Skills:\n");
            for k in &skills {
                s.push_str(&format!("- {}: {}\n", k.name, k.description.trim()));
            }
        }
        s
    }

    /// What the implementing agent is given: the always-on text, then each skill's body. Empty
    /// when there are no instruction files.
    #[must_use]
    pub fn prompt(&self) -> String {
        let mut s = self.always_on();
        if let Ok(skills) = self.skills() {
            for k in skills {
                s.push_str(&format!("\n## Skill: {}\n{}\n", k.name, k.body.trim()));
            }
        }
        s.trim_end().to_string()
    }

    /// True when there is no instruction file at all.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}

/// The revision of `files` (any order; sorted by path first).
#[must_use]
pub fn revision_of(files: &[AgentFile]) -> String {
    let mut sorted: Vec<&AgentFile> = files.iter().collect();
    sorted.sort_by(|a, b| a.path.cmp(&b.path));
    let mut h = Sha256::new();
    for f in sorted {
        h.update(f.path.as_bytes());
        h.update([0]);
        h.update(f.content.len().to_string().as_bytes());
        h.update([0]);
        h.update(f.content.as_bytes());
    }
    format!("sha256:{}", hex(&h.finalize()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Why a `SKILL.md` cannot be read as a skill; each names the part of the file to fix.
#[derive(Debug, thiserror::Error)]
pub enum SkillError {
    #[error("it does not open with a `---` frontmatter line")]
    NoFrontmatter,
    #[error("its frontmatter is not closed by a `---` line")]
    Unclosed,
    #[error("its frontmatter is not valid YAML: {error}")]
    Yaml { error: serde_yaml_ng::Error },
    /// `field` is `name` or `description`.
    #[error("its frontmatter has no `{field}`")]
    Missing { field: &'static str },
    #[error("skill name {name:?} is not [a-z0-9][a-z0-9_-]{{0,63}}")]
    BadName { name: String },
}

/// Parses a `SKILL.md`: frontmatter with `name` and `description`, then the body.
pub fn parse_skill(text: &str) -> Result<Skill, SkillError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
        .ok_or(SkillError::NoFrontmatter)?;
    let end = rest.find("\n---").ok_or(SkillError::Unclosed)?;
    let yaml = &rest[..end];
    let after = &rest[end + 4..];
    let body = after
        .strip_prefix("\r\n")
        .or_else(|| after.strip_prefix('\n'))
        .unwrap_or(after);
    let fm: Frontmatter =
        serde_yaml_ng::from_str(yaml).map_err(|error| SkillError::Yaml { error })?;
    let name = fm.name.ok_or(SkillError::Missing { field: "name" })?;
    let description =
        fm.description
            .filter(|d| !d.trim().is_empty())
            .ok_or(SkillError::Missing {
                field: "description",
            })?;
    if !valid_skill_name(&name) {
        return Err(SkillError::BadName { name });
    }
    Ok(Skill {
        name,
        description,
        body: body.to_string(),
    })
}

fn refused(path: &Path, why: &str) -> CoreError {
    CoreError::BadValue {
        key: path.display().to_string(),
        why: format!("{why}; loki reads agent instructions only from regular files"),
    }
}

/// A regular file's text, `None` when absent; symlinks, non-UTF-8 and huge files refused.
fn read_text(path: &Path) -> Result<Option<String>, CoreError> {
    let meta = match fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(CoreError::io("read", path, e)),
        Ok(m) => m,
    };
    if meta.file_type().is_symlink() {
        return Err(refused(path, "is a symlink"));
    }
    if !meta.is_file() {
        return Err(refused(path, "is not a regular file"));
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(refused(path, "is larger than 1 MiB"));
    }
    let bytes = fs::read(path).map_err(|e| CoreError::io("read", path, e))?;
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|_| refused(path, "is not UTF-8 text"))
}

#[cfg(test)]
#[expect(clippy::disallowed_methods, reason = "fixtures are written directly")]
mod tests {
    use super::*;

    fn write(root: &Path, rel: &str, text: &str) {
        let p = root.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
    }

    const SKILL: &str = "---\nname: tests-first\ndescription: run the tests before finishing\n---\nAlways run the tests.\n";

    #[test]
    fn loads_instructions_and_skills_and_ignores_other_files() {
        let d = tempfile::tempdir().unwrap();
        write(d.path(), "instructions.md", "Be careful.\n");
        write(d.path(), "skills/tests-first/SKILL.md", SKILL);
        write(d.path(), "notes.txt", "not an instruction");
        write(
            d.path(),
            "skills/.cache/x",
            "a hidden directory is not a skill",
        );
        let a = AgentFiles::load(d.path()).unwrap();
        let paths: Vec<_> = a.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, ["instructions.md", "skills/tests-first/SKILL.md"]);
        assert_eq!(
            a.always_on(),
            "Be careful.\n\nSkills:\n- tests-first: run the tests before finishing\n"
        );
        assert!(
            a.prompt()
                .ends_with("## Skill: tests-first\nAlways run the tests.")
        );
    }

    #[test]
    fn the_revision_depends_on_every_byte_and_path_but_not_on_order() {
        let a = vec![
            AgentFile {
                path: "instructions.md".into(),
                content: "x".into(),
            },
            AgentFile {
                path: "skills/a/SKILL.md".into(),
                content: "y".into(),
            },
        ];
        let mut b = a.clone();
        b.reverse();
        assert_eq!(revision_of(&a), revision_of(&b));
        b[0].content.push(' ');
        assert_ne!(revision_of(&a), revision_of(&b));
        assert_eq!(revision_of(&[]), EMPTY_REVISION);
        // Moving bytes from content into the path is a different revision.
        let c = vec![AgentFile {
            path: "instructions.mdx".into(),
            content: String::new(),
        }];
        let d = vec![AgentFile {
            path: "instructions.md".into(),
            content: "x".into(),
        }];
        assert_ne!(revision_of(&c), revision_of(&d));
    }

    #[test]
    fn absent_dir_is_the_empty_revision() {
        let d = tempfile::tempdir().unwrap();
        let a = AgentFiles::load(&d.path().join("nope")).unwrap();
        assert_eq!(a.revision(), EMPTY_REVISION);
        assert_eq!(a.prompt(), "");
    }

    #[test]
    fn symlinks_bad_frontmatter_and_binary_files_are_refused_by_name() {
        let d = tempfile::tempdir().unwrap();
        write(d.path(), "secret", "x");
        std::os::unix::fs::symlink(d.path().join("secret"), d.path().join("instructions.md"))
            .unwrap();
        let e = AgentFiles::load(d.path()).unwrap_err().to_string();
        assert!(
            e.contains("instructions.md") && e.contains("symlink"),
            "{e}"
        );

        let d = tempfile::tempdir().unwrap();
        write(d.path(), "skills/x/SKILL.md", "no frontmatter");
        let e = AgentFiles::load(d.path()).unwrap_err().to_string();
        assert!(
            e.contains("skills/x/SKILL.md") && e.contains("frontmatter"),
            "{e}"
        );

        let d = tempfile::tempdir().unwrap();
        write(d.path(), "skills/x/SKILL.md", SKILL);
        let e = AgentFiles::load(d.path()).unwrap_err().to_string();
        assert!(e.contains("differs from its directory"), "{e}");

        let d = tempfile::tempdir().unwrap();
        write(d.path(), "skills/Bad Name/SKILL.md", SKILL);
        let e = AgentFiles::load(d.path()).unwrap_err().to_string();
        assert!(
            e.contains("Bad Name") && e.contains("not a valid skill name"),
            "{e}"
        );

        let d = tempfile::tempdir().unwrap();
        fs::write(d.path().join("instructions.md"), [0xff, 0xfe, 0]).unwrap();
        let e = AgentFiles::load(d.path()).unwrap_err().to_string();
        assert!(e.contains("not UTF-8"), "{e}");
    }

    #[test]
    fn crlf_frontmatter_parses() {
        let s = parse_skill("---\r\nname: a\r\ndescription: d\r\n---\r\nbody\r\n").unwrap();
        assert_eq!((s.name.as_str(), s.description.as_str()), ("a", "d"));
        assert_eq!(s.body, "body\r\n");
    }

    #[test]
    fn editable_paths_are_exactly_instructions_and_skill_files() {
        for ok in ["instructions.md", "skills/a-b_1/SKILL.md"] {
            assert!(is_editable(ok), "{ok}");
        }
        for bad in [
            "../instructions.md",
            "skills/A/SKILL.md",
            "skills/a/other.md",
            "skills/a/b/SKILL.md",
            "/etc/passwd",
            "skills/../SKILL.md",
            "instructions.md/x",
        ] {
            assert!(!is_editable(bad), "{bad}");
        }
    }
}
