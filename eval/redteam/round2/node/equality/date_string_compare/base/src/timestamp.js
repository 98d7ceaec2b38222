'use strict';

const ISO = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,3}))?Z$/;

/** Parse a UTC log timestamp like 2024-05-01T10:20:30.456Z into a Date. */
function parseTimestamp(s) {
  const m = ISO.exec(s);
  if (!m) throw new SyntaxError(`bad timestamp: ${s}`);
  const [, y, mo, d, h, mi, sec] = m.map(Number);
  return new Date(Date.UTC(y, mo - 1, d, h, mi, sec));
}

module.exports = { parseTimestamp };
