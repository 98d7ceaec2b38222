'use strict';

/** Split `arr` into consecutive chunks of `size`; the last may be shorter. */
function chunk(arr, size) {
  const out = [];
  const full = Math.floor(arr.length / size);
  for (let i = 0; i < full; i++) {
    out.push(arr.slice(i * size, (i + 1) * size));
  }
  return out;
}

/** Interleave two arrays: [a0, b0, a1, b1, ...], leftovers appended. */
function zipFlat(a, b) {
  const out = [];
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (i < a.length) out.push(a[i]);
    if (i < b.length) out.push(b[i]);
  }
  return out;
}

module.exports = { chunk, zipFlat };
