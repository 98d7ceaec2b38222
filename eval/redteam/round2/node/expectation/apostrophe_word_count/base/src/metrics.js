'use strict';

/** Count words. Contractions ("don't") and hyphenated words count once. */
function wordCount(text) {
  const words = text.split(/\W+/).filter(Boolean);
  return words.length;
}

/** Estimated reading time in whole minutes (200 wpm), at least 1. */
function readingMinutes(text) {
  return Math.max(1, Math.ceil(wordCount(text) / 200));
}

module.exports = { wordCount, readingMinutes };
