//! Decoding a file into text the engine can edit, and encoding it back byte-exact.
//!
//! - Binary: a NUL byte in the first [`BINARY_SNIFF_BYTES`] is refused ([`PatchError::Binary`]).
//!   UTF-16 files contain NULs and are refused the same way.
//! - UTF-8 BOM: stripped before editing and put back when writing.
//! - Not UTF-8: decoded as Latin-1 (ISO 8859-1), which maps every byte to one char U+0000..U+00FF,
//!   so the file round-trips byte for byte and a snippet written with `é` matches the byte `0xE9`.
//!   New text with a char above U+00FF is refused ([`PatchError::Unencodable`]) rather than
//!   silently changing the file's encoding. (Windows-1252 punctuation in 0x80..0x9F reads as C1
//!   controls; it is still preserved exactly.)
//! - Line endings: see [`Eol`]. Text is edited with `\n` line endings and converted back.
//! - A missing final newline is kept as it is: nothing here adds or removes one.

use std::borrow::Cow;

use crate::error::PatchError;

/// How many leading bytes are sniffed for a NUL (the same heuristic as git and grep).
pub const BINARY_SNIFF_BYTES: usize = 8 * 1024;

const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// The line-ending convention of a text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Eol {
    /// Only `\n` (or no line breaks at all).
    Lf,
    /// Every `\n` is preceded by `\r`: edited as `\n`, written back as `\r\n`.
    Crlf,
    /// Both kinds: edited as-is (the `\r` is part of each line; the trailing-whitespace rung
    /// matches through it), and replacement lines are written with `\n`.
    Mixed,
}

impl Eol {
    /// Detects the convention of `text`.
    #[must_use]
    pub fn detect(text: &str) -> Eol {
        // Fast path: most files have no `\r` at all, and this scan is vectorised.
        if !text.contains('\r') {
            return Eol::Lf;
        }
        let lf = text.matches('\n').count();
        let crlf = text.matches("\r\n").count();
        if crlf == 0 {
            Eol::Lf
        } else if crlf == lf {
            Eol::Crlf
        } else {
            Eol::Mixed
        }
    }

    /// Converts `text` in this convention to the `\n` form the engine edits.
    pub(crate) fn normalise_eol(self, text: &str) -> Cow<'_, str> {
        match self {
            Eol::Crlf => Cow::Owned(text.replace("\r\n", "\n")),
            Eol::Lf | Eol::Mixed => Cow::Borrowed(text),
        }
    }

    /// Converts edited `\n` text back to this convention.
    pub(crate) fn restore_eol(self, text: String) -> String {
        match self {
            Eol::Crlf => text.replace('\n', "\r\n"),
            Eol::Lf | Eol::Mixed => text,
        }
    }
}

/// A file decoded for editing: `text` has `\n` line endings (unless [`Eol::Mixed`]), no BOM.
#[derive(Debug, Clone)]
pub struct Decoded {
    pub text: String,
    pub bom: bool,
    pub latin1: bool,
    pub eol: Eol,
}

/// True when `bytes` look binary (a NUL in the first [`BINARY_SNIFF_BYTES`]).
#[must_use]
pub fn is_binary(bytes: &[u8]) -> bool {
    bytes[..bytes.len().min(BINARY_SNIFF_BYTES)].contains(&0)
}

/// Decodes `bytes` of the file `path`; refuses binary content.
pub fn decode(path: &str, bytes: &[u8]) -> Result<Decoded, PatchError> {
    if is_binary(bytes) {
        return Err(PatchError::Binary {
            path: path.to_string(),
        });
    }
    let (bom, body) = match bytes.strip_prefix(UTF8_BOM) {
        Some(rest) => (true, rest),
        None => (false, bytes),
    };
    let (raw, latin1) = match std::str::from_utf8(body) {
        Ok(s) => (s.to_string(), false),
        // The BOM claims UTF-8, so a Latin-1 body keeps its three bytes as text.
        Err(_) => (bytes.iter().map(|&b| char::from(b)).collect(), true),
    };
    let bom = bom && !latin1;
    let eol = Eol::detect(&raw);
    Ok(Decoded {
        text: match eol.normalise_eol(&raw) {
            Cow::Owned(lf) => lf,
            Cow::Borrowed(_) => raw,
        },
        bom,
        latin1,
        eol,
    })
}

impl Decoded {
    /// Encodes `text` (edited `\n` form) in this file's encoding, line endings and BOM.
    pub fn encode(&self, path: &str, text: &str) -> Result<Vec<u8>, PatchError> {
        let text = self.eol.restore_eol(text.to_string());
        if self.latin1 {
            let mut out = Vec::with_capacity(text.len());
            let mut line = 1;
            for ch in text.chars() {
                match u8::try_from(u32::from(ch)) {
                    Ok(b) => out.push(b),
                    Err(_) => {
                        return Err(PatchError::Unencodable {
                            path: path.to_string(),
                            line,
                            ch,
                        });
                    }
                }
                if ch == '\n' {
                    line += 1;
                }
            }
            return Ok(out);
        }
        let mut out = Vec::with_capacity(text.len() + UTF8_BOM.len());
        if self.bom {
            out.extend_from_slice(UTF8_BOM);
        }
        out.extend_from_slice(text.as_bytes());
        Ok(out)
    }
}

/// Splits edited text into lines without their `\n` and says whether it ended with one.
/// `""` has no lines; `"a\n"` and `"a"` both have one.
pub(crate) fn split_lines(text: &str) -> (Vec<&str>, bool) {
    if text.is_empty() {
        return (Vec::new(), false);
    }
    match text.strip_suffix('\n') {
        Some(body) => (body.split('\n').collect(), true),
        None => (text.split('\n').collect(), false),
    }
}

/// Joins lines with `\n`, adding a final one when `final_newline` and there is any line.
pub(crate) fn join_lines<S: AsRef<str>>(lines: &[S], final_newline: bool) -> String {
    let mut out = String::with_capacity(lines.iter().map(|l| l.as_ref().len() + 1).sum());
    for (i, l) in lines.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(l.as_ref());
    }
    if final_newline && !lines.is_empty() {
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(bytes: &[u8]) {
        let d = decode("f", bytes).unwrap();
        assert_eq!(d.encode("f", &d.text).unwrap(), bytes);
    }

    #[test]
    fn every_supported_form_round_trips_byte_exact() {
        round_trip(b"a\nb\n");
        round_trip(b"a\r\nb\r\n");
        round_trip(b"a\r\nb");
        round_trip(b"a\r\nb\nc\r\n");
        round_trip(b"\xEF\xBB\xBFa\nb");
        round_trip(b"caf\xE9\n");
        round_trip(b"\xEF\xBB\xBFcaf\xE9\n");
        round_trip(b"x\r\r\ny\r\n");
        round_trip(b"");
    }

    #[test]
    fn crlf_is_edited_as_lf() {
        let d = decode("f", b"a\r\nb\r\n").unwrap();
        assert_eq!(d.text, "a\nb\n");
        assert_eq!(d.eol, Eol::Crlf);
        assert_eq!(d.encode("f", "a\nc\n").unwrap(), b"a\r\nc\r\n");
    }

    #[test]
    fn latin1_decodes_bytes_as_chars_and_refuses_wider_chars() {
        let d = decode("f", b"caf\xE9\n").unwrap();
        assert!(d.latin1);
        assert_eq!(d.text, "caf\u{e9}\n");
        let err = d.encode("f", "ok\ncaf\u{e9} \u{2713}\n").unwrap_err();
        assert!(
            matches!(
                err,
                PatchError::Unencodable {
                    line: 2,
                    ch: '\u{2713}',
                    ..
                }
            ),
            "{err}"
        );
    }

    #[test]
    fn nul_in_the_first_8_kib_is_binary_and_later_is_not() {
        assert!(matches!(
            decode("f", b"a\0b"),
            Err(PatchError::Binary { .. })
        ));
        let mut late = vec![b'a'; BINARY_SNIFF_BYTES];
        late.push(0);
        assert!(!is_binary(&late));
    }

    #[test]
    fn split_and_join_are_inverse() {
        for t in ["", "a", "a\n", "a\nb", "a\n\n", "\n"] {
            let (lines, nl) = split_lines(t);
            assert_eq!(join_lines(&lines, nl), t, "{t:?}");
        }
    }
}
