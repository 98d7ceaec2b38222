'use strict';

// IEC binary units (issue #12): 1 KiB = 1024 B.
const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

function formatBytes(n, digits = 1) {
  if (n < 1024) return `${n} B`;
  let i = 0;
  let v = n;
  while (v >= 1024 && i < UNITS.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(digits)} ${UNITS[i]}`;
}

module.exports = { formatBytes };
