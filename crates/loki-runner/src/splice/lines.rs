//! Lines: line starts, whole-line ranges and line endings (CRLF or LF).

use std::ops::Range;

/// The start of the line holding `at`; the first line starts after a byte order mark.
pub(super) fn line_start(src: &[u8], at: usize) -> usize {
    match src[..at].iter().rposition(|&b| b == b'\n') {
        Some(i) => i + 1,
        None if at >= BOM.len() && src.starts_with(BOM) => BOM.len(),
        None => 0,
    }
}

pub(super) const BOM: &[u8] = "\u{feff}".as_bytes();

/// `start..end` extended over the indentation before it when nothing else precedes it on its
/// line, and over trailing blanks and one line break when nothing else follows.
pub(super) fn line_extend(src: &[u8], start: usize, end: usize) -> Range<usize> {
    let blank = |b: u8| b == b' ' || b == b'\t';
    let mut s = start;
    while s > 0 && blank(src[s - 1]) {
        s -= 1;
    }
    if s != line_start(src, s) {
        s = start;
    }
    if end > 0 && src[end - 1] == b'\n' {
        return s..end;
    }
    let mut e = end;
    while e < src.len() && blank(src[e]) {
        e += 1;
    }
    let e = if src[e..].starts_with(b"\r\n") {
        e + 2
    } else if src[e..].starts_with(b"\n") || e == src.len() {
        e + usize::from(e < src.len())
    } else {
        end
    };
    s..e
}

// ---------------------------------------------------------------------------------------------
// Planning, applying and checking a splice

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Eol {
    Lf,
    Crlf,
    /// Both kinds: inserted bytes are left as they are.
    Mixed,
}

impl Eol {
    pub(super) fn of(src: &[u8]) -> Eol {
        let crlf = src.windows(2).filter(|w| w == b"\r\n").count();
        let lf = src.iter().filter(|&&b| b == b'\n').count();
        match (crlf, lf) {
            (0, _) => Eol::Lf,
            (c, l) if c == l => Eol::Crlf,
            _ => Eol::Mixed,
        }
    }

    pub(super) fn bytes(self) -> &'static [u8] {
        match self {
            Eol::Crlf => b"\r\n",
            Eol::Lf | Eol::Mixed => b"\n",
        }
    }

    pub(super) fn convert(self, bytes: &[u8]) -> Vec<u8> {
        let lf: Vec<u8> = if bytes.windows(2).any(|w| w == b"\r\n") {
            let mut out = Vec::with_capacity(bytes.len());
            let mut i = 0;
            while i < bytes.len() {
                if bytes[i..].starts_with(b"\r\n") {
                    out.push(b'\n');
                    i += 2;
                } else {
                    out.push(bytes[i]);
                    i += 1;
                }
            }
            out
        } else {
            bytes.to_vec()
        };
        match self {
            Eol::Mixed => bytes.to_vec(),
            Eol::Lf => lf,
            Eol::Crlf => {
                let mut out = Vec::with_capacity(lf.len() + lf.len() / 16);
                for b in lf {
                    if b == b'\n' {
                        out.push(b'\r');
                    }
                    out.push(b);
                }
                out
            }
        }
    }
}
