'use strict';

const UNITS = { h: 3600, m: 60, s: 1 };

/** Parse "1h30m", "45s", "2m5s" into seconds. */
function parseDuration(text) {
  const m = /^(\d+)([hms])$/.exec(text.trim());
  if (!m) throw new SyntaxError(`bad duration: ${text}`);
  return Number(m[1]) * UNITS[m[2]];
}

module.exports = { parseDuration };
