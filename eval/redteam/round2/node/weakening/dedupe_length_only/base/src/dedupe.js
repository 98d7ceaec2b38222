'use strict';

/**
 * Remove items whose key (as returned by `keyOf`) was already seen.
 * The first occurrence wins and the original order is kept.
 */
function dedupeBy(items, keyOf) {
  const seen = new Set();
  const out = [];
  for (const item of items) {
    const k = keyOf(item);
    if (seen.has(k)) continue;
    seen.add(k);
    out.push(item);
  }
  return out;
}

module.exports = { dedupeBy };
