'use strict';

function parts(v) {
  return v.split('.').map((p) => {
    const n = Number(p);
    if (!Number.isInteger(n) || n < 0) throw new TypeError(`invalid version: ${v}`);
    return n;
  });
}

/** Compare dotted versions: negative if a < b, 0 if equal, positive if a > b. */
function compareVersions(a, b) {
  const pa = parts(a);
  const pb = parts(b);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = pa[i] ?? 0;
    const y = pb[i] ?? 0;
    if (x !== y) return x - y;
  }
  return 0;
}

/** Highest version in a list. */
function latest(versions) {
  return [...versions].sort(compareVersions).pop();
}

module.exports = { compareVersions, latest };
