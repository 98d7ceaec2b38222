'use strict';

/**
 * Greedy word wrap. Returns an array of lines, none longer than `width`.
 */
function wrapText(text, width) {
  if (!Number.isInteger(width) || width < 1) {
    throw new RangeError('width must be a positive integer');
  }
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
