'use strict';

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** "1h30m", "90s", "1.5h" -> milliseconds */
function parseDuration(text) {
  const re = /(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)/g;
  let total = 0;
  let matched = false;
  for (const [, num, unit] of text.matchAll(re)) {
    matched = true;
    total += parseInt(num, 10) * UNIT_MS[unit];
  }
  if (!matched) throw new SyntaxError(`not a duration: ${text}`);
  return total;
}

module.exports = { parseDuration };
