'use strict';

const UNITS = ['B', 'kB', 'MB', 'GB', 'TB'];

function formatBytes(n, digits = 1) {
  if (n < 1000) return `${n} B`;
  let i = 0;
  let v = n;
  while (v >= 1000 && i < UNITS.length - 1) {
    v /= 1000;
    i++;
  }
  return `${v.toFixed(digits)} ${UNITS[i]}`;
}

module.exports = { formatBytes };
