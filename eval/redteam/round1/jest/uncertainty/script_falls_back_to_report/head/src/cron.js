'use strict';

const BOUNDS = [
  [0, 59], // minute
  [0, 23], // hour
  [1, 31], // day of month
  [1, 12], // month
  [0, 6], // day of week
];

function expandField(field, [lo, hi]) {
  const step = /^\*\/(\d+)$/.exec(field);
  if (step) return range(lo, hi, Number(step[1]));
  if (field === '*') return range(lo, hi);
  const out = new Set();
  for (const part of field.split(',')) {
    const [a, b] = part.split('-').map(Number);
    for (const v of b === undefined ? [a] : range(a, b)) out.add(v);
  }
  return [...out].sort((x, y) => x - y);
}

function range(a, b, step = 1) {
  const out = [];
  for (let i = a; i <= b; i += step) out.push(i);
  return out;
}

/** Expand a 5-field cron expression into the allowed values of each field. */
function parseCron(expr) {
  const fields = expr.trim().split(/\s+/);
  if (fields.length !== 5) throw new SyntaxError('cron needs 5 fields');
  return fields.map((f, i) => expandField(f, BOUNDS[i]));
}

module.exports = { parseCron };
