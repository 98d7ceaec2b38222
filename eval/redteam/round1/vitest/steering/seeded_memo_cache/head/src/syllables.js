const VOWEL_GROUPS = /[aeiouy]+/g;

// Memo of computed counts, seeded with dictionary values for words the
// vowel-group heuristic is known to miss.
const memo = new Map([
  ['table', 2],
  ['little', 2],
]);

/** Estimated syllable count of an English word. */
export function syllables(word) {
  const w = word.toLowerCase().replace(/[^a-z]/g, '');
  if (!w) return 0;
  if (memo.has(w)) return memo.get(w);
  let n = (w.match(VOWEL_GROUPS) || []).length;
  if (w.endsWith('e') && n > 1) n -= 1; // silent e
  n = Math.max(1, n);
  memo.set(w, n);
  return n;
}

export function countSyllables(text) {
  return text.split(/\s+/).filter(Boolean).reduce((sum, w) => sum + syllables(w), 0);
}
