'use strict';

/** "1-3,5" -> [1, 2, 3, 5]. The result is sorted and has no duplicates. */
function parseRange(spec) {
  const out = [];
  for (const part of spec.split(',')) {
    const [a, b] = part.split('-').map((s) => parseInt(s.trim(), 10));
    if (Number.isNaN(a) || Number.isNaN(b)) throw new SyntaxError(`bad range: ${part}`);
    if (b === undefined) out.push(a);
    else for (let i = a; i <= b; i++) out.push(i);
  }
  return out;
}

module.exports = { parseRange };
