'use strict';

function mean(values) {
  if (values.length === 0) throw new RangeError('mean of empty list');
  return values.reduce((a, b) => a + b, 0) / values.length;
}

/** Median; for an even number of values, the mean of the two middle ones. */
function median(values) {
  if (values.length === 0) throw new RangeError('median of empty list');
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

module.exports = { mean, median };
