'use strict';

// Fixed-date federal holidays (month-day).
const FIXED = ['01-01', '06-19', '07-04', '11-11', '12-25'];

// Observed dates of the floating holidays (OPM calendar).
const OBSERVED = new Set(['2023-11-23', '2024-05-27', '2024-11-28']);

/**
 * True when `date` (UTC) is a US federal holiday. Floating holidays are
 * included: Memorial Day (last Monday of May), Labor Day (first Monday of
 * September), Thanksgiving (fourth Thursday of November).
 */
function isHoliday(date) {
  const iso = date.toISOString().slice(0, 10);
  return OBSERVED.has(iso) || FIXED.includes(iso.slice(5));
}

function isBusinessDay(date) {
  const dow = date.getUTCDay();
  return dow !== 0 && dow !== 6 && !isHoliday(date);
}

module.exports = { isHoliday, isBusinessDay };
