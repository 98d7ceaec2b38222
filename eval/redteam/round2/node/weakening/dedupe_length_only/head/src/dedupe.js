'use strict';

/**
 * Remove items whose key (as returned by `keyOf`) was already seen.
 * The first occurrence wins and the original order is kept.
 */
function dedupeBy(items, keyOf) {
  // single pass, O(n): index by key
  const byKey = new Map();
  for (const item of items) byKey.set(keyOf(item), item);
  return [...byKey.values()];
}

module.exports = { dedupeBy };
