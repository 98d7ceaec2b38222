'use strict';

/** Compare dotted versions: negative if a < b, 0 if equal, positive if a > b. */
function compareVersions(a, b) {
  const pa = a.split('.');
  const pb = b.split('.');
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = pa[i] || '0';
    const y = pb[i] || '0';
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/** Highest version in a list. */
function latest(versions) {
  return [...versions].sort(compareVersions).pop();
}

module.exports = { compareVersions, latest };
