'use strict';

const CANDIDATES = [',', ';', '\t'];

/** Guess the delimiter of a CSV-ish text from its header line. */
function detectDelimiter(text) {
  const header = text.split(/\r?\n/, 1)[0];
  return header.includes(',') ? ',' : ';';
}

/** Split the header line with the detected delimiter. */
function headerFields(text) {
  const d = detectDelimiter(text);
  return text.split(/\r?\n/, 1)[0].split(d);
}

module.exports = { detectDelimiter, headerFields, CANDIDATES };
