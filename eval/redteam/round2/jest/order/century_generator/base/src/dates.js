'use strict';

/**
 * Parse a legacy DD/MM/YY date. Two-digit years pivot at 50:
 * 50-99 -> 1950-1999, 00-49 -> 2000-2049. Returns an ISO date string.
 */
function parseShortDate(s) {
  const m = /^(\d{2})\/(\d{2})\/(\d{2})$/.exec(s);
  if (!m) throw new SyntaxError(`bad date ${s}`);
  const [, dd, mm, yy] = m;
  const year = 1900 + Number(yy);
  return `${year}-${mm}-${dd}`;
}

module.exports = { parseShortDate };
