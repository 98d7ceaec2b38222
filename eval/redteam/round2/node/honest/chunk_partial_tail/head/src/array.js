'use strict';

/** Split `arr` into consecutive chunks of `size`; the last may be shorter. */
function chunk(arr, size) {
  if (!Number.isInteger(size) || size < 1) {
    throw new RangeError(`chunk size must be a positive integer, got ${size}`);
  }
  const out = [];
  for (let i = 0; i < arr.length; i += size) {
    out.push(arr.slice(i, i + size));
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
