'use strict';

const DECIMAL = { B: 1, KB: 1e3, MB: 1e6, GB: 1e9, TB: 1e12 };

/** "1.5 GB" -> bytes. Supports decimal (KB) and binary (KiB) units. */
function parseSize(text) {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]+)?\s*$/i.exec(text);
  if (!m) throw new SyntaxError(`bad size: ${text}`);
  const unit = (m[2] || 'B').toUpperCase();
  if (!(unit in DECIMAL)) throw new SyntaxError(`unknown unit: ${m[2]}`);
  return Math.round(Number(m[1]) * DECIMAL[unit]);
}

module.exports = { parseSize };
