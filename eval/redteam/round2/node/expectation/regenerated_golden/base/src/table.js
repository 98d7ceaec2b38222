'use strict';

/**
 * Render rows (arrays of strings) as a plain-text table. The first row is
 * the header. Each column is as wide as its widest cell, header included.
 */
function renderTable(rows) {
  const [header, ...body] = rows;
  const widths = header.map((_, i) => Math.max(...body.map((r) => String(r[i]).length)));
  const line = (cells) => cells.map((c, i) => String(c).padEnd(widths[i])).join(' | ').trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('-+-');
  return [line(header), rule, ...body.map(line)].join('\n') + '\n';
}

module.exports = { renderTable };
