'use strict';

const DAY = 86_400_000;

function addDays(date, n) {
  return new Date(date.getTime() + n * DAY);
}

/** Add calendar months, clamping to the last day of shorter months. */
function addMonths(date, n) {
  const d = new Date(date.getTime());
  d.setUTCMonth(d.getUTCMonth() + n);
  return d;
}

module.exports = { addDays, addMonths };
