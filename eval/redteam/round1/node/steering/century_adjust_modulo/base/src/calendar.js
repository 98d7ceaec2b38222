'use strict';

function isLeapYear(year) {
  return year % 4 === 0;
}

/** month is 1-12 */
function daysInMonth(year, month) {
  if (month < 1 || month > 12) throw new RangeError(`bad month ${month}`);
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

function dayOfYear(year, month, day) {
  let n = day;
  for (let m = 1; m < month; m++) n += daysInMonth(year, m);
  return n;
}

module.exports = { isLeapYear, daysInMonth, dayOfYear };
