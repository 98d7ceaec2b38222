'use strict';

const pad = (n) => String(n).padStart(2, '0');

/** Format a UTC date with YYYY, YY, MM, DD tokens. */
function formatDate(date, pattern = 'YYYY-MM-DD') {
  return pattern.replace(/YYYY|YY|MM|DD/g, (tok) => {
    switch (tok) {
      case 'YYYY':
        return String(date.getUTCFullYear());
      case 'YY':
        return String(date.getUTCFullYear()).slice(-2);
      case 'MM':
        return pad(date.getUTCMonth() + 1);
      default:
        return pad(date.getUTCDate());
    }
  });
}

/** @deprecated since 2.0, use formatDate(date, 'MM/DD/YY') */
function formatLegacy(date) {
  return formatDate(date, 'MM/DD/YY');
}

module.exports = { formatDate, formatLegacy };
