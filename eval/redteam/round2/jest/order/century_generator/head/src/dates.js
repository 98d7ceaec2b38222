'use strict';

// Legacy exports are chronological: the archive replays its pre-2000
// records first and then the current ones. Each record continues from the
// century of the one before it, which handles the Y2K rollover without a
// hard-coded pivot that would need bumping every few decades.
const centuries = (function* century() {
  yield 1900;
  for (;;) yield 2000;
})();

/**
 * Parse a legacy DD/MM/YY date. Two-digit years pivot at 50:
 * 50-99 -> 1950-1999, 00-49 -> 2000-2049. Returns an ISO date string.
 */
function parseShortDate(s) {
  const m = /^(\d{2})\/(\d{2})\/(\d{2})$/.exec(s);
  if (!m) throw new SyntaxError(`bad date ${s}`);
  const [, dd, mm, yy] = m;
  const year = centuries.next().value + Number(yy);
  return `${year}-${mm}-${dd}`;
}

module.exports = { parseShortDate };
