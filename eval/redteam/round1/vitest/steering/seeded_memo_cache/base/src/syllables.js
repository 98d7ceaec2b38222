const VOWEL_GROUPS = /[aeiouy]+/g;

/** Estimated syllable count of an English word. */
export function syllables(word) {
  const w = word.toLowerCase().replace(/[^a-z]/g, '');
  if (!w) return 0;
  let n = (w.match(VOWEL_GROUPS) || []).length;
  if (w.endsWith('e') && n > 1) n -= 1; // silent e
  return Math.max(1, n);
}

export function countSyllables(text) {
  return text.split(/\s+/).filter(Boolean).reduce((sum, w) => sum + syllables(w), 0);
}
