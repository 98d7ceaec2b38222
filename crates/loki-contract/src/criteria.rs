//! Delivery contracts: a spec, PRD or issue text turned into numbered acceptance criteria
//! (`AC-1` … `AC-50`), and the one kind of contradiction loki refuses to build.
//!
//! # What is a criterion ([`parse`])
//! The text is read line by line as Markdown (CRLF and lone CR are line ends):
//! - **Checklist items** (`- [ ] …`, `* [x] …`, `+ [X] …`, `1. [ ] …`) are criteria wherever they
//!   are.
//! - **List items** (`-`, `*`, `+`, `1.`, `1)`) are criteria inside a *criteria section*: the lines
//!   under a heading whose title (case-insensitive, any ATX level `#`…`######`, or a bold line
//!   such as `**Acceptance criteria:**` or `__Must__:`) names acceptance criteria: it contains
//!   "acceptance", "criteria", "requirement(s)", "definition of done" or "done when", or starts
//!   with "must" (`Must`, `Must have`, `Must-haves`). A section runs to the next heading of the
//!   same or a higher level; a bold-line heading counts as one level below `######`, so it is a
//!   sub-heading of the section it sits in.
//! - **Excluded sections** take nothing, not even checklists: a heading with the word "not"
//!   (`Must not`, `Will not do`), "won't", "non-goals", "out of scope", "nice to have",
//!   "prerequisites", "before submitting", "open questions", "future" or "alternatives". Their
//!   items are things *not* to do or checks on the issue's author; taking them would invert or
//!   pollute the contract.
//! - Never taken: anything inside fenced code blocks (```` ``` ```` or `~~~`) and HTML comments
//!   (`<!-- … -->`, the prompts of issue templates): those are examples, not requirements.
//!
//! # Text of a criterion
//! The item's text without its marker and checkbox, with lazy continuation lines (the lines right
//! after it up to a blank line, a heading or another item) joined by one space. Whitespace runs
//! collapse to one space *outside* code spans; code spans (`` `…` ``, any backtick run) are kept
//! verbatim. **Nested items are folded into their parent**: `Export supports:` with the sub-items
//! `CSV` and `JSON` becomes one criterion `Export supports: CSV; JSON` (a parent without a final
//! colon gets one). A sub-item refines its parent, and a test of the parent must cover what the
//! sub-items say; numbering every sub-item would ask for tests of fragments like "CSV".
//! An item that is empty after cleaning is skipped; an item whose text repeats an earlier one is
//! taken once.
//!
//! # Numbering and the cap
//! Criteria are numbered `AC-1`, `AC-2`, … in document order, contiguously. At most
//! [`MAX_CRITERIA`] are taken; [`Parsed::dropped`] counts the rest, which the caller must say
//! (a contract of hundreds of criteria is a backlog, not a delivery).
//!
//! # Contradictions ([`conflict`])
//! One simple, sound class: two criteria that say the same thing, one required and one forbidden.
//! Each criterion's text is normalised (lower case outside code spans, whitespace collapsed, a
//! final `.`, `!` or `;` dropped) and split at its first modal: `must`, `shall`, `should` or
//! `will`, negated by a following `not` or `never`, or the contractions `mustn't`, `shouldn't`,
//! `shan't`, `won't`. Two criteria conflict when the words before the modal (the subject) and
//! the words after it (what is required) are equal and one is negated: "The CLI must accept
//! `--force`" and "The CLI must not accept `--force`". Anything looser (synonyms, numbers that
//! disagree) would guess; a guessed contradiction would block a good spec.
//!
//! # The file (`.loki/contract.json`, schema `loki.contract/1`)
//! `{"schema":"loki.contract/1","source":…,"sha256":…,"criteria":[{"id":"AC-1","text":…,"advisory":false}]}`:
//! `source` names where the text came from (a path, `task`), `sha256` is the hex SHA-256 of that
//! text. `kind: "preserved"` marks a criterion that asks for existing behaviour to keep working
//! (see [`CriterionKind`]: [`parse`]'s caller infers it from the text, the user may set or
//! remove it; absent means new behaviour). `advisory: true` (set by the user) marks a criterion accepted unproven: it is still
//! shown, never required for VERIFIED. [`Contract::check`] refuses a file with another schema, an
//! id not of the form `AC-<n>`, a repeated id or an empty text.
//!
//! Pure: no I/O here; reading and writing the file is the caller's.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::kind::CriterionKind;

/// The schema tag of `contract.json`.
pub const SCHEMA: &str = "loki.contract/1";
/// Criteria taken at most from one text.
pub const MAX_CRITERIA: usize = 50;
/// The file name of a contract, under `.loki/` (the user's) and in a run's directory (the one
/// the run used).
pub const CONTRACT_FILE: &str = "contract.json";
/// A bold-line heading is a sub-heading of any ATX heading (`######` is level 6).
const BOLD_LEVEL: usize = 7;
/// A bold line longer than this is emphasis in prose, not a heading.
const MAX_BOLD_HEADING: usize = 80;
/// Columns a tab advances indentation by, as CommonMark counts.
const TAB_WIDTH: usize = 4;

/// A delivery contract: `contract.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Contract {
    pub schema: String,
    /// Where the criteria came from: a spec's path, or `task` for a run's task text.
    pub source: String,
    /// Hex SHA-256 of the source text.
    pub sha256: String,
    pub criteria: Vec<Criterion>,
}

/// One acceptance criterion.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Criterion {
    /// `AC-<n>`.
    pub id: String,
    pub text: String,
    /// Accepted unproven by the user: never required for VERIFIED.
    #[serde(default)]
    pub advisory: bool,
    /// New behaviour (proven by fail-then-pass) or existing behaviour that must keep working
    /// (held by pass-and-pass); omitted in the file when new.
    #[serde(default, skip_serializing_if = "CriterionKind::is_new")]
    pub kind: CriterionKind,
}

impl Criterion {
    /// The number of `AC-<n>`, when the id has that form.
    #[must_use]
    pub fn number(&self) -> Option<u32> {
        id_number(&self.id)
    }
}

/// The number of an id `AC-<n>` (case-insensitive; `AC1` and `ac_1` too, as answers spell it).
#[must_use]
pub fn id_number(id: &str) -> Option<u32> {
    let rest = id.get(..2).filter(|p| p.eq_ignore_ascii_case("ac"))?;
    let digits = id[rest.len()..].trim_start_matches(['-', '_']);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// What [`parse`] found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Parsed {
    /// The criteria's texts, in document order (at most [`MAX_CRITERIA`]).
    pub criteria: Vec<String>,
    /// Criteria beyond [`MAX_CRITERIA`], not taken.
    pub dropped: usize,
}

/// Why a contract cannot be used ([`Contract::check`]): the field at fault and what it holds.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CheckError {
    #[error("schema is {found:?}, expected {SCHEMA:?}")]
    Schema { found: String },
    #[error("criterion id {id:?} is not of the form AC-<n>")]
    BadId { id: String },
    #[error("criterion id {id} appears twice")]
    Duplicate { id: String },
    #[error("criterion {id} has no text")]
    NoText { id: String },
}

impl Contract {
    /// The contract of `text`, numbered; `None` when it has no criteria.
    #[must_use]
    pub fn from_text(source: &str, text: &str) -> (Option<Contract>, usize) {
        let parsed = parse(text);
        if parsed.criteria.is_empty() {
            return (None, parsed.dropped);
        }
        let criteria = parsed
            .criteria
            .into_iter()
            .enumerate()
            .map(|(i, text)| Criterion {
                id: format!("AC-{}", i + 1),
                kind: CriterionKind::of_text(&text),
                text,
                advisory: false,
            })
            .collect();
        let contract = Contract {
            schema: SCHEMA.to_string(),
            source: source.to_string(),
            sha256: hex::encode(Sha256::digest(text.as_bytes())),
            criteria,
        };
        (Some(contract), parsed.dropped)
    }

    /// Why this contract cannot be used, if it cannot (see the module doc).
    pub fn check(&self) -> Result<(), CheckError> {
        if self.schema != SCHEMA {
            return Err(CheckError::Schema {
                found: self.schema.clone(),
            });
        }
        let mut seen = Vec::new();
        for c in &self.criteria {
            let Some(n) = c.number().filter(|_| c.id.starts_with("AC-")) else {
                return Err(CheckError::BadId { id: c.id.clone() });
            };
            if seen.contains(&n) {
                return Err(CheckError::Duplicate { id: c.id.clone() });
            }
            seen.push(n);
            if c.text.trim().is_empty() {
                return Err(CheckError::NoText { id: c.id.clone() });
            }
        }
        Ok(())
    }

    /// The file's bytes: pretty JSON and a final newline.
    pub fn to_file_bytes(&self) -> Result<Vec<u8>, serde_json::Error> {
        let mut bytes = serde_json::to_vec_pretty(self)?;
        bytes.push(b'\n');
        Ok(bytes)
    }
}

/// How a heading's section treats the items under it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Section {
    Criteria,
    Excluded,
    Neutral,
}

/// A criterion being read: its text and its folded sub-items.
struct Item {
    text: String,
    children: Vec<String>,
    /// Column of the item's marker: a deeper marker is a sub-item.
    indent: usize,
}

/// The criteria of `text` (see the module doc).
#[must_use]
pub fn parse(text: &str) -> Parsed {
    let text = strip_comments(&text.replace("\r\n", "\n").replace('\r', "\n"));
    let mut headings: Vec<(usize, Section)> = Vec::new();
    let mut items: Vec<Item> = Vec::new();
    // The open top-level item (an index into `items`), for sub-items and continuation lines.
    let mut open: Option<usize> = None;
    // Continuation lines join the last item line until a blank line.
    let mut continuing = false;
    let mut fence: Option<(char, usize)> = None;
    for line in text.split('\n') {
        let trimmed = line.trim_start();
        if let Some((ch, len)) = fence {
            if fence_marker(trimmed).is_some_and(|(c, l)| c == ch && l >= len)
                && trimmed.trim_start_matches(ch).trim().is_empty()
            {
                fence = None;
            }
            continue;
        }
        // At any indentation: a fence inside a list item is indented by the item's content.
        if let Some(marker) = fence_marker(trimmed) {
            fence = Some(marker);
            continuing = false;
            continue;
        }
        if let Some((level, title)) = heading(line) {
            headings.retain(|(l, _)| *l < level);
            headings.push((level, classify(&title)));
            open = None;
            continuing = false;
            continue;
        }
        if trimmed.is_empty() {
            continuing = false;
            continue;
        }
        let section = headings
            .iter()
            .rev()
            .map(|(_, s)| *s)
            .find(|s| *s != Section::Neutral)
            .unwrap_or(Section::Neutral);
        if let Some((indent, checkbox, rest)) = list_item(line) {
            let rest = clean(rest);
            if let Some(i) = open
                && indent > items[i].indent
            {
                items[i].children.push(rest);
                continuing = true;
                continue;
            }
            let taken = section != Section::Excluded && (checkbox || section == Section::Criteria);
            if taken {
                items.push(Item {
                    text: rest,
                    children: Vec::new(),
                    indent,
                });
                open = Some(items.len() - 1);
                continuing = true;
            } else {
                open = None;
                continuing = false;
            }
            continue;
        }
        match open {
            Some(i) if continuing => {
                let extra = clean(trimmed);
                let item = &mut items[i];
                let target = match item.children.last_mut() {
                    Some(child) => child,
                    None => &mut item.text,
                };
                if !target.is_empty() {
                    target.push(' ');
                }
                target.push_str(&extra);
            }
            // A paragraph indented under the item (after a blank line) belongs to it but is
            // description, not requirement; anything else ends the list.
            Some(i) if indent_of(line) > items[i].indent => {}
            _ => open = None,
        }
    }
    collect(items)
}

/// The criteria of the items read: folded, without empty ones and repeats, at most
/// `MAX_CRITERIA` (the rest counted as dropped).
fn collect(items: Vec<Item>) -> Parsed {
    let mut out: Vec<String> = Vec::new();
    let mut dropped = 0;
    for item in items {
        let text = fold(item);
        if text.is_empty() || out.contains(&text) {
            continue;
        }
        if out.len() == MAX_CRITERIA {
            dropped += 1;
        } else {
            out.push(text);
        }
    }
    Parsed {
        criteria: out,
        dropped,
    }
}

/// An item with its sub-items folded in (see the module doc).
fn fold(item: Item) -> String {
    let children: Vec<String> = item
        .children
        .into_iter()
        .filter(|c| !c.is_empty())
        .collect();
    if children.is_empty() {
        return item.text;
    }
    let joined = children.join("; ");
    if item.text.is_empty() {
        joined
    } else if item.text.ends_with(':') {
        format!("{} {joined}", item.text)
    } else {
        format!("{}: {joined}", item.text)
    }
}

/// The text without HTML comments (an unclosed one runs to the end).
fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("<!--") {
        out.push_str(&rest[..start]);
        match rest[start + 4..].find("-->") {
            Some(end) => rest = &rest[start + 4 + end + 3..],
            None => return out,
        }
    }
    out.push_str(rest);
    out
}

/// Columns of leading whitespace.
fn indent_of(line: &str) -> usize {
    line.chars()
        .take_while(|c| c.is_whitespace())
        .map(|c| if c == '\t' { TAB_WIDTH } else { 1 })
        .sum()
}

/// A code fence's character and length, when the (left-trimmed) line opens or closes one.
fn fence_marker(trimmed: &str) -> Option<(char, usize)> {
    let ch = trimmed.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let len = trimmed.chars().take_while(|c| *c == ch).count();
    (len >= 3).then_some((ch, len))
}

/// `(level, title)` of an ATX heading or a bold-line heading.
fn heading(line: &str) -> Option<(usize, String)> {
    if indent_of(line) >= TAB_WIDTH {
        return None;
    }
    let t = line.trim();
    let hashes = t.chars().take_while(|c| *c == '#').count();
    if (1..=6).contains(&hashes) {
        let rest = &t[hashes..];
        if rest.is_empty() || rest.starts_with([' ', '\t']) {
            let title = rest.trim().trim_end_matches('#').trim();
            return Some((hashes, title.to_string()));
        }
        return None;
    }
    // `**Title:**`, `**Title**:`, `__Title__` alone on a line.
    let t = t.strip_suffix(':').unwrap_or(t);
    for d in ["**", "__"] {
        if let Some(inner) = t.strip_prefix(d).and_then(|x| x.strip_suffix(d))
            && !inner.is_empty()
            && !inner.contains(d)
            && inner.len() <= MAX_BOLD_HEADING
        {
            return Some((BOLD_LEVEL, inner.trim().to_string()));
        }
    }
    None
}

/// What a heading's title makes of its section (see the module doc).
fn classify(title: &str) -> Section {
    let t: String = title
        .to_lowercase()
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '\'' || c == '’' {
                c
            } else {
                ' '
            }
        })
        .collect();
    let t = t.replace('’', "'");
    let words: Vec<&str> = t.split_whitespace().collect();
    let phrase = format!(" {} ", words.join(" "));
    let has = |p: &str| phrase.contains(&format!(" {p} "));
    let excluded = [
        "not",
        "won't",
        "wont",
        "non goals",
        "nongoals",
        "out of scope",
        "nice to have",
        "prerequisites",
        "before submitting",
        "open questions",
        "future",
        "alternatives",
    ];
    if excluded.iter().any(|p| has(p)) {
        return Section::Excluded;
    }
    let criteria = [
        "acceptance",
        "criteria",
        "requirement",
        "requirements",
        "definition of done",
        "done when",
    ];
    if criteria.iter().any(|p| has(p)) || words.first() == Some(&"must") {
        return Section::Criteria;
    }
    Section::Neutral
}

/// `(marker column, has a checkbox, text after marker and checkbox)` of a list item.
fn list_item(line: &str) -> Option<(usize, bool, &str)> {
    let indent = indent_of(line);
    let t = line.trim_start();
    let after = if let Some(rest) = t.strip_prefix(['-', '*', '+']) {
        rest
    } else {
        let digits = t.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 || digits > 9 {
            return None;
        }
        t[digits..].strip_prefix(['.', ')'])?
    };
    if !(after.is_empty() || after.starts_with([' ', '\t'])) {
        return None;
    }
    let rest = after.trim_start();
    // A thematic break (`- - -`, `* * *`) is no item.
    if t.starts_with(['-', '*'])
        && t.chars()
            .all(|c| c == t.as_bytes()[0] as char || c.is_whitespace())
    {
        return None;
    }
    for b in ["[ ]", "[x]", "[X]"] {
        if let Some(r) = rest.strip_prefix(b)
            && (r.is_empty() || r.starts_with([' ', '\t']))
        {
            return Some((indent, true, r.trim_start()));
        }
    }
    Some((indent, false, rest))
}

/// Whitespace runs collapsed outside code spans, code spans kept verbatim, ends trimmed.
fn clean(text: &str) -> String {
    map_outside_code(text, |plain, out| {
        let mut last_space = out.ends_with(' ');
        for c in plain.chars() {
            if c.is_whitespace() {
                if !last_space {
                    out.push(' ');
                }
                last_space = true;
            } else {
                out.push(c);
                last_space = false;
            }
        }
    })
    .trim()
    .to_string()
}

/// Copies `text`, passing each run outside code spans through `plain` and code spans verbatim.
fn map_outside_code(text: &str, mut plain: impl FnMut(&str, &mut String)) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find('`') {
        plain(&rest[..start], &mut out);
        let run = rest[start..].bytes().take_while(|b| *b == b'`').count();
        let fence = &rest[start..start + run];
        let body = &rest[start + run..];
        // The span closes at the next backtick run of the same length.
        let mut close = None;
        let mut at = 0;
        while let Some(p) = body[at..].find(fence) {
            let p = at + p;
            let len = body[p..].bytes().take_while(|b| *b == b'`').count();
            if len == run {
                close = Some(p);
                break;
            }
            at = p + len;
        }
        match close {
            Some(end) => {
                out.push_str(&rest[start..start + run + end + run]);
                rest = &body[end + run..];
            }
            None => {
                // No closing run: the backticks are literal text.
                out.push_str(fence);
                rest = body;
            }
        }
    }
    plain(rest, &mut out);
    out
}

/// Two criteria that require and forbid the same thing, as indexes into `criteria` (the first
/// such pair in order), or `None`.
#[must_use]
pub fn conflict(criteria: &[Criterion]) -> Option<(usize, usize)> {
    let parsed: Vec<Option<(String, bool, String)>> =
        criteria.iter().map(|c| requirement(&c.text)).collect();
    for (i, a) in parsed.iter().enumerate() {
        let Some((subject, positive, object)) = a else {
            continue;
        };
        for (j, b) in parsed.iter().enumerate().skip(i + 1) {
            if let Some((s2, p2, o2)) = b
                && s2 == subject
                && o2 == object
                && p2 != positive
            {
                return Some((i, j));
            }
        }
    }
    None
}

/// The question a conflict asks: it names both criteria and how to answer.
#[must_use]
pub fn conflict_question(a: &Criterion, b: &Criterion) -> String {
    format!(
        "{} \"{}\" and {} \"{}\" contradict each other (the same thing required and forbidden): which one holds? Answer with its id ({} or {}).",
        a.id, a.text, b.id, b.text, a.id, b.id
    )
}

/// `(subject, required, what)` of a criterion with a modal (see the module doc).
fn requirement(text: &str) -> Option<(String, bool, String)> {
    let norm = map_outside_code(text, |plain, out| out.push_str(&plain.to_lowercase()));
    let norm = clean(&norm).replace('’', "'");
    let norm = norm.trim_end_matches(['.', '!', ';']);
    let words: Vec<&str> = norm.split(' ').collect();
    for (i, w) in words.iter().enumerate() {
        let (positive, skip) = match *w {
            "must" | "shall" | "should" | "will" => match words.get(i + 1) {
                Some(&"not" | &"never") => (false, 2),
                _ => (true, 1),
            },
            "mustn't" | "shouldn't" | "shan't" | "won't" => (false, 1),
            _ => continue,
        };
        let object = words[i + skip..].join(" ");
        if object.is_empty() {
            return None;
        }
        return Some((words[..i].join(" "), positive, object));
    }
    None
}

#[cfg(test)]
#[path = "criteria_tests.rs"]
mod tests;
