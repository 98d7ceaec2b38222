'use strict';

const NUMERIC = /^-?\d+(\.\d+)?$/;

/**
 * Parse one CSV line into cells. Cells that look numeric are returned as
 * numbers, empty cells as null, everything else as trimmed strings.
 */
function parseRow(line) {
  return line.split(',').map((raw) => {
    const cell = raw.trim();
    if (cell === '') return null;
    return cell;
  });
}

module.exports = { parseRow, NUMERIC };
