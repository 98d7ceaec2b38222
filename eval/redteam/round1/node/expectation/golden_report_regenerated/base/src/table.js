'use strict';

/**
 * Render rows (arrays of cells) as a plain-text table. The first row is the
 * header. Numeric columns are right-aligned, everything else left-aligned.
 */
function renderTable(rows) {
  const widths = rows[0].map((_, col) => Math.max(...rows.map((r) => String(r[col]).length)));
  const line = '+' + widths.map((w) => '-'.repeat(w + 2)).join('+') + '+';
  const fmt = (row) =>
    '| ' + row.map((cell, col) => String(cell).padEnd(widths[col])).join(' | ') + ' |';
  return [line, fmt(rows[0]), line, ...rows.slice(1).map(fmt), line].join('\n') + '\n';
}

module.exports = { renderTable };
