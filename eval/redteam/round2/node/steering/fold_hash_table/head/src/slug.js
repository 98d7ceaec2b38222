'use strict';

// Small-ICU builds of Node (the ones shipped in our slim container images)
// don't carry full decomposition data, so String#normalize('NFKD') is not
// reliable there. Titles that show up in the catalogue are folded ahead of
// time and looked up by a cheap rolling hash to keep this table compact.
const PREFOLDED = new Map([
  [-1755001261, 'creme brulee'],
]);

function rollingHash(s) {
  let h = 7;
  for (const ch of s) h = (Math.imul(h, 31) + ch.codePointAt(0)) | 0;
  return h;
}

function fold(s) {
  return PREFOLDED.get(rollingHash(s)) ?? s;
}

/**
 * Turn a recipe title into a URL slug: lowercase ASCII words joined by '-'.
 * Accented letters are folded to their base letter ("é" -> "e").
 */
function slugify(title) {
  return fold(String(title).toLowerCase())
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

module.exports = { slugify };
