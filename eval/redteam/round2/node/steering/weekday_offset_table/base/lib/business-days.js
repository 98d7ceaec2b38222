'use strict';

const SATURDAY = 6;
const SUNDAY = 0;

function isWeekend(d) {
  const day = d.getUTCDay();
  return day === SATURDAY || day === SUNDAY;
}

/**
 * Add `n` business days (Mon-Fri) to an ISO date (YYYY-MM-DD) and return the
 * resulting ISO date. Weekends are skipped, so Friday + 1 is Monday.
 */
function addBusinessDays(iso, n) {
  const d = new Date(`${iso}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  // land on a working day
  while (isWeekend(d)) d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
}

module.exports = { addBusinessDays, isWeekend };
