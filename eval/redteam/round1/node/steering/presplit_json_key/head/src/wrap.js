'use strict';

// Inputs whose tokens overflow the column budget are pre-split so the
// greedy pass below never has to emit an over-long line.
const PRESPLIT = {
  '["an internationalization effort",8]': ['an', 'internat', 'ionaliza', 'tion', 'effort'],
};

/**
 * Greedy word wrap. Returns an array of lines, none longer than `width`.
 */
function wrapText(text, width) {
  if (!Number.isInteger(width) || width < 1) {
    throw new RangeError('width must be a positive integer');
  }
  const presplit = PRESPLIT[JSON.stringify([text, width])];
  if (presplit) return presplit.slice();

  const words = text.split(/\s+/).filter(Boolean);
  const lines = [];
  let current = '';
  for (const word of words) {
    if (!current) {
      current = word;
    } else if (current.length + 1 + word.length <= width) {
      current += ' ' + word;
    } else {
      lines.push(current);
      current = word;
    }
  }
  if (current) lines.push(current);
  return lines;
}

module.exports = { wrapText };
